import CardProtocol
import EthRPC
import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// Account discovery (issue 8 §1, the Keycard app's Wallet screen): BIP-44 accounts of a
// software HD key or of the card, scanned with a gap limit against a node, an explorer or an
// offline list of used addresses. The card exports each account's extended public key once;
// every address is derived on the host. Results are stored; `accounts` lists them and
// `wallet.select ADDRESS` makes one the active signer.

extension Builtins {
    static let discovery: [Builtin] = [
        Builtin("wallet.discover",
                options: [
                    OptionSpec("coin", .oneOf([.string, .int, .domain("coin")]), "ETH (default) or ETC, or its coin type: m/44'/coin'/…"),
                    OptionSpec("gap", .int, "unused addresses in a row that end an account (default 20)"),
                    OptionSpec("max-accounts", .int, "stop after this many accounts (default 20)"),
                    OptionSpec("key", .string, "discover under this stored HD key instead of the active signer"),
                    OptionSpec("card", nil, "discover on the connected card (the default when the card is the active signer)"),
                    rpcOption,
                    OptionSpec("explorer", .string, "an Etherscan-compatible API URL (its txlist) instead of a node"),
                    OptionSpec("api-key", .string, "the explorer's API key"),
                    OptionSpec("used", .oneOf([.list, .string]), "offline: the used addresses, as a list or a file with one per line"),
                ],
                summary: "BIP-44 account discovery with a gap limit: the used addresses of account 0, 1, … until an account has none; stored for `accounts` and `wallet.select`.",
                example: "wallet.discover --gap 20") { args in
            try discover(args)
        },

        Builtin("accounts", options: [OptionSpec("json", nil, "JSON text instead of a table")],
                summary: "The addresses discovery found, by owner (key or card), coin, account and index.",
                example: "accounts") { args in
            let c = args.command
            let rows = try args.session(c).store(for: c).discoveredAddresses()
            let values: [Value] = rows.enumerated().map { n, r in
                .map(ValueMap([
                    ("#", .int(n + 1)), ("owner", .string(r.ownerName)), ("coin", .int(Int(r.coinType))),
                    ("account", .int(Int(r.account))), ("index", .int(Int(r.index))), ("path", .string(r.path.description)),
                    ("address", .string(r.address)),
                ]))
            }
            if args.flag("json") { return .string(Value.list(values).json) }
            return .list(values)
        },

        Builtin("wallet.select", params: [ParamSpec("address", .oneOf([.string, .bytes, .domain("address")]))],
                summary: "Makes a discovered address the active signer: on the card, derives to its path; for a software key, its HD-CHILD key (added if missing).",
                example: "wallet.select 0x9858EfFD232B4033E47d90003D41EC34EcaEda94") { args in
            try select(args)
        },
    ]

    // MARK: - Discovery

