internal import CSecp256k1
import Foundation

// MARK: - Context

/// The one libsecp256k1 context, created and randomised once (side-channel blinding)
/// and then only read, which the library documents as safe from many threads.
final class Secp256k1Context: @unchecked Sendable {
    static let shared = Secp256k1Context()
    let raw: OpaquePointer

    private init() {
        raw = secp256k1_context_create(kcs_secp256k1_context_flags)!
        var seed = SystemRandom().bytes(32)
        _ = secp256k1_context_randomize(raw, &seed)
        Secret.wipe(&seed)
    }
}

/// Constants and free functions of the curve.
public enum Secp256k1 {
    /// The group order n, big-endian.
    public static let order: [UInt8] = try! Hex.decode(
        "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
    /// n / 2, the largest low-S value.
    public static let halfOrder: [UInt8] = try! Hex.decode(
        "7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0")

    /// Compares two equal-length big-endian numbers.
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for i in 0..<a.count where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
        return 0
    }

    /// True when `scalar` (32 bytes big-endian) is in 1…n-1.
    public static func isValidScalar(_ scalar: [UInt8]) -> Bool {
        scalar.count == 32 && scalar.contains(where: { $0 != 0 }) && compare(scalar, order) < 0
    }

    /// Verifies an ECDSA signature over a 32-byte digest. High-S signatures are
    /// rejected (libsecp256k1 and Ethereum since EIP-2 do) unless `allowHighS`.
    public static func verify(
        _ signature: ECDSASignature, digest: [UInt8], publicKey: PublicKey,
        allowHighS: Bool = false
    ) -> Bool {
        guard digest.count == 32 else { return false }
        let ctx = Secp256k1Context.shared.raw
        var sig = secp256k1_ecdsa_signature()
        let compact = signature.compact
        guard secp256k1_ecdsa_signature_parse_compact(ctx, &sig, compact) == 1 else { return false }
        var normal = secp256k1_ecdsa_signature()
        let wasHigh = secp256k1_ecdsa_signature_normalize(ctx, &normal, &sig) == 1
        if wasHigh && !allowHighS { return false }
        var pub = publicKey.raw
        return secp256k1_ecdsa_verify(ctx, &normal, digest, &pub) == 1
    }

    /// The RFC 6979 nonce candidate number `attempt` (0 = the nonce actually used)
    /// for `privateKey` and `digest`, computed by libsecp256k1's own nonce function.
    /// Exposed so tests can check the nonce against published vectors.
    public static func rfc6979Nonce(privateKey: PrivateKey, digest: [UInt8], attempt: UInt32) -> [UInt8]? {
        guard digest.count == 32 else { return nil }
        var nonce = [UInt8](repeating: 0, count: 32)
        let ok = privateKey.secret.withUnsafeBytes { key in
            secp256k1_nonce_function_rfc6979(
                &nonce, digest, key.bindMemory(to: UInt8.self).baseAddress!,
                nil, nil, attempt)
        }
        return ok == 1 ? nonce : nil
    }
}

// MARK: - Private keys

/// A secp256k1 private key: 32 bytes in 1…n-1, held as a `Secret`.
public struct PrivateKey: Sendable, CustomStringConvertible {
    /// The 32 key bytes. Read them only through `withUnsafeBytes`.
    public let secret: Secret

    /// Wraps `secret` after checking it is a valid scalar.
    public init(_ secret: Secret) throws(WalletCryptoError) {
        guard secret.count == 32 else {
            throw .wrongLength(what: "private key", expected: "32 bytes", got: secret.count)
        }
        let ok = secret.withUnsafeBytes { b in
            secp256k1_ec_seckey_verify(Secp256k1Context.shared.raw, b.bindMemory(to: UInt8.self).baseAddress!)
        }
        guard ok == 1 else { throw .privateKeyOutOfRange }
        self.secret = secret
    }

    /// Copies `bytes` into a new key; the caller should wipe its own copy.
    public init(bytes: [UInt8]) throws(WalletCryptoError) {
        try self.init(Secret(bytes: bytes))
    }

