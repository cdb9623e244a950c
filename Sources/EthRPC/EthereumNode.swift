import Foundation
import WalletCore
import WalletCrypto

/// The Ethereum JSON-RPC methods a signing user needs, typed: chain id, balance, nonce, fees,
/// gas estimate, sending a raw transaction and reading its receipt.
public struct EthereumNode: Sendable {
    public let client: JSONRPCClient

    public init(client: JSONRPCClient) { self.client = client }

    public init(url: String, timeout: TimeInterval = 10) throws(RPCError) {
        client = JSONRPCClient(url: try Endpoint.parse(url), timeout: timeout)
    }

    public var endpoint: String { client.endpoint }

    public func chainID() throws(RPCError) -> UInt256 {
        try Self.quantity(client.call("eth_chainId"), "eth_chainId")
    }

    public func blockNumber() throws(RPCError) -> UInt256 {
        try Self.quantity(client.call("eth_blockNumber"), "eth_blockNumber")
    }

    public func balance(of address: EthereumAddress, block: String = "latest") throws(RPCError) -> UInt256 {
        try Self.quantity(client.call("eth_getBalance", [address.checksummed, block]), "eth_getBalance")
    }

    /// Transactions sent from `address`: the next nonce when `block` is "pending".
    public func transactionCount(of address: EthereumAddress, block: String = "pending") throws(RPCError) -> UInt256 {
        try Self.quantity(
            client.call("eth_getTransactionCount", [address.checksummed, block]), "eth_getTransactionCount")
    }

    /// The code at `address` (`eth_getCode`): empty for an EOA, `0xef0100 ‖ delegate` for an
    /// account delegated under EIP-7702.
    public func code(of address: EthereumAddress, block: String = "latest") throws(RPCError) -> [UInt8] {
        let answer = try client.call("eth_getCode", [address.checksummed, block])
        guard let text = answer as? String, let bytes = try? Hex.decode(text) else {
            throw .badResponse(method: "eth_getCode", reason: "expected hex code, got \(JSONRPCClient.kind(answer))")
        }
        return bytes
    }

    public func gasPrice() throws(RPCError) -> UInt256 {
        try Self.quantity(client.call("eth_gasPrice"), "eth_gasPrice")
    }

    /// The node's tip suggestion, or nil when it does not offer eth_maxPriorityFeePerGas.
    public func maxPriorityFee() throws(RPCError) -> UInt256? {
        do {
            return try Self.quantity(client.call("eth_maxPriorityFeePerGas"), "eth_maxPriorityFeePerGas")
        } catch .node(_, let code, _) where code == -32601 {
            return nil
        }
    }

    /// The latest block's base fee, or nil before London.
    public func baseFee() throws(RPCError) -> UInt256? {
        let block = try client.call("eth_getBlockByNumber", ["latest", false])
        guard let fields = block as? [String: Any] else {
            throw .badResponse(
                method: "eth_getBlockByNumber", reason: "expected the latest block, got \(JSONRPCClient.kind(block))")
        }
        guard let fee = fields["baseFeePerGas"], !(fee is NSNull) else { return nil }
        return try Self.quantity(fee, "eth_getBlockByNumber baseFeePerGas")
    }

    /// What to bid: the base fee, a tip, and the fee cap wallets commonly use (2 × base fee + tip,
    /// which survives six full blocks of base-fee growth). Before London only the gas price.
    public func fees() throws(RPCError) -> FeeSuggestion {
        let gasPrice = try gasPrice()
        guard let base = try baseFee() else {
            return FeeSuggestion(baseFee: nil, maxPriorityFeePerGas: nil, maxFeePerGas: nil, gasPrice: gasPrice)
        }
        // Without eth_maxPriorityFeePerGas, the tip is what gasPrice says beyond the base fee.
        let tip =
            try maxPriorityFee()
            ?? (gasPrice > base ? gasPrice.subtractingReportingOverflow(base).0 : UInt256(1_000_000_000))
        var fees = FeeSuggestion(baseFee: base, maxPriorityFeePerGas: tip, maxFeePerGas: nil, gasPrice: gasPrice)
        fees.maxFeePerGas = try fees.maxFee(tip: tip)
        return fees
    }

    /// Gas for a call, from the node (`eth_estimateGas`); `call` holds JSON-RPC fields (hex
    /// text, and `accessList` as a list of `{address, storageKeys}`).
    public func estimateGas(_ call: [String: Any]) throws(RPCError) -> UInt256 {
        try Self.quantity(client.call("eth_estimateGas", [call]), "eth_estimateGas")
    }