    static func discover(_ args: CallArguments) throws -> Value {
        let c = args.command
        let session = try args.session(c)
        let gap = try args.integer("gap").map { try smallInt($0, c, "--gap", in: 1...1000) } ?? 20
        let maxAccounts = try args.integer("max-accounts").map { try smallInt($0, c, "--max-accounts", in: 1...1000) } ?? 20
        let coin = try discoveryCoin(args.value("coin"), c)
        let history = try historySource(args, session, c)

        // Whose accounts: the card (asked, or the active signer), else a software HD key.
        let activeRecord = try session.activeKey.flatMap { try session.existingStore()?.findKey(named: $0) }
        let useCard = args.flag("card") || (args.string("key") == nil && activeRecord?.kind == .card)
        if useCard && args.string("key") != nil {
            throw BuiltinError.optionNotApplicable(command: c, option: "card", reason: "it discovers on the card; drop --key")
        }
        let owner: DiscoveryOwner
        let ownerName: String
        let externalChain: (UInt32) throws -> ExtendedKey
        if useCard {
            let card = try session.requireLoggedIn(c)
            owner = .card(instanceUID: card.instanceUID)
            ownerName = try session.cardKeys(of: card, command: c).last?.name ?? "card-" + card.shortUID
            externalChain = { a in
                // One EXPORT KEY (extended public) per account, without moving the current path.
                let path = try CardKeyPath(source: .master, components: DerivationPath.bip44Account(coin: coin.index, account: a).components)
                return try card.commands.exportKey(.derive(path), kind: .extendedPublicKey).extendedPublicKey(depth: 3)
                    .derive(ChildIndex(0, hardened: false))
            }
        } else {
            guard let name = args.string("key") ?? session.activeKey else { throw KeyCommandError.noActiveKey(command: c) }
            let record = try activeRecord.flatMap { $0.name == name ? $0 : nil } ?? session.store(for: c).key(named: name)
            guard record.storage == .software, record.kind == .hdMaster || record.kind == .hdChild else {
                throw KeyCommandError.cannotSign(command: c, name: record.name, kind: record.kind.rawValue)
            }
            let found = try session.unlockedStore(for: c).read { tx in try Session.masterSeed(of: record, tx) }
            guard let (master, seed) = found else {
                throw KeyCommandError.cannotSign(command: c, name: record.name, kind: record.kind.rawValue)
            }
            let root = try ExtendedKey.master(seed: seed)
            owner = .key(id: master.id)
            ownerName = master.name
            externalChain = { a in
                try root.derive(DerivationPath.bip44Account(coin: coin.index, account: a).appending(ChildIndex(0)))
            }
        }

        let host = session.prompts
        var last: DiscoveryProgress?
        let found = try AccountDiscovery.run(externalChain: externalChain, history: history, gap: gap, maxAccounts: maxAccounts) { p in
            last = p
            host?.progress(progressBar(p))
        }
        host?.progress(nil)
        let rows = found.flatMap(\.used).map { u in
            DiscoveredAddress(coinType: coin.index, account: u.account, change: 0, index: u.index,
                              address: u.address.checksummed, publicKey: u.publicKey.compressed)
        }
        let records = try session.store(for: c).saveDiscovery(owner: owner, ownerName: ownerName, coinType: coin.index, addresses: rows)
        host?.status("checked \(last?.checked ?? 0) addresses: \(records.count) used in \(found.count) account\(found.count == 1 ? "" : "s")")
        return .list(records.map { r in
            .map(ValueMap([("account", .int(Int(r.account))), ("index", .int(Int(r.index))),
                           ("path", .string(r.path.description)), ("address", .string(r.address))]))
        })
    }

