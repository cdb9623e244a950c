// Ethereum transactions: legacy (with EIP-155 replay protection, or pre-EIP-155 v = 27/28),
// EIP-2930 (type 0x01, access list), EIP-1559 (type 0x02, fee caps), EIP-4844 (type 0x03, blob
// versioned hashes; signed without the sidecar) and EIP-7702 (type 0x04, an authorization list).
// Sources: ethereum/EIPs EIPS/eip-155.md, eip-2718.md, eip-2930.md, eip-1559.md, eip-4844.md,
// eip-7702.md; docs/eth-signing.md. Payloads:
//   legacy      rlp([nonce, gasPrice, gas, to, value, data])                       (v = 27/28)
//   EIP-155     rlp([nonce, gasPrice, gas, to, value, data, chainId, 0, 0])        (v = chainId·2 + 35/36)
//   EIP-2930    0x01 ‖ rlp([chainId, nonce, gasPrice, gas, to, value, data, accessList])
//   EIP-1559    0x02 ‖ rlp([chainId, nonce, maxPriorityFee, maxFee, gas, to, value, data, accessList])
//   EIP-4844    0x03 ‖ rlp([… as EIP-1559 …, maxFeePerBlobGas, blobVersionedHashes])     (to required)
//   EIP-7702    0x04 ‖ rlp([… as EIP-1559 …, authorizationList])                        (to required)
// The signing hash is keccak256(payload); the signed form appends (v | yParity, r, s), and the
// transaction hash is keccak256 of the signed bytes.
import Foundation

/// The envelope types kcs signs and decodes.
public enum EthereumTransactionType: UInt8, Sendable, Hashable, CustomStringConvertible {
    case legacy = 0
    case accessList = 1
    case dynamicFee = 2
    case blob = 3
    case setCode = 4

    public var description: String {
        switch self {
        case .legacy: "legacy"
        case .accessList: "EIP-2930"
        case .dynamicFee: "EIP-1559"
        case .blob: "EIP-4844"
        case .setCode: "EIP-7702"
        }
    }

    /// EIP-1559's fee caps (types 2, 3, 4) rather than a gas price (legacy, EIP-2930).
    public var hasFeeCaps: Bool { rawValue >= 2 }

    /// Types 3 and 4 cannot create a contract: `to` is a 20-byte address.
    public var requiresRecipient: Bool { rawValue >= 3 }

    /// RLP fields of the signed transaction.
    var signedFieldCount: Int { [9, 11, 12, 14, 13][Int(rawValue)] }
}

/// One access-list entry: an address and the storage keys (32 bytes each) it will touch.
public struct AccessListEntry: Sendable, Hashable {
    public var address: EthereumAddress
    public var storageKeys: [[UInt8]]
    public init(address: EthereumAddress, storageKeys: [[UInt8]]) {
        self.address = address
        self.storageKeys = storageKeys
    }

    var rlp: RLPItem { .list([.bytes(address.bytes), .list(storageKeys.map(RLPItem.bytes))]) }
}

/// An unsigned transaction of any of the three types. Fee fields the type does not use are
/// left nil; `validate()` checks the combination before signing.
public struct EthereumTransaction: Sendable, Hashable {
    public var type: EthereumTransactionType
    /// nil only for a pre-EIP-155 legacy transaction.
    public var chainID: UInt256?
    public var nonce: UInt256
    /// Legacy and EIP-2930.
    public var gasPrice: UInt256?
    /// EIP-1559.
    public var maxPriorityFeePerGas: UInt256?
    /// EIP-1559.
    public var maxFeePerGas: UInt256?
    public var gasLimit: UInt256
    /// nil creates a contract.
    public var to: EthereumAddress?
    public var value: UInt256
    public var data: [UInt8]
    /// Typed transactions.
    public var accessList: [AccessListEntry]
    /// EIP-4844: the cap on the price per unit of blob gas.
    public var maxFeePerBlobGas: UInt256?
    /// EIP-4844: one 32-byte versioned hash (0x01 ‖ sha256(commitment)[1:]) per blob.
    public var blobVersionedHashes: [[UInt8]] = []
    /// EIP-7702: the signed authorizations the transaction carries.
    public var authorizationList: [SignedAuthorization] = []

