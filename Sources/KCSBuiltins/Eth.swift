import BigInt
import EthRPC
import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `eth` namespace: an Ethereum node (docs/eth-node.md) — `--rpc URL`, KCS_RPC_URL or
// `eth.node URL`. Reads may be retried after a transient failure; `eth.send` posts exactly once.

extension Builtins {
    static let eth: [Builtin] = [
        Builtin(
            "eth.node", params: [ParamSpec("url", .string, default: .null)],
            options: [
                OptionSpec("timeout", .int, "seconds to wait for each answer (default 10)"),
                OptionSpec(
                    "clear", nil, "forget the node for this session",
                    rules: [
                        .notWith(["url"], because: "it takes no URL"),
                        .notWith(["timeout"], because: "it forgets the node; drop --timeout"),
                    ]),
            ],
            summary:
                "Shows the node in use ({url, chainId, block}), or with URL checks it answers and uses it for the rest of the session.",
            example: "eth.node \"http://127.0.0.1:8545\""
        ) { args in
            let session = try args.session()
            if args.flag("clear") {
                session.setNode(url: nil)
                return .null
            }
            var timeout: TimeInterval? = nil
            if let t = args.integer("timeout") {
                guard t >= 1, t <= 600 else {
                    throw BuiltinError.outOfRange(name: "--timeout", expected: "seconds from 1 to 600", got: "\(t)")
                }
                timeout = TimeInterval(Int(t))
            }
            // With URL, the new node; without, the one in use (with --timeout, now waited for that long).
            // A node that does not answer is not taken: the previous one and its time-out stay.
            guard let url = args.string("url") ?? session.rpcURL else { throw RPCError.noNode() }
            let info = try nodeInfo(try EthereumNode(url: url, timeout: timeout ?? session.rpcTimeout))
            session.setNode(url: url, timeout: timeout)
            return info
        },

        Builtin(
            "eth.chain-id", aliases: ["eth.chainId"], options: [rpcOption],
            summary: "The node's chain id (eth_chainId).", example: "eth.chain-id"
        ) { args in
            uintValue(try node(args).chainID())
        },

        Builtin(
            "eth.balance",
            params: [ParamSpec("address", .oneOf([.string, .bytes, .domain("address")]), default: .null)],
            options: [
                rpcOption, OptionSpec("block", .string, "latest (default), pending, earliest or a block number"),
            ],
            summary: "An address's balance (default: the active key's): {address, wei, ether, block}.",
            example: "eth.balance 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
        ) { args in
            let address = try addressOrActive(args)
            let block = try blockArgument(args, default: "latest")
            let wei = try node(args).balance(of: address, block: block)
            return .map(
                ValueMap([
                    ("address", .string(address.checksummed)), ("wei", uintValue(wei)),
                    ("ether", .string(EthereumUnits.format(wei, unit: "ether"))), ("block", .string(block)),
                ]))
        },

        Builtin(
            "eth.nonce", params: [ParamSpec("address", .oneOf([.string, .bytes, .domain("address")]), default: .null)],
            options: [
                rpcOption, OptionSpec("block", .string, "pending (default: the next nonce), latest, or a block number"),
            ],
            summary: "The transaction count of an address (default: the active key's), i.e. its next nonce.",
            example: "eth.nonce 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
        ) { args in
            let address = try addressOrActive(args)
            return uintValue(
                try node(args).transactionCount(of: address, block: try blockArgument(args, default: "pending")))
        },

        Builtin(
            "eth.gas-price", aliases: ["eth.gasPrice"], options: [rpcOption],
            summary: "The node's legacy gas price in wei (eth_gasPrice).", example: "eth.gas-price"
        ) { args in
            uintValue(try node(args).gasPrice())
        },

        Builtin(
            "eth.fees", options: [rpcOption],
            summary:
                "What to bid, in wei: {baseFee, maxPriorityFeePerGas, maxFeePerGas (2 × base fee + tip), gasPrice}.",
            example: "eth.fees"
        ) { args in
            let fees = try node(args).fees()
            return .map(
                ValueMap([
                    ("baseFee", fees.baseFee.map(uintValue) ?? .null),
                    ("maxPriorityFeePerGas", fees.maxPriorityFeePerGas.map(uintValue) ?? .null),
                    ("maxFeePerGas", fees.maxFeePerGas.map(uintValue) ?? .null),
                    ("gasPrice", uintValue(fees.gasPrice)),
                ]))
        },

        Builtin(
            "eth.send", params: [ParamSpec("raw", .oneOf([.bytes, .string, .map]))],
            options: [
                rpcOption, OptionSpec("wait", nil, "wait for the receipt (polling, up to the node time-out × 3)"),
            ],
            summary:
                "Sends a signed raw transaction (0x…, or what sign tx returned) once: {hash, sender, nonce, type}; never retried.",
            example:
                "eth.send (sign tx {\"to\": \"0x3535353535353535353535353535353535353535\", \"value\": \"0.1 ether\"})"
        ) { args in
            let raw: [UInt8]
            switch args.value("raw") {
            case .bytes(let b)?: raw = b
            case .string(let s)?: raw = try Hex.decode(s)
            case .map(let m)?:
                guard case .bytes(let b)? = m["raw"] else {
                    throw BuiltinError.outOfRange(
                        name: "raw", expected: "signed transaction bytes or a map with raw",
                        got: "a map without raw")
                }
                raw = b
            default: raw = []
            }
            let sent = try args.session().send(raw, to: try node(args), wait: args.flag("wait"))
            let tx = sent.transaction.transaction
            var out: [(String, Value)] = [
                ("hash", .bytes(sent.hash)), ("sender", .string(sent.sender.checksummed)),
                ("nonce", uintValue(tx.nonce)), ("type", .string(tx.type.description)),
            ]
            if let receipt = sent.receipt { out.append(("receipt", receiptValue(receipt, hash: sent.hash))) }
            return .map(ValueMap(out))
        },

        Builtin(
            "eth.receipt", params: [ParamSpec("hash", .oneOf([.bytes, .string]))],
            options: [rpcOption],
            summary:
                "A transaction's receipt: {hash, mined, status, block, from, to, gasUsed, effectiveGasPrice, contractAddress, logs}.",
            example: "eth.receipt $sent.hash"
        ) { args in
            let hash: [UInt8]
            switch args.value("hash") {
            case .bytes(let b)?: hash = b
            case .string(let s)?: hash = try Hex.decode(s)
            default: hash = []
            }
            guard hash.count == 32 else {
                throw BuiltinError.outOfRange(
                    name: "hash", expected: "a 32-byte transaction hash",
                    got: "\(hash.count) bytes")
            }
            return receiptValue(try node(args).receipt(hash), hash: hash)
        },
    ]
}