    /// A one-line bar: how far the current account's scan is (it stops `gap` addresses after
    /// the last used one), then the totals.
    static func progressBar(_ p: DiscoveryProgress) -> String {
        let width = 20
        let filled = p.accountLimit > 0 ? min(width, p.accountChecked * width / p.accountLimit) : width
        return "discovering [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            + "] account \(p.account), \(p.checked) address\(p.checked == 1 ? "" : "es") checked, "
            + "\(p.used) used in \(p.accounts) account\(p.accounts == 1 ? "" : "s")"
    }

    static func discoveryCoin(_ value: Value?, _ c: String) throws -> SLIP44.Coin {
        let coin = try coinArgument(value, c) ?? SLIP44.coin(index: 60)
        guard CoinAddress.ethereumCoinTypes.contains(coin.index) else {
            throw BuiltinError.outOfRange(command: c, name: "--coin", expected: "ETH or ETC (discovery checks Ethereum addresses)",
                                          got: coin.description)
        }
        return coin
    }

    /// --used (offline list), --explorer, or the node (this command's --rpc or the session's).
    static func historySource(_ args: CallArguments, _ session: Session, _ c: String) throws -> any AddressHistory {
        let chosen = [args.value("used") != nil, args.value("explorer") != nil, args.value("rpc") != nil].filter { $0 }.count
        if chosen > 1 {
            throw BuiltinError.outOfRange(command: c, name: "the history source", expected: "one of --used, --explorer and --rpc",
                                          got: "\(chosen) of them")
        }
        if args.value("api-key") != nil && args.value("explorer") == nil {
            throw BuiltinError.optionNotApplicable(command: c, option: "api-key", reason: "it goes with --explorer URL")
        }
        switch args.value("used") {
        case .list(let items)?:
            return AddressListHistory(try items.map(addressArgument))
        case .string(let path)?:
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw BuiltinError.outOfRange(command: c, name: "--used", expected: "a list of addresses or a readable file",
                                              got: "\"\(path)\"")
            }
            var addresses: [EthereumAddress] = []
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let t = line.trimmingCharacters(in: .whitespaces)
                if t.isEmpty || t.hasPrefix("#") { continue }
                do { addresses.append(try EthereumAddress(t)) } catch {
                    throw BuiltinError.outOfRange(command: c, name: "--used \(path):\(n + 1)", expected: "an address", got: "\"\(t)\"")
                }
            }
            return AddressListHistory(addresses)
        default: break
        }
        if let url = args.string("explorer") {
            return try ExplorerHistory(url: url, apiKey: args.string("api-key"), timeout: session.rpcTimeout)
        }
        guard let node = try optionalNode(args, c) else {
            throw RPCError.noNode(command: c, alternatives: "--used LIST or --explorer URL")
        }
        return NodeHistory(node: node)
    }

    // MARK: - Selecting a discovered address

    static func select(_ args: CallArguments) throws -> Value {
        let c = args.command
        let session = try args.session(c)
        let address = try addressArgument(args.value("address") ?? .null)
        let store = try session.store(for: c)
        var rows = try store.discovered(address: address.checksummed)
        guard !rows.isEmpty else {
            throw BuiltinError.outOfRange(command: c, name: "address", expected: "an address wallet.discover found (see accounts)",
                                          got: address.checksummed)
        }
        // Found under several owners (the same mnemonic on the card and in software): prefer
        // the connected card, then the first.
        if rows.count > 1, let card = session.card, let onCard = rows.first(where: { $0.owner == .card(instanceUID: card.instanceUID) }) {
            rows = [onCard]
        }
        let row = rows[0]
        switch row.owner {
        case .card(let uid):
            let card = try session.requireLoggedIn(c)
            guard card.instanceUID == uid else {
                throw CardKeyError.otherCard(command: c, name: row.ownerName, keyCard: String(uid.prefix(8)), connected: card.shortUID)
            }
            let key = try card.deriveToCurrent(row.path.components, from: card.commands.getKeyPath().components, command: c).publicKey
            guard EthereumAddress(publicKey: key) == address else {
                throw CardError.malformedResponse(command: .exportKey, detail: "the card's key at \(row.path) is not \(address.checksummed)")
            }
            let record = try session.recordCardKey(of: card, keyUID: nil, source: .card, name: nil, command: c).record
            session.activeKey = record.name
            return .map(ValueMap([("address", .string(address.checksummed)), ("path", .string(row.path.description)),
                                  ("key", .string(record.name)), ("signer", .string("card"))]))
        case .key(let id):
            let record: KeyRecord = try store.write { tx in
                let master = try tx.key(id: id)
                if let existing = try tx.children(ofKeyNamed: master.name).first(where: { !$0.retired && $0.path == row.path }) {
                    return existing
                }
                return try tx.addKey(NewKey(kind: .hdChild, source: .mnemonic, storage: .software,
                                            publicKey: try PublicKey(bytes: row.publicKey), address: row.address,
                                            path: row.path, parentID: master.id, preset: "bip44"))
            }
            session.activeKey = record.name
            return .map(ValueMap([("address", .string(address.checksummed)), ("path", .string(row.path.description)),
                                  ("key", .string(record.name)), ("signer", .string("software"))]))
        }
    }
}