    public init(
        type: EthereumTransactionType, chainID: UInt256?, nonce: UInt256, gasPrice: UInt256? = nil,
        maxPriorityFeePerGas: UInt256? = nil, maxFeePerGas: UInt256? = nil, gasLimit: UInt256,
        to: EthereumAddress?, value: UInt256, data: [UInt8] = [], accessList: [AccessListEntry] = []
    ) {
        self.type = type
        self.chainID = chainID
        self.nonce = nonce
        self.gasPrice = gasPrice
        self.maxPriorityFeePerGas = maxPriorityFeePerGas
        self.maxFeePerGas = maxFeePerGas
        self.gasLimit = gasLimit
        self.to = to
        self.value = value
        self.data = data
        self.accessList = accessList
    }

    // MARK: From a field map

    /// The field names `init(fields:)` accepts (eth_sendTransaction names, plus `gasLimit`
    /// and `input` as aliases).
    public static let fieldNames: Set<String> = [
        "type", "chainId", "nonce", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas", "gas", "gasLimit",
        "to", "value", "data", "input", "accessList", "maxFeePerBlobGas", "blobVersionedHashes", "authorizationList",
    ]

    /// Builds a transaction from a JSON-like map (the output of `JSONSerialization`, or a
    /// console map). Quantities are JSON integers or strings parsed by `EthereumUnits.parse`
    /// (`21000`, `"20 gwei"`, `"1.5 ether"`, `"0x5208"`); absent quantities are 0; `to`
    /// absent or empty creates a contract. The type is `type` when given, else EIP-1559 when
    /// a fee cap is given, else EIP-2930 when an access list is given, else legacy.
    /// A legacy transaction without `chainId` is pre-EIP-155. Throws for unknown fields,
    /// unusable values, and gasPrice together with fee caps.
    public init(fields: [String: Any]) throws(EthereumError) {
        for key in fields.keys.sorted() where !Self.fieldNames.contains(key) {
            throw .txBadField(
                field: key,
                reason: "is not a transaction field (expected one of "
                    + Self.fieldNames.sorted().joined(separator: ", ") + ")")
        }
        if fields["gas"] != nil && fields["gasLimit"] != nil {
            throw .txBadField(field: "gas", reason: "is given twice (as gas and gasLimit)")
        }
        if fields["data"] != nil && fields["input"] != nil {
            throw .txBadField(field: "data", reason: "is given twice (as data and input)")
        }
        let hasCaps = fields["maxFeePerGas"] != nil || fields["maxPriorityFeePerGas"] != nil
        if fields["gasPrice"] != nil && hasCaps { throw .txGasPriceAndFeeCaps }

        func quantity(_ key: String) throws(EthereumError) -> UInt256? {
            try fields[key].map { raw throws(EthereumError) in try Self.quantity(raw, field: key) }
        }

        var type: EthereumTransactionType
        if let t = try quantity("type") {
            guard let small = t.uint64, small <= 4, let known = EthereumTransactionType(rawValue: UInt8(small)) else {
                throw .txBadField(
                    field: "type",
                    reason: "must be 0 (legacy), 1 (EIP-2930), 2 (EIP-1559), 3 (EIP-4844) or 4 (EIP-7702), got \(t)")
            }
            type = known
        } else if fields["authorizationList"] != nil {
            type = .setCode
        } else if fields["blobVersionedHashes"] != nil || fields["maxFeePerBlobGas"] != nil {
            type = .blob
        } else if hasCaps {
            type = .dynamicFee
        } else if fields["accessList"] != nil {
            type = .accessList
        } else {
            type = .legacy
        }
        if !type.hasFeeCaps && hasCaps {
            throw .txBadField(field: "maxFeePerGas", reason: "is only for EIP-1559 (type 2, 3 and 4) transactions")
        }
        if type.hasFeeCaps && fields["gasPrice"] != nil { throw .txGasPriceAndFeeCaps }
        for (key, only) in [
            ("maxFeePerBlobGas", EthereumTransactionType.blob), ("blobVersionedHashes", .blob),
            ("authorizationList", .setCode),
        ]
        where fields[key] != nil && type != only {
            throw .txBadField(field: key, reason: "is only for \(only) (type \(only.rawValue)) transactions")
        }
        if type == .legacy && fields["accessList"] != nil {
            throw .txBadField(field: "accessList", reason: "is only for EIP-2930 and EIP-1559 transactions")
        }

        var to: EthereumAddress?
        if let raw = fields["to"] {
            guard let text = raw as? String else { throw .txBadField(field: "to", reason: "must be an address string") }
            if !text.isEmpty && text != "0x" {
                do { to = try EthereumAddress(text) } catch {
                    throw .txBadField(field: "to", reason: error.description)
                }
            }
        }
        var data = [UInt8]()
        if let raw = fields["data"] ?? fields["input"] {
            guard let text = raw as? String else { throw .txBadField(field: "data", reason: "must be a hex string") }
            do { data = try Hex.decode(text) } catch { throw .txBadField(field: "data", reason: error.description) }
        }
        var accessList = [AccessListEntry]()
        if let raw = fields["accessList"] {
            guard let entries = raw as? [Any] else { throw .txBadField(field: "accessList", reason: "must be a list") }
            for (i, entry) in entries.enumerated() {
                guard let e = entry as? [String: Any], let addressText = e["address"] as? String else {
                    throw .txBadField(field: "accessList[\(i)]", reason: "must be {address, storageKeys}")
                }
                let address: EthereumAddress
                do { address = try EthereumAddress(addressText) } catch {
                    throw .txBadField(field: "accessList[\(i)].address", reason: error.description)
                }
                var keys = [[UInt8]]()
                for (j, keyAny) in ((e["storageKeys"] as? [Any]) ?? []).enumerated() {
                    let field = "accessList[\(i)].storageKeys[\(j)]"
                    guard let keyText = keyAny as? String else {
                        throw .txBadField(field: field, reason: "must be a hex string")
                    }
                    let key: [UInt8]
                    do { key = try Hex.decode(keyText) } catch {
                        throw .txBadField(field: field, reason: error.description)
                    }
                    guard key.count == 32 else {
                        throw .txBadField(field: field, reason: "must be 32 bytes, got \(key.count)")
                    }
                    keys.append(key)
                }
                accessList.append(AccessListEntry(address: address, storageKeys: keys))
            }
        }
        let hashes = try Self.versionedHashes(fields["blobVersionedHashes"])
        let authorizations = try Self.authorizations(fields["authorizationList"])
        let gasPrice = try quantity("gasPrice")
        let chainID = try quantity("chainId")
        let nonce = try quantity("nonce") ?? .zero
        let maxPriority = try quantity("maxPriorityFeePerGas")
        let maxFee = try quantity("maxFeePerGas")
        let gasLimit: UInt256
        if let gas = try quantity("gas") { gasLimit = gas } else { gasLimit = try quantity("gasLimit") ?? .zero }
        let value = try quantity("value") ?? .zero
        self.init(
            type: type, chainID: chainID, nonce: nonce,
            gasPrice: type.hasFeeCaps ? nil : (gasPrice ?? .zero),
            maxPriorityFeePerGas: type.hasFeeCaps ? (maxPriority ?? .zero) : nil,
            maxFeePerGas: type.hasFeeCaps ? (maxFee ?? .zero) : nil,
            gasLimit: gasLimit, to: to, value: value, data: data, accessList: accessList)
        if type == .blob { maxFeePerBlobGas = try quantity("maxFeePerBlobGas") ?? .zero }
        blobVersionedHashes = hashes
        authorizationList = authorizations
    }