    /// A fresh key from `random` (rejection-sampled until valid).
    public static func generate(using random: RandomSource) -> PrivateKey {
        while true {
            if let key = try? PrivateKey(random.secret(32)) { return key }
        }
    }

    public var description: String { "<private key>" }

    /// A BIP-340 Schnorr signature (x(R) ‖ s, 64 bytes) of the 32-byte `message` by this key
    /// tweaked with `tweak` (the key taken with even Y, then d + t; a zero tweak signs with the key
    /// itself), with the 32 bytes of auxiliary randomness `aux` (libsecp256k1's keypair tweak and
    /// `schnorrsig_sign32`).
    public func signSchnorr(message: [UInt8], tweak: [UInt8], aux: [UInt8]) throws(WalletCryptoError) -> [UInt8] {
        guard message.count == 32 else {
            throw .wrongLength(what: "Schnorr message", expected: "32 bytes", got: message.count)
        }
        guard tweak.count == 32 else { throw .wrongLength(what: "tweak", expected: "32 bytes", got: tweak.count) }
        guard aux.count == 32 else {
            throw .wrongLength(what: "auxiliary randomness", expected: "32 bytes", got: aux.count)
        }
        let ctx = Secp256k1Context.shared.raw
        var keypair = secp256k1_keypair()
        defer { withUnsafeMutableBytes(of: &keypair) { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        guard withKey({ secp256k1_keypair_create(ctx, &keypair, $0) }) == 1 else { throw .privateKeyOutOfRange }
        guard secp256k1_keypair_xonly_tweak_add(ctx, &keypair, tweak) == 1 else { throw .tweakOutOfRange }
        var signature = [UInt8](repeating: 0, count: 64)
        guard secp256k1_schnorrsig_sign32(ctx, &signature, message, &keypair, aux) == 1 else {
            throw .invalidSignature(reason: "libsecp256k1 could not make the Schnorr signature")
        }
        return signature
    }

    /// Runs `body` with a pointer to the 32 key bytes.
    func withKey<R>(_ body: (UnsafePointer<UInt8>) throws -> R) rethrows -> R {
        try secret.withUnsafeBytes { try body($0.bindMemory(to: UInt8.self).baseAddress!) }
    }

    /// The public key k·G.
    public var publicKey: PublicKey {
        var pub = secp256k1_pubkey()
        let ok = withKey { secp256k1_ec_pubkey_create(Secp256k1Context.shared.raw, &pub, $0) }
        precondition(ok == 1, "a validated private key always has a public key")
        return PublicKey(raw: pub)
    }

    /// Signs a 32-byte digest: RFC 6979 nonce, low-S, with the recovery id.
    ///
    /// With `extraEntropy` (32 bytes) the nonce is RFC 6979 with that data mixed in
    /// (RFC 6979 §3.6 "additional data"), so signatures are no longer reproducible — what a
    /// card with a random nonce looks like; a seeded source keeps tests deterministic.
    public func sign(digest: [UInt8], extraEntropy: [UInt8]? = nil) throws(WalletCryptoError) -> RecoverableSignature {
        guard digest.count == 32 else { throw .wrongLength(what: "digest", expected: "32 bytes", got: digest.count) }
        if let extra = extraEntropy, extra.count != 32 {
            throw .wrongLength(what: "extra nonce entropy", expected: "32 bytes", got: extra.count)
        }
        let ctx = Secp256k1Context.shared.raw
        var sig = secp256k1_ecdsa_recoverable_signature()
        let ok = withKey { key in
            if let extra = extraEntropy {
                return extra.withUnsafeBytes {
                    secp256k1_ecdsa_sign_recoverable(ctx, &sig, digest, key, nil, $0.baseAddress)
                }
            }
            return secp256k1_ecdsa_sign_recoverable(ctx, &sig, digest, key, nil, nil)
        }
        guard ok == 1 else { throw .privateKeyOutOfRange }
        var compact = [UInt8](repeating: 0, count: 64)
        var recid: Int32 = 0
        _ = secp256k1_ecdsa_recoverable_signature_serialize_compact(ctx, &compact, &recid, &sig)
        return RecoverableSignature(
            unchecked: ECDSASignature(unchecked: Array(compact[0..<32]), Array(compact[32..<64])),
            recoveryID: UInt8(recid))
    }

    /// (k + tweak) mod n — BIP-32 private child derivation. Fails when tweak ≥ n or the sum is 0.
    public func adding(tweak: [UInt8]) throws(WalletCryptoError) -> PrivateKey {
        guard tweak.count == 32 else { throw .wrongLength(what: "tweak", expected: "32 bytes", got: tweak.count) }
        let out = try Secret(count: 32) { (buf: UnsafeMutableRawBufferPointer) throws(WalletCryptoError) in
            withKey { buf.copyMemory(from: UnsafeRawBufferPointer(start: $0, count: 32)) }
            let p = buf.bindMemory(to: UInt8.self).baseAddress!
            guard secp256k1_ec_seckey_tweak_add(Secp256k1Context.shared.raw, p, tweak) == 1 else {
                throw .tweakOutOfRange
            }
        }
        return try PrivateKey(out)
    }

    /// ECDH as the Keycard secure channel uses it: the shared secret is the raw
    /// 32-byte X coordinate of k·P, not hashed (docs/keycard-protocol.md §6).
    public func sharedSecretX(with publicKey: PublicKey) throws(WalletCryptoError) -> Secret {
        var pub = publicKey.raw
        return try Secret(count: 32) { (buf: UnsafeMutableRawBufferPointer) throws(WalletCryptoError) in
            let out = buf.bindMemory(to: UInt8.self).baseAddress!
            let ok = withKey { key in
                secp256k1_ecdh(
                    Secp256k1Context.shared.raw, out, &pub, key,
                    { output, x32, _, _ in
                        guard let output, let x32 else { return 0 }
                        output.update(from: x32, count: 32)
                        return 1
                    }, nil)
            }
            guard ok == 1 else { throw .invalidPublicKey(reason: "ECDH produced the point at infinity") }
        }
    }
}

// MARK: - Public keys

/// A point on secp256k1 (never the point at infinity). Parses 33-byte compressed and
/// 65-byte uncompressed SEC1 encodings; equality compares the point.
public struct PublicKey: Sendable, Hashable, CustomStringConvertible {
    /// libsecp256k1's opaque 64-byte form, kept so repeated operations skip parsing.
    var raw: secp256k1_pubkey

    init(raw: secp256k1_pubkey) { self.raw = raw }

    /// Parses a SEC1 encoding (`02|03 ‖ X` or `04 ‖ X ‖ Y`).
    public init(bytes: [UInt8]) throws(WalletCryptoError) {
        guard bytes.count == 33 || bytes.count == 65 else {
            throw .invalidPublicKey(reason: "expected 33 (compressed) or 65 (uncompressed) bytes, got \(bytes.count)")
        }
        let prefix = bytes[0]
        if bytes.count == 33, prefix != 2, prefix != 3 {
            throw .invalidPublicKey(reason: String(format: "compressed key must start with 02 or 03, got %02x", prefix))
        }
        if bytes.count == 65, prefix != 4 {
            throw .invalidPublicKey(reason: String(format: "uncompressed key must start with 04, got %02x", prefix))
        }
        var pub = secp256k1_pubkey()
        guard secp256k1_ec_pubkey_parse(Secp256k1Context.shared.raw, &pub, bytes, bytes.count) == 1 else {
            throw .invalidPublicKey(reason: "the point is not on the curve")
        }
        raw = pub
    }

    /// 33-byte compressed SEC1 encoding.
    public var compressed: [UInt8] { serialize(compressed: true) }

    /// 65-byte uncompressed SEC1 encoding (`04 ‖ X ‖ Y`).
    public var uncompressed: [UInt8] { serialize(compressed: false) }

    /// Serialises into `out` (33 or 65 bytes). Used by hot loops to avoid allocations.
    public func serialize(compressed: Bool, into out: UnsafeMutablePointer<UInt8>) {
        var len = compressed ? 33 : 65
        var pub = raw
        _ = secp256k1_ec_pubkey_serialize(
            Secp256k1Context.shared.raw, out, &len, &pub,
            compressed ? kcs_secp256k1_compressed : kcs_secp256k1_uncompressed)
    }

    private func serialize(compressed: Bool) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: compressed ? 33 : 65) { buf, n in
            serialize(compressed: compressed, into: buf.baseAddress!)
            n = compressed ? 33 : 65
        }
    }

