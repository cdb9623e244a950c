// EIP-191 version 0x45 ("personal_sign"): the digest of a message is
// keccak256(0x19 ‖ "Ethereum Signed Message:\n" ‖ decimal byte length ‖ message)
// (ethereum/EIPs EIPS/eip-191.md; go-ethereum accounts.TextHash). Also the 65-byte
// r ‖ s ‖ v signature form shared by personal_sign and EIP-712, with recovery and verification.

/// EIP-191 personal messages.
public enum PersonalMessage {
    /// The bytes put before the message: 0x19, "Ethereum Signed Message:\n" and the decimal
    /// length of the message in bytes.
    public static func prefix(forLength length: Int) -> [UInt8] {
        [0x19] + Array("Ethereum Signed Message:\n\(length)".utf8)
    }

    /// Everything that is hashed: prefix ‖ message.
    public static func payload(_ message: [UInt8]) -> [UInt8] { prefix(forLength: message.count) + message }

    /// The 32-byte digest that gets signed.
    public static func digest(_ message: [UInt8]) -> [UInt8] { Hash.keccak256(payload(message)) }

    /// The digest of a text message (its UTF-8 bytes; a hex-looking string is still text).
    public static func digest(text: String) -> [UInt8] { digest(Array(text.utf8)) }
}

/// An Ethereum message signature: r, s (32 bytes each) and v = 27 + recovery id, written
/// r ‖ s ‖ v (65 bytes) by personal_sign and eth_signTypedData.
public struct EthereumSignature: Sendable, Hashable, CustomStringConvertible {
    /// The ECDSA pair.
    public let signature: ECDSASignature
    /// 0 or 1: the parity of R.y.
    public let recoveryID: UInt8

    /// Wraps a recoverable signature (recovery ids 2 and 3, which need R.x ≥ n, are refused).
    public init(_ recoverable: RecoverableSignature) throws(EthereumError) {
        guard recoverable.recoveryID < 2 else { throw .signatureBadV(v: 27 + recoverable.recoveryID) }
        signature = recoverable.signature
        recoveryID = recoverable.recoveryID
    }

    /// Parses r ‖ s ‖ v (65 bytes); v may be 27/28 or 0/1. High S is accepted here and
    /// reported by `isLowS` / `verify`.
    public init(bytes: [UInt8]) throws(EthereumError) {
        guard bytes.count == 65 else { throw .signatureLength(got: bytes.count) }
        let v = bytes[64]
        switch v {
        case 0, 1: recoveryID = v
        case 27, 28: recoveryID = v - 27
        default: throw .signatureBadV(v: v)
        }
        do { signature = try ECDSASignature(r: Array(bytes[0..<32]), s: Array(bytes[32..<64])) } catch {
            throw .signatureBadScalar(reason: error.description)
        }
    }

    /// Parses r and s (big-endian, up to 32 bytes each) and v (0, 1, 27 or 28).
    public init(r: [UInt8], s: [UInt8], v: UInt8) throws(EthereumError) {
        guard r.drop(while: { $0 == 0 }).count <= 32, s.drop(while: { $0 == 0 }).count <= 32 else {
            throw .signatureBadScalar(reason: "a value longer than 32 bytes")
        }
        let pad: ([UInt8]) -> [UInt8] = { x in
            let m = Array(x.drop(while: { $0 == 0 }))
            return [UInt8](repeating: 0, count: 32 - m.count) + m
        }
        try self.init(bytes: pad(r) + pad(s) + [v])
    }

    /// Signs a 32-byte digest with `key` (RFC 6979, low-S).
    public static func sign(digest: [UInt8], with key: PrivateKey) throws(EthereumError) -> EthereumSignature {
        guard digest.count == 32 else { throw .digestLength(got: digest.count) }
        let recoverable: RecoverableSignature
        do { recoverable = try key.sign(digest: digest) } catch { throw .signatureUnrecoverable }
        return try EthereumSignature(recoverable)
    }

    /// 27 or 28.
    public var v: UInt8 { 27 + recoveryID }
    /// r, 32 bytes.
    public var r: [UInt8] { signature.r }
    /// s, 32 bytes.
    public var s: [UInt8] { signature.s }
    /// r ‖ s ‖ v with v = 27/28.
    public var bytes: [UInt8] { signature.compact + [v] }
    /// True when s ≤ n/2.
    public var isLowS: Bool { signature.isLowS }

    /// The public key that signed `digest` (works for high-S signatures too).
    public func recoverPublicKey(digest: [UInt8]) throws(EthereumError) -> PublicKey {
        guard digest.count == 32 else { throw .digestLength(got: digest.count) }
        do {
            return try RecoverableSignature(signature: signature, recoveryID: recoveryID).recoverPublicKey(
                digest: digest)
        } catch {
            throw .signatureUnrecoverable
        }
    }

    /// The address that signed `digest`.
    public func recoverAddress(digest: [UInt8]) throws(EthereumError) -> EthereumAddress {
        EthereumAddress(publicKey: try recoverPublicKey(digest: digest))
    }

    /// True when the signature over `digest` recovers to `address`. A high-S signature
    /// throws `.signatureHighS` unless `allowHighS`.
    public func verify(
        digest: [UInt8], address: EthereumAddress, allowHighS: Bool = false
    ) throws(EthereumError) -> Bool {
        guard digest.count == 32 else { throw .digestLength(got: digest.count) }
        guard allowHighS || isLowS else { throw .signatureHighS }
        guard let recovered = try? recoverAddress(digest: digest) else { return false }
        return recovered == address
    }

    /// True when the signature over `digest` was made by `publicKey` (same high-S rule).
    public func verify(digest: [UInt8], publicKey: PublicKey, allowHighS: Bool = false) throws(EthereumError) -> Bool {
        try verify(digest: digest, address: EthereumAddress(publicKey: publicKey), allowHighS: allowHighS)
    }

    /// `0x` + 130 hex digits.
    public var description: String { Hex.encodePrefixed(bytes) }
}