    /// A quantity of a transaction map: a JSON integer, or a string `EthereumUnits.parse` reads
    /// (`21000`, `"20 gwei"`, `"1.5 ether"`, `"0x5208"`); `field` names it in errors.
    public static func quantity(_ raw: Any, field key: String) throws(EthereumError) -> UInt256 {
        if Swift.type(of: raw) == Bool.self {
            throw .txBadField(field: key, reason: "must be a quantity, got a boolean")
        }
        if let i = raw as? Int, Swift.type(of: raw) == Int.self {
            if i < 0 { throw .txQuantity(field: key, error: .unitsNegative(input: String(i))) }
            return UInt256(UInt64(i))
        }
        if let n = raw as? NSNumber, !(raw is String) {
            let kind = String(cString: n.objCType)
            guard kind != "c", kind != "B" else {
                throw .txBadField(field: key, reason: "must be a quantity, got a boolean")
            }
            guard kind != "f", kind != "d" else {
                throw .txBadField(
                    field: key,
                    reason: "must be a whole number, got \(n.stringValue) (write large values as strings)")
            }
            if n.int64Value < 0 { throw .txQuantity(field: key, error: .unitsNegative(input: n.stringValue)) }
            return UInt256(n.uint64Value)
        }
        guard let text = raw as? String else { throw .txBadField(field: key, reason: "must be a quantity") }
        do { return try EthereumUnits.parse(text) } catch { throw .txQuantity(field: key, error: error) }
    }