    /// P + tweak·G — BIP-32 public child derivation. Fails when tweak ≥ n or the result is infinity.
    public func adding(tweak: [UInt8]) throws(WalletCryptoError) -> PublicKey {
        guard tweak.count == 32 else { throw .wrongLength(what: "tweak", expected: "32 bytes", got: tweak.count) }
        var pub = raw
        guard secp256k1_ec_pubkey_tweak_add(Secp256k1Context.shared.raw, &pub, tweak) == 1 else {
            throw .tweakOutOfRange
        }
        return PublicKey(raw: pub)
    }

    /// The x-only key (BIP-340) and whether Y was odd.
    public var xOnly: (key: XOnlyPublicKey, oddY: Bool) {
        var x = secp256k1_xonly_pubkey()
        var parity: Int32 = 0
        var pub = raw
        _ = secp256k1_xonly_pubkey_from_pubkey(Secp256k1Context.shared.raw, &x, &parity, &pub)
        return (XOnlyPublicKey(raw: x), parity == 1)
    }

    public var description: String { Hex.encode(compressed) }

    public static func == (a: PublicKey, b: PublicKey) -> Bool { a.compressed == b.compressed }
    public func hash(into hasher: inout Hasher) { hasher.combine(compressed) }
}

// MARK: - Point arithmetic (the two-party protocols: docs/two-party-protocol.md)