extension Builtins {
    static let rpcOption = OptionSpec(
        "rpc", .string, "the node's JSON-RPC URL for this command (else eth.node, --rpc, KCS_RPC_URL)")

    // MARK: - Helpers

    /// The node for this command: its --rpc option, else the session's.
    static func node(_ args: CallArguments) throws -> EthereumNode {
        let session = try args.session()
        if let url = args.string("rpc") { return try EthereumNode(url: url, timeout: session.rpcTimeout) }
        return try session.node()
    }

    /// The node if one is configured (this command's --rpc or the session's), else nil.
    static func optionalNode(_ args: CallArguments) throws -> EthereumNode? {
        let session = try args.session()
        if args.string("rpc") != nil || session.hasNode { return try node(args) }
        return nil
    }

    static func nodeInfo(_ node: EthereumNode) throws -> Value {
        let chain = try node.chainID()
        let block = try node.blockNumber()
        return .map(
            ValueMap([("url", .string(node.endpoint)), ("chainId", uintValue(chain)), ("block", uintValue(block))]))
    }

    /// The address argument, or the active key's address when it is omitted: for a card key
    /// the card's current key (its stored address is the master's), else the stored address.
    static func addressOrActive(_ args: CallArguments) throws -> EthereumAddress {
        if let value = args.value("address") { return try addressArgument(value) }
        let session = try args.session()
        guard let name = session.activeKey else { throw KeyCommandError.noActiveKey }
        let record = try session.store().key(named: name)
        if record.kind == .card { return try ChosenSigner(args).address() }
        if let text = record.address, let a = try? EthereumAddress(text) { return a }
        if let p = record.publicKey, let key = try? PublicKey(bytes: p) { return EthereumAddress(publicKey: key) }
        throw BuiltinError.outOfRange(
            name: "address", expected: "an address (the active key \(name) has none)",
            got: "nothing")
    }

    static func blockArgument(_ args: CallArguments, default d: String) throws -> String {
        guard let text = args.string("block") else { return d }
        if ["latest", "pending", "earliest", "safe", "finalized"].contains(text) { return text }
        if let n = UInt64(text) { return "0x" + String(n, radix: 16) }
        if text.hasPrefix("0x"), UInt64(text.dropFirst(2), radix: 16) != nil { return text }
        throw BuiltinError.outOfRange(
            name: "--block", expected: "latest, pending, earliest, safe, finalized or a block number",
            got: "\"\(text)\"")
    }

    static func receiptValue(_ receipt: TransactionReceipt?, hash: [UInt8]) -> Value {
        guard let r = receipt else { return .map(ValueMap([("hash", .bytes(hash)), ("mined", .bool(false))])) }
        return .map(
            ValueMap([
                ("hash", .bytes(hash)), ("mined", .bool(true)),
                ("status", .string(r.status.map { $0 ? "success" : "reverted" } ?? "unknown")),
                ("block", uintValue(r.blockNumber)), ("from", r.from.map { .string($0.checksummed) } ?? .null),
                ("to", r.to.map { .string($0.checksummed) } ?? .null), ("gasUsed", uintValue(r.gasUsed)),
                ("effectiveGasPrice", r.effectiveGasPrice.map(uintValue) ?? .null),
                ("contractAddress", r.contractAddress.map { .string($0.checksummed) } ?? .null),
                ("type", .int(r.type)), ("logs", .int(r.logCount)),
            ]))
    }
}