    /// `blobVersionedHashes` of a map: 32-byte hex strings.
    static func versionedHashes(_ raw: Any?) throws(EthereumError) -> [[UInt8]] {
        guard let raw else { return [] }
        guard let list = raw as? [Any] else {
            throw .txBadField(field: "blobVersionedHashes", reason: "must be a list of 32-byte hashes")
        }
        var hashes: [[UInt8]] = []
        for (i, item) in list.enumerated() {
            let field = "blobVersionedHashes[\(i)]"
            guard let text = item as? String else { throw .txBadField(field: field, reason: "must be a hex string") }
            let hash: [UInt8]
            do { hash = try Hex.decode(text) } catch { throw .txBadField(field: field, reason: error.description) }
            guard hash.count == 32 else {
                throw .txBadField(field: field, reason: "must be 32 bytes, got \(hash.count)")
            }
            hashes.append(hash)
        }
        return hashes
    }

    /// `authorizationList` of a map: signed tuples `{chainId, address, nonce, yParity, r, s}`.
    static func authorizations(_ raw: Any?) throws(EthereumError) -> [SignedAuthorization] {
        guard let raw else { return [] }
        guard let list = raw as? [Any] else {
            throw .txBadField(field: "authorizationList", reason: "must be a list of signed authorizations")
        }
        var out: [SignedAuthorization] = []
        for (i, item) in list.enumerated() {
            guard let map = item as? [String: Any] else {
                throw .txBadField(
                    field: "authorizationList[\(i)]",
                    reason:
                        "must be a signed authorization {chainId, address, nonce, yParity, r, s} (sign auth answers one)"
                )
            }
            out.append(try SignedAuthorization(fields: map, field: "authorizationList[\(i)]"))
        }
        return out
    }

    // MARK: Checks and payloads

    /// The largest chain id (EIP-2294): floor((2^64 − 1) / 2) − 36, so that a legacy
    /// transaction's v = chainId·2 + 35 + parity fits in 64 bits for every client.
    public static let maximumChainID: UInt64 = UInt64.max / 2 - 36

    /// Checks the fields fit the type: not both gasPrice and fee caps, a non-zero chain id
    /// (required for typed transactions) no larger than EIP-2294's bound, a tip no larger than
    /// the fee cap, no access list on a legacy transaction, a nonce below
    /// 2^64 − 1 (EIP-2681) and a gas limit below 2^64 (clients hold gas as a uint64): a
    /// transaction no node would take is never signed.
    public func validate() throws(EthereumError) {
        guard let n = nonce.uint64, n < UInt64.max else {
            throw .txBadField(field: "nonce", reason: "must be below 2^64-1 = \(UInt64.max) (EIP-2681), got \(nonce)")
        }
        guard gasLimit.uint64 != nil else {
            throw .txBadField(
                field: "gas",
                reason: "must be at most 2^64-1 = \(UInt64.max) (clients hold gas as a uint64), got \(gasLimit)")
        }
        if gasPrice != nil && (maxFeePerGas != nil || maxPriorityFeePerGas != nil) { throw .txGasPriceAndFeeCaps }
        if let chainID, chainID.isZero { throw .txChainIDZero }
        if let chainID, chainID > UInt256(Self.maximumChainID) {
            throw .txBadField(
                field: "chainId",
                reason: "must be at most \(Self.maximumChainID) (EIP-2294: a legacy v = chainId·2 + 36"
                    + " must fit in 64 bits), got \(chainID)")
        }
        if let tip = maxPriorityFeePerGas, let cap = maxFeePerGas, tip > cap {
            throw .txBadField(
                field: "maxPriorityFeePerGas",
                reason: "must not be above maxFeePerGas (EIP-1559), got \(tip) wei"
                    + " above a cap of \(cap) wei")
        }
        if type != .legacy && chainID == nil { throw .txMissingField(field: "chainId") }
        if type == .legacy && !accessList.isEmpty {
            throw .txBadField(field: "accessList", reason: "is only for typed (EIP-2718) transactions")
        }
        try validateNewTypes()
    }

