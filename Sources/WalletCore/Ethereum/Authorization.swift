// EIP-7702 authorizations (docs/eth-signing.md, "EIP-7702"): the key of an account (the
// authority) lets the account's code point at a delegate contract. Source: ethereum/EIPs
// EIPS/eip-7702.md (Final). Byte layout:
//   digest = keccak256(0x05 ‖ rlp([chain_id, address, nonce]))
//   tuple  = [chain_id, address, nonce, y_parity, r, s]     (an entry of a type-4 authorization list)
// chain_id 0 is valid on every chain; address 0x00…00 clears the delegation (revocation); the
// nonce is the authority's account nonce when the tuple is processed — its current nonce + 1 when
// the authority also sends the transaction, whose own nonce is counted first.

/// An unsigned EIP-7702 authorization: what the authority's key signs.
public struct EIP7702Authorization: Sendable, Hashable {
    /// EIP-7702's MAGIC, the byte before the RLP in the signed preimage.
    public static let magic: UInt8 = 0x05

    /// 0: valid on every chain.
    public var chainID: UInt256
    /// The contract whose code the account runs; the zero address revokes.
    public var delegate: EthereumAddress
    /// The authority's account nonce when the tuple is processed (below 2^64 − 1).
    public var nonce: UInt64

    public init(chainID: UInt256, delegate: EthereumAddress, nonce: UInt64) {
        self.chainID = chainID
        self.delegate = delegate
        self.nonce = nonce
    }

    /// The delegate is the zero address: the tuple clears the account's code.
    public var isRevocation: Bool { delegate.bytes.allSatisfy { $0 == 0 } }

    /// Chain id 0: one signature valid on every EVM chain.
    public var isAnyChain: Bool { chainID.isZero }

    /// What is hashed: `0x05 ‖ rlp([chain_id, address, nonce])`.
    public var preimage: [UInt8] {
        [Self.magic]
            + RLP.encode(
                .list([.bytes(chainID.minimalBigEndianBytes), .bytes(delegate.bytes), .uint(nonce)]))
    }

    /// The digest the authority signs: keccak256(preimage).
    public var digest: [UInt8] { Hash.keccak256(preimage) }

    /// Checks what EIP-7702 bounds: a nonce below 2^64 − 1 (a tuple with 2^64 − 1 is skipped).
    public func validate() throws(EthereumError) {
        guard nonce < UInt64.max else {
            throw .authBadField(field: "nonce", reason: "must be below 2^64-1 (EIP-7702), got \(nonce)")
        }
    }

    /// Reads a preimage back (`0x05 ‖ rlp([chain_id, address, nonce])`, as a co-signer or an
    /// air-gapped request carries it): exactly three canonical fields, a 20-byte address, a
    /// nonce below 2^64 − 1; bytes that do not re-encode to themselves are refused.
    public static func decodePreimage(_ bytes: [UInt8]) throws(EthereumError) -> EIP7702Authorization {
        guard bytes.first == magic else {
            throw .authBadField(
                field: "preimage",
                reason:
                    "must start with 0x05 (EIP-7702's MAGIC), got \(bytes.first.map { "0x" + Hex.encode([$0]) } ?? "nothing")"
            )
        }
        let items: [RLPItem]
        do { items = try RLP.decode(Array(bytes.dropFirst())).asList() } catch {
            throw .authBadField(field: "preimage", reason: "is not an RLP list: \(error.description)")
        }
        guard items.count == 3 else {
            throw .authBadField(
                field: "preimage", reason: "must hold 3 fields [chainId, address, nonce], got \(items.count)")
        }
        var fields = AuthorizationFields(items: items, prefix: "")
        let auth = try fields.unsigned()
        guard auth.preimage == bytes else {
            throw .authBadField(field: "preimage", reason: "is not in canonical form")
        }
        return auth
    }

    /// Attaches the authority's signature over `digest`.
    public func signed(with signature: ECDSASignature, yParity: UInt8) -> SignedAuthorization {
        SignedAuthorization(authorization: self, signature: signature, yParity: yParity)
    }
}

/// A signed authorization: the tuple of a set-code transaction's authorization list.
public struct SignedAuthorization: Sendable, Hashable {
    public let authorization: EIP7702Authorization
    public let signature: ECDSASignature
    /// The recovery id, 0 or 1 (never 27/28).
    public let yParity: UInt8

    public init(authorization: EIP7702Authorization, signature: ECDSASignature, yParity: UInt8) {
        self.authorization = authorization
        self.signature = signature
        self.yParity = yParity
    }

    /// `[chain_id, address, nonce, y_parity, r, s]`, integers minimal (a zero is the empty string).
    public var rlp: RLPItem {
        let a = authorization
        return .list([
            .bytes(a.chainID.minimalBigEndianBytes), .bytes(a.delegate.bytes), .uint(a.nonce), .uint(yParity),
            .uint(bigEndian: signature.r), .uint(bigEndian: signature.s),
        ])
    }

    /// The account whose code the tuple sets, recovered from the signature (low-S required, as
    /// nodes require it; the tuple of a high-S signature is skipped by every client).
    public func authority() throws(EthereumError) -> EthereumAddress {
        guard signature.isLowS else { throw .signatureHighS }
        do {
            let key = try RecoverableSignature(signature: signature, recoveryID: yParity)
                .recoverPublicKey(digest: authorization.digest)
            return EthereumAddress(publicKey: key)
        } catch {
            throw .signatureUnrecoverable
        }
    }