extension PublicKey {
    /// k·G for a scalar 0 < k < n (32 bytes big-endian).
    public static func generator(times scalar: [UInt8]) throws(WalletCryptoError) -> PublicKey {
        guard scalar.count == 32 else { throw .wrongLength(what: "scalar", expected: "32 bytes", got: scalar.count) }
        var pub = secp256k1_pubkey()
        guard secp256k1_ec_pubkey_create(Secp256k1Context.shared.raw, &pub, scalar) == 1 else {
            throw .privateKeyOutOfRange
        }
        return PublicKey(raw: pub)
    }

    /// k·P for a scalar 0 < k < n.
    public func multiplied(by scalar: [UInt8]) throws(WalletCryptoError) -> PublicKey {
        guard scalar.count == 32 else { throw .wrongLength(what: "scalar", expected: "32 bytes", got: scalar.count) }
        var pub = raw
        guard secp256k1_ec_pubkey_tweak_mul(Secp256k1Context.shared.raw, &pub, scalar) == 1 else {
            throw .tweakOutOfRange
        }
        return PublicKey(raw: pub)
    }

    /// P + Q; fails when the sum is the point at infinity.
    public func plus(_ other: PublicKey) throws(WalletCryptoError) -> PublicKey {
        var out = secp256k1_pubkey()
        var a = raw, b = other.raw
        let ok = withUnsafePointer(to: &a) { pa in
            withUnsafePointer(to: &b) { pb in
                let list: [UnsafePointer<secp256k1_pubkey>?] = [pa, pb]
                return secp256k1_ec_pubkey_combine(Secp256k1Context.shared.raw, &out, list, 2)
            }
        }
        guard ok == 1 else { throw .invalidPublicKey(reason: "the sum is the point at infinity") }
        return PublicKey(raw: out)
    }

    /// −P.
    public var negated: PublicKey {
        var pub = raw
        _ = secp256k1_ec_pubkey_negate(Secp256k1Context.shared.raw, &pub)
        return PublicKey(raw: pub)
    }
}

/// A BIP-340 x-only public key (32 bytes, even Y implied).
public struct XOnlyPublicKey: Sendable, Hashable, CustomStringConvertible {
    var raw: secp256k1_xonly_pubkey

    init(raw: secp256k1_xonly_pubkey) { self.raw = raw }