    /// Types 3 and 4 (docs/eth-signing.md): a recipient (neither can create a contract); at least
    /// one versioned hash, each of KZG's version 0x01; at least one authorization, each with a
    /// nonce below 2^64 − 1.
    func validateNewTypes() throws(EthereumError) {
        if type.requiresRecipient && to == nil {
            throw .txBadField(
                field: "to",
                reason: "is required: a type-\(type.rawValue) (\(type)) transaction cannot create a contract")
        }
        if type == .blob {
            guard !blobVersionedHashes.isEmpty else {
                throw .txBadField(field: "blobVersionedHashes", reason: "must hold at least one hash (EIP-4844)")
            }
            for (i, h) in blobVersionedHashes.enumerated() where h.first != 0x01 {
                throw .txBadField(
                    field: "blobVersionedHashes[\(i)]",
                    reason: "must start with 0x01 (VERSIONED_HASH_VERSION_KZG), got 0x\(Hex.encode(Array(h.prefix(1))))"
                )
            }
        }
        if type == .setCode {
            guard !authorizationList.isEmpty else {
                throw .txBadField(field: "authorizationList", reason: "must hold at least one authorization (EIP-7702)")
            }
            for (i, a) in authorizationList.enumerated() {
                do { try a.authorization.validate() } catch .authBadField(let f, let reason) {
                    throw .txBadField(field: "authorizationList[\(i)].\(f)", reason: reason)
                }
            }
        }
    }

    /// The unsigned fields in RLP order (without the EIP-155 trailer).
    var bodyItems: [RLPItem] {
        let q: (UInt256?) -> RLPItem = { .bytes(($0 ?? .zero).minimalBigEndianBytes) }
        let common: [RLPItem] = [q(gasLimit), .bytes(to?.bytes ?? []), q(value), .bytes(data)]
        switch type {
        case .legacy:
            return [q(nonce), q(gasPrice)] + common
        case .accessList:
            return [q(chainID), q(nonce), q(gasPrice)] + common + [.list(accessList.map(\.rlp))]
        case .dynamicFee, .blob, .setCode:
            let items: [RLPItem] =
                [q(chainID), q(nonce), q(maxPriorityFeePerGas), q(maxFeePerGas)] + common
                + [.list(accessList.map(\.rlp))]
            switch type {
            case .blob: return items + [q(maxFeePerBlobGas), .list(blobVersionedHashes.map(RLPItem.bytes))]
            case .setCode: return items + [.list(authorizationList.map(\.rlp))]
            default: return items
            }
        }
    }

    /// What is hashed for signing: the RLP of the unsigned transaction (with chainId, 0, 0 for
    /// EIP-155), preceded by the type byte for typed transactions.
    public var signingPayload: [UInt8] {
        switch type {
        case .legacy:
            var items = bodyItems
            if let chainID { items += [.bytes(chainID.minimalBigEndianBytes), .bytes([]), .bytes([])] }
            return RLP.encode(.list(items))
        case .accessList, .dynamicFee, .blob, .setCode:
            return [type.rawValue] + RLP.encode(.list(bodyItems))
        }
    }

    /// keccak256(signingPayload).
    public var signingHash: [UInt8] { Hash.keccak256(signingPayload) }

    /// Attaches a signature made over `signingHash` (no checks; see `sign(with:)`).
    public func signed(with signature: ECDSASignature, yParity: UInt8) -> SignedEthereumTransaction {
        SignedEthereumTransaction(transaction: self, signature: signature, yParity: yParity)
    }