    /// A read-only call (`eth_call`) of `data` to `to`: what the contract returns.
    public func call(to: EthereumAddress, data: [UInt8], block: String = "latest") throws(RPCError) -> [UInt8] {
        let answer = try client.call("eth_call", [["to": to.checksummed, "data": Hex.encodePrefixed(data)], block])
        guard let text = answer as? String, let bytes = try? Hex.decode(text) else {
            throw .badResponse(method: "eth_call", reason: "expected hex data, got \(JSONRPCClient.kind(answer))")
        }
        return bytes
    }

    /// Sends a signed transaction once (never retried) and returns the hash the node gives.
    public func sendRawTransaction(_ raw: [UInt8]) throws(RPCError) -> [UInt8] {
        let answer = try client.call("eth_sendRawTransaction", [Hex.encodePrefixed(raw)], retries: 0)
        return try Self.data(answer, "eth_sendRawTransaction", length: 32)
    }

    /// The receipt, or nil while the transaction is not mined (or unknown).
    public func receipt(_ hash: [UInt8]) throws(RPCError) -> TransactionReceipt? {
        let m = "eth_getTransactionReceipt"
        let answer = try client.call(m, [Hex.encodePrefixed(hash)])
        if answer is NSNull { return nil }
        guard let f = answer as? [String: Any] else {
            throw .badResponse(
                method: m, reason: "expected a receipt object or null, got \(JSONRPCClient.kind(answer))")
        }
        func q(_ key: String) throws(RPCError) -> UInt256? {
            guard let v = f[key], !(v is NSNull) else { return nil }
            return try Self.quantity(v, "\(m) \(key)")
        }
        func address(_ key: String) throws(RPCError) -> EthereumAddress? {
            guard let v = f[key], !(v is NSNull) else { return nil }
            guard let text = v as? String, let a = try? EthereumAddress(text) else {
                throw .badResponse(method: m, reason: "\(key) is not an address")
            }
            return a
        }
        guard let block = try q("blockNumber"), let gasUsed = try q("gasUsed") else {
            throw .badResponse(method: m, reason: "the receipt has no blockNumber or gasUsed")
        }
        return TransactionReceipt(
            transactionHash: hash, blockNumber: block, status: try q("status").map { !$0.isZero },
            gasUsed: gasUsed, effectiveGasPrice: try q("effectiveGasPrice"), from: try address("from"),
            to: try address("to"), contractAddress: try address("contractAddress"),
            type: try q("type")?.uint64.map(Int.init) ?? 0, logCount: (f["logs"] as? [Any])?.count ?? 0)
    }

    // MARK: Decoding

    static func quantity(_ value: Any, _ what: String) throws(RPCError) -> UInt256 {
        guard let text = value as? String, text.hasPrefix("0x") || text.hasPrefix("0X") else {
            throw .badResponse(method: what, reason: "expected a hex quantity, got \(JSONRPCClient.kind(value))")
        }
        do { return try EthereumUnits.parse(text) } catch {
            throw .badResponse(method: what, reason: "expected a hex quantity, got \"\(text.prefix(80))\"")
        }
    }

    static func data(_ value: Any, _ what: String, length: Int) throws(RPCError) -> [UInt8] {
        guard let text = value as? String, let bytes = try? Hex.decode(text), bytes.count == length else {
            throw .badResponse(
                method: what, reason: "expected \(length) bytes of hex, got \(JSONRPCClient.kind(value))")
        }
        return bytes
    }
}

/// A fee bid the node suggests.
public struct FeeSuggestion: Sendable, Equatable {
    /// The latest block's base fee; nil before London (then only `gasPrice` applies).
    public let baseFee: UInt256?
    public let maxPriorityFeePerGas: UInt256?
    public internal(set) var maxFeePerGas: UInt256?
    public let gasPrice: UInt256

    /// The fee cap for `tip`: 2 × base fee + tip (what wallets commonly bid; it survives six
    /// full blocks of base-fee growth), or, before London, the larger of gas price and tip.
    public func maxFee(tip: UInt256) throws(RPCError) -> UInt256 {
        guard let base = baseFee else { return max(gasPrice, tip) }
        let doubled = base.addingReportingOverflow(base)
        let cap = doubled.0.addingReportingOverflow(tip)
        guard !doubled.1, !cap.1 else {
            throw .badResponse(method: "eth_getBlockByNumber", reason: "the base fee \(base) is too large to double")
        }
        return cap.0
    }
}

/// The parts of a receipt kcs shows.
public struct TransactionReceipt: Sendable, Equatable {
    public let transactionHash: [UInt8]
    public let blockNumber: UInt256
    /// true for success, false for a revert; nil for a pre-Byzantium receipt.
    public let status: Bool?
    public let gasUsed: UInt256
    public let effectiveGasPrice: UInt256?
    public let from: EthereumAddress?
    public let to: EthereumAddress?
    public let contractAddress: EthereumAddress?
    public let type: Int
    public let logCount: Int
}
