import Foundation
import KCSErrors
import WalletCore
import WalletCrypto

// What a client of the local signer may ask, and how each call's parameters are read
// (docs/signer.md, "Methods"): answered by kcs, signed after review, forwarded to the node, or
// refused — signing, account and administrative methods are never forwarded, because a
// development node holds unlocked accounts that would sign whatever reached them.

/// A JSON-RPC error as the endpoint answers it (EIP-1193 and EIP-1474 codes).
public struct SignerRPCError: WalletError, Sendable, Equatable {
    public var id: String { "signer.rpc" }
    public var description: String { "\(message) (JSON-RPC error \(code))" }
    public let code: Int
    public let message: String
    /// A transaction hash a lost send may have reached the node with.
    public var hash: String?

    public init(_ code: Int, _ message: String, hash: String? = nil) {
        self.code = code
        self.message = message
        self.hash = hash
    }

    static func invalid(_ message: String) -> SignerRPCError { SignerRPCError(-32602, message) }
    static func denied(_ message: String) -> SignerRPCError { SignerRPCError(4001, "User denied " + message) }
    static let notAuthorized = SignerRPCError(4100, "the requested account has not been authorized")
}

/// Where a method goes.
public enum SignerRoute: Sendable, Equatable {
    /// kcs answers at once (accounts, chain, versions).
    case answered
    /// Shown and approved (or refused) at the console, one at a time.
    case signing
    /// To the node, as sent.
    case forwarded
    /// 4200: kcs does not do it (and says why).
    case unsupported(String)
    /// -32601: never answered, never forwarded.
    case refused

    public static let answeredMethods: Set<String> = [
        "eth_accounts", "eth_requestAccounts", "eth_coinbase", "eth_chainId", "web3_clientVersion",
        "wallet_switchEthereumChain", "wallet_getPermissions", "wallet_requestPermissions", "account_version",
        "account_list",
    ]
    public static let signingMethods: Set<String> = [
        "eth_sendTransaction", "eth_signTransaction", "personal_sign", "eth_signTypedData_v4", "eth_signTypedData",
        "account_signTransaction", "account_signData", "account_signTypedData",
    ]
    static let unsupported: [String: String] = [
        "eth_sign": "eth_sign is not supported (it signs a bare hash); use personal_sign",
        "eth_signTypedData_v1": "eth_signTypedData_v1 is not supported; use eth_signTypedData_v4",
        "eth_signTypedData_v3": "eth_signTypedData_v3 is not supported; use eth_signTypedData_v4",
        "wallet_addEthereumChain": "kcs signs for the chain of the node it was started with; a caller cannot add one",
        "eth_subscribe": "subscriptions are not served; poll over HTTP",
        "eth_unsubscribe": "subscriptions are not served; poll over HTTP",
        "eth_sendTransactionSync": "eth_sendTransactionSync is not supported; use eth_sendTransaction",
    ]
    /// Namespaces a development node answers with its own accounts or administration.
    static let refusedPrefixes = [
        "admin_", "debug_", "miner_", "engine_", "txpool_", "clique_", "les_", "personal_", "account_", "eth_sign",
        "wallet_",
    ]

    public static func of(_ method: String) -> SignerRoute {
        if answeredMethods.contains(method) { return .answered }
        if signingMethods.contains(method) { return .signing }
        if let why = unsupported[method] { return .unsupported(why) }
        if refusedPrefixes.contains(where: method.hasPrefix) { return .refused }
        if method.hasPrefix("eth_") || method.hasPrefix("net_") || method.hasPrefix("web3_") { return .forwarded }
        return .refused
    }
}

/// A signing call, its parameters read and checked (nothing fetched from the node yet).
public enum SignerCall: Sendable {
    /// `sends`: eth_sendTransaction; `fills`: missing fields come from the node (not for
    /// account_signTransaction, whose caller sends a complete transaction); `given`: the
    /// transaction fields the caller wrote.
    case transaction(EthereumTransaction, given: Set<String>, sends: Bool, fills: Bool)
    /// `swapped`: the caller put the address first.
    case message([UInt8], swapped: Bool)
    case typed(TypedData, json: [UInt8])
    /// A browser origin asks to see the accounts.
    case connect(origin: String)
}

enum SignerCallReader {
    static let maximumMessage = 64 << 10

    /// Reads `method`'s `params` for `account` on the pinned chain.
    static func read(
        _ method: String, _ params: [Any], account: EthereumAddress, chainID: UInt64
    ) throws(SignerRPCError) -> SignerCall {
        switch method {
        case "eth_sendTransaction", "eth_signTransaction", "account_signTransaction":
            guard let fields = params.first as? [String: Any] else {
                throw .invalid("expected [transaction object], got \(describe(params.first))")
            }
            return try transaction(
                fields, account: account, chainID: chainID, sends: method == "eth_sendTransaction",
                fills: method != "account_signTransaction")
        case "personal_sign":
            guard params.count >= 2, let first = params[0] as? String, let second = params[1] as? String else {
                throw .invalid("expected [data, address], two strings")
            }
            // A clearly reversed pair (an address we expose first, data second) is swapped, as
            // MetaMask and Frame do, and said.
            let swapped = (try? EthereumAddress(first)) == account && (try? EthereumAddress(second)) == nil
            let (data, address) = swapped ? (second, first) : (first, second)
            try expose(address, account)
            return .message(try messageBytes(data), swapped: swapped)
        case "account_signData":
            guard params.count == 3, let type = params[0] as? String, let address = params[1] as? String else {
                throw .invalid("expected [contentType, address, data]")
            }
            try expose(address, account)
            switch type {
            case "text/plain":
                guard let data = params[2] as? String else { throw .invalid("expected data as a hex string") }
                return .message(try messageBytes(data), swapped: false)
            case "data/typed":
                return try typed(params[2], chainID: chainID)
            default:
                throw SignerRPCError(4200, "content type \(type) is not signed by kcs (text/plain and data/typed are)")
            }
        case "eth_signTypedData_v4", "eth_signTypedData", "account_signTypedData":
            guard params.count >= 2, let address = params[0] as? String else {
                throw .invalid("expected [address, typed data]")
            }
            if params[1] is [Any] {
                throw SignerRPCError(
                    4200, "typed data as a list (eth_signTypedData_v1) is not supported; send the v4 object")
            }
            try expose(address, account)
            return try typed(params[1], chainID: chainID)
        default:
            throw SignerRPCError(-32601, "the method \(method) does not exist or is not available")
        }
    }