    /// The tuple as JSON-RPC writes it (go-ethereum's SetCodeAuthorization): hex quantities.
    public var jsonFields: [(String, String)] {
        let a = authorization
        return [
            ("chainId", a.chainID.hexQuantity), ("address", a.delegate.checksummed),
            ("nonce", UInt256(a.nonce).hexQuantity), ("yParity", UInt256(UInt64(yParity)).hexQuantity),
            ("r", UInt256(bigEndian: signature.r)!.hexQuantity), ("s", UInt256(bigEndian: signature.s)!.hexQuantity),
        ]
    }

    /// One entry of `authorizationList` as a transaction map gives it: `{chainId, address, nonce,
    /// yParity, r, s}`, quantities as numbers or strings (`"0x539"`, `1337`), `r`/`s` as hex.
    /// `field` names the entry in errors (`authorizationList[0]`).
    public init(fields: [String: Any], field: String) throws(EthereumError) {
        let names = ["chainId", "address", "nonce", "yParity", "r", "s"]
        for key in fields.keys.sorted() where !names.contains(key) {
            throw .txBadField(
                field: "\(field).\(key)",
                reason: "is not a field of an authorization (expected chainId, address, nonce, yParity, r, s)")
        }
        func quantity(_ key: String) throws(EthereumError) -> UInt256 {
            guard let raw = fields[key] else { throw .txMissingField(field: "\(field).\(key)") }
            return try EthereumTransaction.quantity(raw, field: "\(field).\(key)")
        }
        guard let addressText = fields["address"] as? String else {
            throw .txBadField(field: "\(field).address", reason: "must be an address string")
        }
        let delegate: EthereumAddress
        do { delegate = try EthereumAddress(addressText) } catch {
            throw .txBadField(field: "\(field).address", reason: error.description)
        }
        let nonce = try quantity("nonce")
        guard let n = nonce.uint64, n < UInt64.max else {
            throw .txBadField(field: "\(field).nonce", reason: "must be below 2^64-1 (EIP-7702), got \(nonce)")
        }
        let y = try quantity("yParity")
        guard let parity = y.uint64, parity <= 1 else {
            throw .txBadField(field: "\(field).yParity", reason: "must be 0 or 1 (not 27/28), got \(y)")
        }
        let signature: ECDSASignature
        do {
            signature = try ECDSASignature(r: try quantity("r").bigEndianBytes, s: try quantity("s").bigEndianBytes)
        } catch let e as EthereumError {
            throw e
        } catch {
            throw .txBadField(field: "\(field).r/s", reason: "must be in 1…n-1: \(error)")
        }
        self.init(
            authorization: EIP7702Authorization(chainID: try quantity("chainId"), delegate: delegate, nonce: n),
            signature: signature, yParity: UInt8(parity))
    }
}

/// Reads the fields of an authorization tuple in order, each bounded as EIP-7702 bounds it and
/// named in errors (`authorizationList[1].nonce`).
struct AuthorizationFields {
    let items: [RLPItem]
    /// `authorizationList[i].`, or empty for a bare preimage.
    let prefix: String
    var index = 0

    init(items: [RLPItem], prefix: String) {
        self.items = items
        self.prefix = prefix
    }

    mutating func quantity(_ name: String, maxBytes: Int) throws(EthereumError) -> UInt256 {
        defer { index += 1 }
        do { return UInt256(bigEndian: try items[index].asUIntBytes(maxBytes: maxBytes))! } catch {
            throw .authBadField(field: prefix + name, reason: "is not a valid RLP quantity: \(error.description)")
        }
    }

    /// chain_id (< 2^256), address (exactly 20 bytes), nonce (< 2^64, and not 2^64 − 1).
    mutating func unsigned() throws(EthereumError) -> EIP7702Authorization {
        let chainID = try quantity("chainId", maxBytes: 32)
        let addressBytes: [UInt8]
        do { addressBytes = try items[index].asBytes() } catch {
            throw .authBadField(field: prefix + "address", reason: "must be a byte string, got a list")
        }
        index += 1
        guard addressBytes.count == 20, let delegate = try? EthereumAddress(bytes: addressBytes) else {
            throw .authBadField(field: prefix + "address", reason: "must be 20 bytes, got \(addressBytes.count)")
        }
        let nonce = try quantity("nonce", maxBytes: 8)
        let auth = EIP7702Authorization(chainID: chainID, delegate: delegate, nonce: nonce.uint64!)
        do { try auth.validate() } catch .authBadField(let f, let reason) {
            throw .authBadField(field: prefix + f, reason: reason)
        }
        return auth
    }

    /// A whole tuple: the three fields, then y_parity (0 or 1), r and s (1…n−1).
    mutating func signed() throws(EthereumError) -> SignedAuthorization {
        guard items.count == 6 else {
            throw .authBadField(
                field: prefix.isEmpty ? "tuple" : String(prefix.dropLast()),
                reason: "must hold 6 fields [chainId, address, nonce, yParity, r, s], got \(items.count)")
        }
        let auth = try unsigned()
        let y = try quantity("yParity", maxBytes: 1)
        guard let parity = y.uint64, parity <= 1 else {
            throw .authBadField(field: prefix + "yParity", reason: "must be 0 or 1, got \(y)")
        }
        let r = try quantity("r", maxBytes: 32)
        let s = try quantity("s", maxBytes: 32)
        let signature: ECDSASignature
        do { signature = try ECDSASignature(r: r.bigEndianBytes, s: s.bigEndianBytes) } catch {
            throw .authBadField(field: prefix + "r/s", reason: "must be in 1…n-1: \(error.description)")
        }
        return auth.signed(with: signature, yParity: UInt8(parity))
    }
}