    /// Validates, then signs `signingHash` with `key` (RFC 6979, low-S).
    public func sign(with key: PrivateKey) throws(EthereumError) -> SignedEthereumTransaction {
        try validate()
        let sig = try EthereumSignature.sign(digest: signingHash, with: key)
        return signed(with: sig.signature, yParity: sig.recoveryID)
    }
}

/// A signed transaction: the fields, r, s and the parity of R.y.
public struct SignedEthereumTransaction: Sendable, Hashable {
    public let transaction: EthereumTransaction
    public let signature: ECDSASignature
    /// 0 or 1.
    public let yParity: UInt8

    public init(transaction: EthereumTransaction, signature: ECDSASignature, yParity: UInt8) {
        self.transaction = transaction
        self.signature = signature
        self.yParity = yParity
    }

    /// The v written into the transaction: yParity for typed transactions, 27/28 for a
    /// pre-EIP-155 legacy transaction, chainId·2 + 35 + yParity with EIP-155.
    public var v: UInt256 {
        switch transaction.type {
        case .accessList, .dynamicFee, .blob, .setCode: return UInt256(UInt64(yParity))
        case .legacy:
            guard let chainID = transaction.chainID else { return UInt256(27 + UInt64(yParity)) }
            let (doubled, _) = chainID.multipliedReportingOverflow(by: 2)
            return doubled.addingReportingOverflow(UInt256(35 + UInt64(yParity))).0
        }
    }

    /// True when s ≤ n/2 (all signatures kcs makes; older chains allowed high S).
    public var isLowS: Bool { signature.isLowS }

    /// The raw signed transaction (what eth_sendRawTransaction takes).
    public var rawBytes: [UInt8] {
        let tail: [RLPItem] = [
            .bytes(v.minimalBigEndianBytes), .uint(bigEndian: signature.r), .uint(bigEndian: signature.s),
        ]
        let list = RLP.encode(.list(transaction.bodyItems + tail))
        return transaction.type == .legacy ? list : [transaction.type.rawValue] + list
    }

    /// `0x` + hex of `rawBytes`.
    public var rawHex: String { Hex.encodePrefixed(rawBytes) }

    /// The transaction hash: keccak256(rawBytes).
    public var hash: [UInt8] { Hash.keccak256(rawBytes) }

    /// The sender, recovered from the signature over the signing hash (high S is accepted
    /// here; check `isLowS` to flag it).
    public func sender() throws(EthereumError) -> EthereumAddress {
        do {
            let key = try RecoverableSignature(signature: signature, recoveryID: yParity)
                .recoverPublicKey(digest: transaction.signingHash)
            return EthereumAddress(publicKey: key)
        } catch {
            throw .signatureUnrecoverable
        }
    }

    // MARK: Decoding

    /// Decodes a raw signed transaction given as hex (`0x` optional).
    public static func decode(hex: String) throws(EthereumError) -> SignedEthereumTransaction {
        let bytes: [UInt8]
        do { bytes = try Hex.decode(hex.trimmingSpaces) } catch { throw .txBadHex(reason: error.description) }
        return try decode(bytes)
    }

    /// The envelope of a raw transaction or a signing payload: its type and its RLP items.
    static func envelope(_ raw: [UInt8]) throws(EthereumError) -> (EthereumTransactionType, [RLPItem]) {
        guard let first = raw.first else { throw .txEmpty }
        let type: EthereumTransactionType
        let body: [UInt8]
        switch first {
        case 0xc0...:
            type = .legacy
            body = raw
        case 0x01...0x04:
            type = EthereumTransactionType(rawValue: first)!
            body = Array(raw.dropFirst())
        case 0x80...0xbf: throw .txRLP(.expectedList)
        default: throw .txUnknownType(byte: first)
        }
        do { return (type, try RLP.decode(body).asList()) } catch { throw .txRLP(error) }
    }