    static func expose(_ text: String, _ account: EthereumAddress) throws(SignerRPCError) {
        guard let address = try? EthereumAddress(text) else {
            throw .invalid("expected an address, got \(String(text.prefix(60)))")
        }
        guard address == account else { throw .notAuthorized }
    }

    static func messageBytes(_ data: String) throws(SignerRPCError) -> [UInt8] {
        let bytes: [UInt8]
        if data.hasPrefix("0x") {
            guard let decoded = try? Hex.decode(data) else {
                throw .invalid("the message is 0x but not even-length hex")
            }
            bytes = decoded
        } else {
            bytes = Array(data.utf8)
        }
        guard bytes.count <= maximumMessage else {
            throw .invalid("the message is \(bytes.count) bytes; at most \(maximumMessage) are signed")
        }
        return bytes
    }

    static func typed(_ any: Any, chainID: UInt64) throws(SignerRPCError) -> SignerCall {
        // ethers sends a JSON string, web3.py an object (kept as JSON text: the payload the
        // review and the history read).
        func read(_ body: () throws(EthereumError) -> TypedData) throws(SignerRPCError) -> TypedData {
            do { return try body() } catch { throw .invalid("typed data: \(error.description)") }
        }
        let json: [UInt8]
        let data: TypedData
        if let text = any as? String {
            json = Array(text.utf8)
            data = try read { () throws(EthereumError) in try TypedData(json: json) }
        } else if let object = any as? [String: Any],
            let encoded = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        {
            json = Array(encoded)
            data = try read { () throws(EthereumError) in try TypedData(jsonObject: object) }
        } else {
            throw .invalid("expected typed data as an object or a JSON string")
        }
        if let given = data.domain["chainId"] {
            guard SignerRules.integer(given) == chainID else {
                throw .invalid("domain.chainId \(given) is not the chain kcs signs for (\(chainID))")
            }
        }
        return .typed(data, json: json)
    }

    static let blobFields = ["blobVersionedHashes", "maxFeePerBlobGas", "blobs", "commitments", "proofs", "sidecar"]

    static func transaction(
        _ raw: [String: Any], account: EthereumAddress, chainID: UInt64, sends: Bool, fills: Bool
    ) throws(SignerRPCError) -> SignerCall {
        guard let from = raw["from"] as? String else { throw .invalid("the transaction has no from") }
        try expose(from, account)
        var fields = raw
        fields["from"] = nil
        if fields["authorizationList"] != nil || blobFields.contains(where: { fields[$0] != nil }) {
            throw SignerRPCError(
                4200, "blob and EIP-7702 transactions are not signed through the endpoint (sign them at the console)")
        }
        if let type = fields["type"] as? String, ["0x3", "0x4", "0x03", "0x04"].contains(type.lowercased()) {
            throw SignerRPCError(4200, "transaction type \(type) is not signed through the endpoint")
        }
        if let data = fields["data"] as? String, let input = fields["input"] as? String {
            guard data.lowercased() == input.lowercased() else {
                throw .invalid("data and input are both given and differ")
            }
            fields["data"] = nil
        }
        for (key, value) in fields where key != "to" && key != "data" && key != "input" && key != "accessList" {
            guard let text = value as? String, text.hasPrefix("0x"), text.count > 2,
                text.dropFirst(2).allSatisfy(\.isHexDigit)
            else { throw .invalid("\(key) must be a 0x hex quantity, got \(describe(value))") }
        }
        let tx: EthereumTransaction
        do { tx = try EthereumTransaction(fields: fields) } catch { throw .invalid(error.description) }
        if let given = tx.chainID, given != UInt256(chainID) {
            throw .invalid("chainId \(given) is not the chain kcs signs for (\(chainID))")
        }
        var given = Set(fields.keys)
        if given.contains("input") { given.insert("data") }
        if !fills {
            for needed in ["nonce", "gas"] where !given.contains(needed) {
                throw .invalid("\(needed) is missing (account_signTransaction signs a complete transaction)")
            }
            if !given.contains("gasPrice") && !given.contains("maxFeePerGas") {
                throw .invalid("the fees are missing (account_signTransaction signs a complete transaction)")
            }
        }
        return .transaction(tx, given: given, sends: sends, fills: fills)
    }

    static func describe(_ any: Any?) -> String {
        switch any {
        case nil: "nothing"
        case let s as String: JSONString.quoted(s.count > 60 ? String(s.prefix(59)) + "…" : s)
        case is NSNumber: "a number"
        case is [Any]: "a list"
        case is [String: Any]: "an object"
        default: "null"
        }
    }
}