    /// Parses 32 bytes of X; fails when no point has that X.
    public init(bytes: [UInt8]) throws(WalletCryptoError) {
        guard bytes.count == 32 else {
            throw .invalidPublicKey(reason: "an x-only key is 32 bytes, got \(bytes.count)")
        }
        var x = secp256k1_xonly_pubkey()
        guard secp256k1_xonly_pubkey_parse(Secp256k1Context.shared.raw, &x, bytes) == 1 else {
            throw .invalidPublicKey(reason: "no point on the curve has this X coordinate")
        }
        raw = x
    }

    /// The 32 bytes of X.
    public var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var x = raw
        _ = secp256k1_xonly_pubkey_serialize(Secp256k1Context.shared.raw, &out, &x)
        return out
    }

    /// BIP-341 output key Q = P + t·G with t = tagged_hash("TapTweak", P ‖ merkleRoot).
    /// With no script tree (`merkleRoot` nil) this is the key-path-only taproot output (BIP-86).
    public func taprootTweaked(merkleRoot: [UInt8]? = nil) throws(WalletCryptoError) -> XOnlyPublicKey {
        if let root = merkleRoot, root.count != 32 {
            throw .wrongLength(what: "taproot merkle root", expected: "32 bytes", got: root.count)
        }
        return try tweaked(by: Hash.tagged("TapTweak", bytes + (merkleRoot ?? [])))
    }

    /// Q = P + t·G for a 32-byte tweak t (BIP-340's key P: X with even Y), as an x-only key.
    public func tweaked(by tweak: [UInt8]) throws(WalletCryptoError) -> XOnlyPublicKey {
        guard tweak.count == 32 else { throw .wrongLength(what: "tweak", expected: "32 bytes", got: tweak.count) }
        var out = secp256k1_pubkey()
        var x = raw
        guard secp256k1_xonly_pubkey_tweak_add(Secp256k1Context.shared.raw, &out, &x, tweak) == 1 else {
            throw .tweakOutOfRange
        }
        return PublicKey(raw: out).xOnly.key
    }

    /// True when `signature` (64 bytes, x(R) ‖ s) is a BIP-340 signature of `message` by this key.
    public func verifySchnorr(_ signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == 64 else { return false }
        var x = raw
        return secp256k1_schnorrsig_verify(Secp256k1Context.shared.raw, signature, message, message.count, &x) == 1
    }

    public var description: String { Hex.encode(bytes) }
    public static func == (a: XOnlyPublicKey, b: XOnlyPublicKey) -> Bool { a.bytes == b.bytes }
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}

// MARK: - Signatures

/// An ECDSA signature (r, s), each 32 bytes big-endian in 1…n-1.
public struct ECDSASignature: Sendable, Hashable, CustomStringConvertible {
    public let r: [UInt8]
    public let s: [UInt8]

    init(unchecked r: [UInt8], _ s: [UInt8]) {
        self.r = r
        self.s = s
    }

    /// Builds a signature from big-endian r and s of up to 32 significant bytes
    /// (leading zero bytes are allowed and dropped); each must be in 1…n-1.
    public init(r: [UInt8], s: [UInt8]) throws(WalletCryptoError) {
        self.r = try Self.scalar(r, name: "r")
        self.s = try Self.scalar(s, name: "s")
    }

    /// Parses the 64-byte compact form r ‖ s.
    public init(compact: [UInt8]) throws(WalletCryptoError) {
        guard compact.count == 64 else {
            throw .wrongLength(what: "compact signature", expected: "64 bytes", got: compact.count)
        }
        try self.init(r: Array(compact[0..<32]), s: Array(compact[32..<64]))
    }

    /// Parses DER. `lenient` accepts what cards emit (non-minimal leading zeros,
    /// e.g. the Keycard's fixed 32-byte S after low-S normalisation — spec §18);
    /// strict mode follows BIP-66 / X.690 DER exactly.
    public init(der: [UInt8], lenient: Bool = false) throws(WalletCryptoError) {
        let (r, s) = try DERSignature.parse(der, strict: !lenient)
        try self.init(r: r, s: s)
    }

    private static func scalar(_ bytes: [UInt8], name: String) throws(WalletCryptoError) -> [UInt8] {
        let significant = Array(bytes.drop(while: { $0 == 0 }))
        guard significant.count <= 32 else {
            throw .invalidSignature(reason: "\(name) is longer than 32 bytes")
        }
        let value = [UInt8](repeating: 0, count: 32 - significant.count) + significant
        guard Secp256k1.isValidScalar(value) else {
            throw .invalidSignature(reason: "\(name) must be between 1 and n-1")
        }
        return value
    }

