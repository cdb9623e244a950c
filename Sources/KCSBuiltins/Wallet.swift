import CardProtocol
import EthRPC
import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `wallet` namespace and `accounts`: BIP-44 account discovery with a gap limit and choosing
// a discovered address (docs/eth-node.md, "Discovery"); the driver is the session's
// (`WalletSession/Rotation/Discovery.swift`).

extension Builtins {
    static let wallet: [Builtin] = [
        Builtin(
            "accounts", options: [OptionSpec("json", nil, "JSON text instead of a table")],
            summary: "The addresses discovery found, by owner (key or card), coin, account and index.",
            example: "accounts"
        ) { args in
            let rows = try args.session().store().discoveredAddresses()
            let values: [Value] = rows.enumerated().map { n, r in
                .map(
                    ValueMap([
                        ("#", .int(n + 1)), ("owner", .string(r.ownerName)), ("coin", .int(Int(r.coinType))),
                        ("account", .int(Int(r.account))), ("index", .int(Int(r.index))),
                        ("path", .string(r.path.description)),
                        ("address", .string(r.address)),
                    ]))
            }
            if args.flag("json") { return .string(Value.list(values).json) }
            return .list(values)
        },

        Builtin(
            "wallet.discover",
            options: [
                OptionSpec(
                    "coin", .oneOf([.string, .int, .domain("coin")]),
                    "ETH (default) or ETC, or its coin type: m/44'/coin'/…"),
                OptionSpec("gap", .int, "unused addresses in a row that end an account (default 20)", in: 1...1000),
                OptionSpec("max-accounts", .int, "stop after this many accounts (default 20)", in: 1...1000),
                OptionSpec("key", .string, "discover under this stored HD key instead of the active signer"),
                OptionSpec(
                    "card", nil, "discover on the connected card (the default when the card is the active signer)",
                    rules: [.notWith(["key"], because: "it discovers on the card; drop --key")]),
                rpcOption,
                OptionSpec("explorer", .string, "an Etherscan-compatible API URL (its txlist) instead of a node"),
                OptionSpec(
                    "api-key", .string, "the explorer's API key",
                    rules: [.onlyWith("explorer", because: "it goes with --explorer URL")]),
                OptionSpec(
                    "used", .oneOf([.list, .string]),
                    "offline: the used addresses, as a list or a file with one per line"),
            ],
            summary:
                "BIP-44 account discovery with a gap limit: the used addresses of account 0, 1, … until an account has none; stored for `accounts` and `wallet.select`.",
            example: "wallet.discover --gap 20"
        ) { args in
            try discover(args)
        },

        Builtin(
            "wallet.select", params: [ParamSpec("address", .oneOf([.string, .bytes, .domain("address")]))],
            summary:
                "Makes a discovered address the active signer: on the card, derives to its path; for a software key, its HD-CHILD key (added if missing).",
            example: "wallet.select 0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
        ) { args in
            try select(args)
        },
    ]
}

extension Builtins {

    // MARK: - Discovery

    static func discover(_ args: CallArguments) throws -> Value {
        let session = try args.session()
        let gap = args.int("gap") ?? 20
        let maxAccounts = args.int("max-accounts") ?? 20
        let coin = try discoveryCoin(args.value("coin"))
        let history = try historySource(args, session)
        let records = try session.discoverAccounts(
            onCard: args.flag("card"), keyName: args.string("key"), coin: coin,
            history: history, gap: gap, maxAccounts: maxAccounts)
        return .list(
            records.map { r in
                .map(
                    ValueMap([
                        ("account", .int(Int(r.account))), ("index", .int(Int(r.index))),
                        ("path", .string(r.path.description)), ("address", .string(r.address)),
                    ]))
            })
    }

    static func discoveryCoin(_ value: Value?) throws -> SLIP44.Coin {
        let coin = try coinArgument(value) ?? SLIP44.coin(index: 60)
        guard CoinAddress.ethereumCoinTypes.contains(coin.index) else {
            throw BuiltinError.outOfRange(
                name: "--coin", expected: "ETH or ETC (discovery checks Ethereum addresses)",
                got: coin.description)
        }
        return coin
    }

    /// --used (offline list), --explorer, or the node (this command's --rpc or the session's).
    static func historySource(_ args: CallArguments, _ session: Session) throws -> any AddressHistory {
        let chosen = [args.value("used") != nil, args.value("explorer") != nil, args.value("rpc") != nil].filter { $0 }
            .count
        if chosen > 1 {
            throw BuiltinError.outOfRange(
                name: "the history source", expected: "one of --used, --explorer and --rpc",
                got: "\(chosen) of them")
        }
        switch args.value("used") {
        case .list(let items)?:
            return AddressListHistory(try items.map(addressArgument))
        case .string(let path)?:
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw BuiltinError.outOfRange(
                    name: "--used", expected: "a list of addresses or a readable file",
                    got: "\"\(path)\"")
            }
            var addresses: [EthereumAddress] = []
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let t = line.trimmingCharacters(in: .whitespaces)
                if t.isEmpty || t.hasPrefix("#") { continue }
                do { addresses.append(try EthereumAddress(t)) } catch {
                    throw BuiltinError.outOfRange(
                        name: "--used \(path):\(n + 1)", expected: "an address", got: "\"\(t)\"")
                }
            }
            return AddressListHistory(addresses)
        default: break
        }
        if let url = args.string("explorer") {
            return try ExplorerHistory(url: url, apiKey: args.string("api-key"), timeout: session.rpcTimeout)
        }
        guard let node = try optionalNode(args) else {
            throw RPCError.noNode(alternatives: "--used LIST or --explorer URL")
        }
        return NodeHistory(node: node)
    }

    // MARK: - Selecting a discovered address

    static func select(_ args: CallArguments) throws -> Value {
        let address = try addressArgument(args.value("address") ?? .null)
        guard let selected = try args.session().selectDiscovered(address) else {
            throw BuiltinError.outOfRange(
                name: "address", expected: "an address wallet.discover found (see accounts)",
                got: address.checksummed)
        }
        return .map(
            ValueMap([
                ("address", .string(address.checksummed)), ("path", .string(selected.path.description)),
                ("key", .string(selected.record.name)), ("signer", .string(selected.onCard ? "card" : "software")),
            ]))
    }
}