    /// Decodes a raw signed transaction of any type. The RLP must be canonical (so that
    /// re-encoding gives the same bytes and hash); every field is checked. A blob transaction in
    /// its network form is refused here: `decodeNetwork` reads it.
    public static func decode(_ raw: [UInt8]) throws(EthereumError) -> SignedEthereumTransaction {
        let (type, items) = try envelope(raw)
        if type == .blob, case .list? = items.first {
            throw .txBadField(
                field: "RLP", reason: "is a blob transaction's network form (with its sidecar); tx.decode reads it")
        }
        let expected = type.signedFieldCount
        guard items.count == expected else {
            throw .txFieldCount(kind: type.description, expected: expected, got: items.count)
        }
        var fields = TransactionFields(items: items)
        var tx = try fields.body(type)
        let v = try fields.quantity(type == .legacy ? "v" : "yParity")
        let r = try fields.quantity("r")
        let s = try fields.quantity("s")
        var yParity: UInt8
        if type == .legacy {
            if v == UInt256(27) || v == UInt256(28) {
                yParity = UInt8(v.uint64! - 27)
            } else if v >= UInt256(35) {
                let (q, rem) = v.subtractingReportingOverflow(UInt256(35)).0.quotientAndRemainder(dividingBy: 2)
                yParity = UInt8(rem)
                tx.chainID = q
            } else {
                throw .txBadV(v: v.description)
            }
        } else {
            guard let y = v.uint64, y <= 1 else {
                throw .txBadField(field: "yParity", reason: "must be 0 or 1, got \(v)")
            }
            yParity = UInt8(y)
        }
        if r.isZero && s.isZero { throw .txUnsigned }
        let signature: ECDSASignature
        do { signature = try ECDSASignature(r: r.bigEndianBytes, s: s.bigEndianBytes) } catch {
            throw .signatureBadScalar(reason: error.description)
        }
        return SignedEthereumTransaction(transaction: tx, signature: signature, yParity: yParity)
    }
}

extension EthereumTransaction {
    /// Decodes an unsigned transaction as a wallet is asked to sign it (an air-gapped request, a
    /// co-signer's payload): `0x01 ‖ rlp(8 fields)`, `0x02 ‖ rlp(9 fields)`, or a legacy
    /// `rlp([nonce, gasPrice, gas, to, value, data])` (pre-EIP-155) or the same with
    /// `chainId, 0, 0` (EIP-155). Anything else — a short list, a list with a missing recipient
    /// field, a trailer that is not `chainId, 0, 0`, bytes that do not re-encode to themselves —
    /// is refused, so what is shown is exactly what is hashed. Chain ids are read whole (up to
    /// 256 bits) and then bounded by `validate()`.
    public static func decodeUnsigned(_ payload: [UInt8]) throws(EthereumError) -> EthereumTransaction {
        let (type, items) = try SignedEthereumTransaction.envelope(payload)
        switch type {
        case .legacy:
            guard items.count == 6 || items.count == 9 else {
                throw .txBadField(
                    field: "RLP list",
                    reason: "of an unsigned legacy transaction must have 6 fields (pre-EIP-155)"
                        + " or 9 (EIP-155: …, chainId, 0, 0), got \(items.count)")
            }
        case .accessList, .dynamicFee, .blob, .setCode:
            let expected = type.signedFieldCount - 3
            guard items.count == expected else {
                throw .txFieldCount(kind: "unsigned " + type.description, expected: expected, got: items.count)
            }
        }
        var fields = TransactionFields(items: items)
        var tx = try fields.body(type)
        if type == .legacy && items.count == 9 {
            tx.chainID = try fields.quantity("chainId")
            guard try fields.quantity("EIP-155 r").isZero, try fields.quantity("EIP-155 s").isZero else {
                throw .txBadField(field: "EIP-155 trailer", reason: "must be chainId, 0, 0")
            }
        }
        try tx.validate()
        guard tx.signingPayload == payload else {
            throw .txBadField(
                field: "RLP", reason: "is not in canonical form (it does not re-encode to the bytes given)")
        }
        return tx
    }
}

/// Reads the fields of a transaction's RLP list in order, each checked and named in errors.
struct TransactionFields {
    let items: [RLPItem]
    var index = 0

    init(items: [RLPItem]) { self.items = items }

    mutating func next() -> RLPItem {
        defer { index += 1 }
        return items[index]
    }

    mutating func quantity(_ name: String) throws(EthereumError) -> UInt256 {
        do { return UInt256(bigEndian: try next().asUIntBytes(maxBytes: 32))! } catch {
            throw .txBadField(field: name, reason: "is not a valid RLP quantity: \(error.description)")
        }
    }