    /// r ‖ s, 64 bytes.
    public var compact: [UInt8] { r + s }

    /// Minimal DER: `30 L 02 Lr r 02 Ls s`.
    public var der: [UInt8] { DERSignature.encode(r: r, s: s) }

    /// True when s ≤ n/2 (the only form libsecp256k1 and Ethereum accept).
    public var isLowS: Bool { Secp256k1.compare(s, Secp256k1.halfOrder) <= 0 }

    /// The same signature with s replaced by n − s when s is high.
    public var normalized: ECDSASignature {
        guard !isLowS else { return self }
        var sig = secp256k1_ecdsa_signature()
        let ctx = Secp256k1Context.shared.raw
        _ = secp256k1_ecdsa_signature_parse_compact(ctx, &sig, compact)
        var normal = secp256k1_ecdsa_signature()
        _ = secp256k1_ecdsa_signature_normalize(ctx, &normal, &sig)
        var out = [UInt8](repeating: 0, count: 64)
        _ = secp256k1_ecdsa_signature_serialize_compact(ctx, &out, &normal)
        return ECDSASignature(unchecked: Array(out[0..<32]), Array(out[32..<64]))
    }

    public var description: String { "r=\(Hex.encode(r)) s=\(Hex.encode(s))" }
}

/// A signature with the recovery id that lets a verifier recover the public key.
public struct RecoverableSignature: Sendable, Hashable, CustomStringConvertible {
    public let signature: ECDSASignature
    /// 0…3: bit 0 is the parity of R.y, bit 1 says R.x overflowed n (practically never).
    public let recoveryID: UInt8

    public init(signature: ECDSASignature, recoveryID: UInt8) throws(WalletCryptoError) {
        guard recoveryID < 4 else { throw .invalidRecoveryID(Int(recoveryID)) }
        self.signature = signature
        self.recoveryID = recoveryID
    }

    init(unchecked signature: ECDSASignature, recoveryID: UInt8) {
        self.signature = signature
        self.recoveryID = recoveryID
    }

    /// r ‖ s ‖ recovery id, 65 bytes (add 27 to the last byte for Ethereum's legacy v).
    public var compact: [UInt8] { signature.compact + [recoveryID] }

    /// The public key that made this signature over `digest`.
    public func recoverPublicKey(digest: [UInt8]) throws(WalletCryptoError) -> PublicKey {
        guard digest.count == 32 else { throw .wrongLength(what: "digest", expected: "32 bytes", got: digest.count) }
        let ctx = Secp256k1Context.shared.raw
        var sig = secp256k1_ecdsa_recoverable_signature()
        guard
            secp256k1_ecdsa_recoverable_signature_parse_compact(
                ctx, &sig, signature.compact,
                Int32(recoveryID)) == 1
        else {
            throw .invalidSignature(reason: "r or s out of range")
        }
        var pub = secp256k1_pubkey()
        guard secp256k1_ecdsa_recover(ctx, &pub, &sig, digest) == 1 else { throw .recoveryFailed }
        return PublicKey(raw: pub)
    }

    /// Finds the recovery id for a plain signature by trying 0…3 against a known key
    /// (how a client completes a Keycard signature, which carries no id: spec §10.9).
    public static func matching(
        _ signature: ECDSASignature, digest: [UInt8],
        publicKey: PublicKey
    ) throws(WalletCryptoError) -> RecoverableSignature {
        for id: UInt8 in 0..<4 {
            let candidate = RecoverableSignature(unchecked: signature, recoveryID: id)
            if let key = try? candidate.recoverPublicKey(digest: digest), key == publicKey { return candidate }
        }
        throw .recoveryFailed
    }

    public var description: String { "\(signature) v=\(recoveryID)" }
}

extension secp256k1_pubkey: @retroactive @unchecked Sendable {}
extension secp256k1_xonly_pubkey: @retroactive @unchecked Sendable {}