    mutating func bytes(_ name: String) throws(EthereumError) -> [UInt8] {
        do { return try next().asBytes() } catch {
            throw .txBadField(field: name, reason: "must be a byte string, got a list")
        }
    }

    /// The unsigned fields of `type` in RLP order (a typed transaction's chain id first; no
    /// legacy EIP-155 trailer).
    mutating func body(_ type: EthereumTransactionType) throws(EthereumError) -> EthereumTransaction {
        var chainID: UInt256?
        if type != .legacy { chainID = try quantity("chainId") }
        let nonce = try quantity("nonce")
        var gasPrice: UInt256?, maxPriority: UInt256?, maxFee: UInt256?
        if type.hasFeeCaps {
            maxPriority = try quantity("maxPriorityFeePerGas")
            maxFee = try quantity("maxFeePerGas")
        } else {
            gasPrice = try quantity("gasPrice")
        }
        let gasLimit = try quantity("gas")
        let toBytes = try bytes("to")
        var to: EthereumAddress?
        if type.requiresRecipient && toBytes.count != 20 {
            throw .txBadField(
                field: "to", reason: "must be 20 bytes in a \(type) transaction, got \(toBytes.count) bytes")
        }
        if !toBytes.isEmpty {
            guard toBytes.count == 20 else {
                throw .txBadField(field: "to", reason: "must be empty or 20 bytes, got \(toBytes.count) bytes")
            }
            to = try? EthereumAddress(bytes: toBytes)
        }
        let value = try quantity("value")
        let data = try bytes("data")
        var accessList = [AccessListEntry]()
        if type != .legacy {
            let listItem = next()
            guard case .list(let entries) = listItem else {
                throw .txBadField(field: "accessList", reason: "must be a list, got a byte string")
            }
            for (i, entry) in entries.enumerated() {
                guard case .list(let pair) = entry, pair.count == 2, case .bytes(let address) = pair[0],
                    case .list(let keys) = pair[1]
                else {
                    throw .txBadField(field: "accessList[\(i)]", reason: "must be [address, [storageKeys…]]")
                }
                guard address.count == 20, let a = try? EthereumAddress(bytes: address) else {
                    throw .txBadField(
                        field: "accessList[\(i)].address", reason: "must be 20 bytes, got \(address.count)")
                }
                var storage = [[UInt8]]()
                for (j, key) in keys.enumerated() {
                    guard case .bytes(let k) = key, k.count == 32 else {
                        throw .txBadField(field: "accessList[\(i)].storageKeys[\(j)]", reason: "must be 32 bytes")
                    }
                    storage.append(k)
                }
                accessList.append(AccessListEntry(address: a, storageKeys: storage))
            }
        }
        var tx = EthereumTransaction(
            type: type, chainID: chainID, nonce: nonce, gasPrice: gasPrice,
            maxPriorityFeePerGas: maxPriority, maxFeePerGas: maxFee, gasLimit: gasLimit,
            to: to, value: value, data: data, accessList: accessList)
        if type == .blob {
            tx.maxFeePerBlobGas = try quantity("maxFeePerBlobGas")
            guard case .list(let hashes) = next() else {
                throw .txBadField(field: "blobVersionedHashes", reason: "must be a list, got a byte string")
            }
            for (i, h) in hashes.enumerated() {
                guard case .bytes(let b) = h, b.count == 32 else {
                    throw .txBadField(field: "blobVersionedHashes[\(i)]", reason: "must be 32 bytes")
                }
                tx.blobVersionedHashes.append(b)
            }
        }
        if type == .setCode {
            guard case .list(let tuples) = next() else {
                throw .txBadField(field: "authorizationList", reason: "must be a list, got a byte string")
            }
            for (i, t) in tuples.enumerated() {
                guard case .list(let items) = t else {
                    throw .txBadField(field: "authorizationList[\(i)]", reason: "must be a list of 6 fields")
                }
                var fields = AuthorizationFields(items: items, prefix: "authorizationList[\(i)].")
                tx.authorizationList.append(try fields.signed())
            }
        }
        return tx
    }
}
