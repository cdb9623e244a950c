internal import CSodium
import Crypto
import Foundation
import _CryptoExtras

/// One-shot hash functions. SHA-2 and HMAC come from swift-crypto (BoringSSL);
/// Keccak-256 and RIPEMD-160 are implemented in this module (see their files).
public enum Hash {
    /// SHA-256 (FIPS 180-4).
    public static func sha256<D: DataProtocol>(_ data: D) -> [UInt8] { Array(SHA256.hash(data: data)) }

    /// SHA-512 (FIPS 180-4).
    public static func sha512<D: DataProtocol>(_ data: D) -> [UInt8] { Array(SHA512.hash(data: data)) }

    /// SHA-256 applied twice, as Bitcoin uses it for Base58Check.
    public static func sha256d<D: DataProtocol>(_ data: D) -> [UInt8] { sha256(sha256(data)) }

    /// HASH160 = RIPEMD-160(SHA-256(data)), Bitcoin's public-key and script hash.
    public static func hash160<D: DataProtocol>(_ data: D) -> [UInt8] { RIPEMD160.hash(sha256(data)) }

    /// Keccak-256 with the original Keccak padding (Ethereum's hash, not FIPS SHA3-256).
    public static func keccak256<D: DataProtocol>(_ data: D) -> [UInt8] { Keccak256.hash(data) }

    /// RIPEMD-160.
    public static func ripemd160<D: DataProtocol>(_ data: D) -> [UInt8] { RIPEMD160.hash(data) }

    /// BIP-340 tagged hash: SHA-256(SHA-256(tag) ‖ SHA-256(tag) ‖ data).
    public static func tagged<D: DataProtocol>(_ tag: String, _ data: D) -> [UInt8] {
        let t = sha256(Array(tag.utf8))
        var h = SHA256()
        h.update(data: t)
        h.update(data: t)
        h.update(data: data)
        return Array(h.finalize())
    }

    /// HMAC-SHA256 (RFC 2104).
    public static func hmacSHA256<D: DataProtocol>(key: [UInt8], data: D) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }

    /// HMAC-SHA512 (RFC 2104); BIP-32 uses it for every derivation step.
    public static func hmacSHA512<D: DataProtocol>(key: [UInt8], data: D) -> [UInt8] {
        Array(HMAC<SHA512>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }

    /// HMAC-SHA256 keyed with a secret, returning a secret (HKDF's extract and expand steps).
    public static func hmacSHA256(key: Secret, data: Secret) -> Secret {
        key.withUnsafeBytes { k in
            data.withUnsafeBytes { d in
                let mac = HMAC<SHA256>.authenticationCode(for: d, using: SymmetricKey(data: k))
                return mac.withUnsafeBytes { Secret(bytes: $0) }
            }
        }
    }

    /// HMAC-SHA512 keyed with a secret, returning a secret (BIP-32 master key: the
    /// output is the key and chain code).
    public static func hmacSHA512(key: Secret, data: Secret) -> Secret {
        key.withUnsafeBytes { k in
            data.withUnsafeBytes { d in
                let mac = HMAC<SHA512>.authenticationCode(for: d, using: SymmetricKey(data: k))
                return mac.withUnsafeBytes { Secret(bytes: $0) }
            }
        }
    }
}

/// Password-based key derivation: PBKDF2 (RFC 8018) and scrypt (RFC 7914).
public enum KeyDerivation {
    /// The PRF PBKDF2 runs on.
    public enum PRF: String, Sendable, CaseIterable {
        case hmacSHA256 = "hmac-sha256"
        case hmacSHA512 = "hmac-sha512"
    }

    /// PBKDF2 with `iterations` rounds of `prf`. Iterations must be ≥ 1, length 1…1024.
    public static func pbkdf2(
        password: Secret, salt: [UInt8], iterations: Int, length: Int,
        prf: PRF
    ) throws(WalletCryptoError) -> Secret {
        guard iterations >= 1 else {
            throw .invalidKDFParameter(parameter: "c", value: String(iterations), expected: "at least 1")
        }
        guard (1...1024).contains(length) else {
            throw .invalidKDFParameter(parameter: "dklen", value: String(length), expected: "between 1 and 1024")
        }
        do {
            let key = try password.withUnsafeBytes { pw in
                try KDF_PBKDF2(pw, salt, prf, length, iterations)
            }
            return key.withUnsafeBytes { Secret(bytes: $0) }
        } catch {
            throw .cipherFailure("PBKDF2: \(error)")
        }
    }

    /// scrypt with cost `n` (a power of two ≥ 2), block size `r` and parallelism `p`, computed
    /// by libsodium (`crypto_pwhash_scryptsalsa208sha256_ll`, RFC 7914 without its
    /// `N < 2^(16·r)` bound, which go-ethereum's r = 1 files exceed). Needs about
    /// 128·r·(n + p) bytes; parameters needing more than `maxMemory` (default 2 GiB) are
    /// refused rather than exhausting the machine. docs/wallet-core.md says why libsodium.
    public static func scrypt(
        password: Secret, salt: [UInt8], n: Int, r: Int, p: Int, length: Int,
        maxMemory: Int = 2 << 30
    ) throws(WalletCryptoError) -> Secret {
        guard n >= 2, n & (n - 1) == 0 else {
            throw .invalidKDFParameter(parameter: "n", value: String(n), expected: "a power of two, at least 2")
        }
        guard r >= 1 else { throw .invalidKDFParameter(parameter: "r", value: String(r), expected: "at least 1") }
        guard p >= 1 else { throw .invalidKDFParameter(parameter: "p", value: String(p), expected: "at least 1") }
        guard r.multipliedReportingOverflow(by: p).partialValue < (1 << 30) else {
            throw .invalidKDFParameter(parameter: "r·p", value: String(r * p), expected: "below 2^30")
        }
        guard (1...1024).contains(length) else {
            throw .invalidKDFParameter(parameter: "dklen", value: String(length), expected: "between 1 and 1024")
        }
        let (mem, overflow) = (128 * r).multipliedReportingOverflow(by: n + p + 1)
        guard !overflow, mem <= maxMemory else {
            throw .invalidKDFParameter(
                parameter: "n·r", value: "\(n)·\(r)",
                expected: "at most \(maxMemory >> 20) MiB of scrypt memory")
        }
        guard sodiumReady else { throw .cipherFailure("scrypt: libsodium failed to initialise") }
        return try Secret(count: length) { (out: UnsafeMutableRawBufferPointer) throws(WalletCryptoError) in
            var empty: UInt8 = 0  // an empty password still needs a valid pointer
            let rc = password.withUnsafeBytes { pw in
                withUnsafePointer(to: &empty) { fallback in
                    crypto_pwhash_scryptsalsa208sha256_ll(
                        pw.bindMemory(to: UInt8.self).baseAddress ?? fallback, pw.count, salt, salt.count,
                        UInt64(n), UInt32(r), UInt32(p), out.bindMemory(to: UInt8.self).baseAddress!, length)
                }
            }
            guard rc == 0 else { throw .cipherFailure("scrypt (libsodium) failed for n=\(n) r=\(r) p=\(p)") }
        }
    }

    private static let sodiumReady: Bool = sodium_init() >= 0
}

// Thin adapters keep swift-crypto's types out of the public signatures above.
private func KDF_PBKDF2(
    _ pw: UnsafeRawBufferPointer, _ salt: [UInt8], _ prf: KeyDerivation.PRF, _ length: Int,
    _ iterations: Int
) throws -> SymmetricKey {
    let hash: CryptoExtras.KDF.Insecure.PBKDF2.HashFunction = prf == .hmacSHA256 ? .sha256 : .sha512
    return try CryptoExtras.KDF.Insecure.PBKDF2.deriveKey(
        from: pw, salt: salt, using: hash,
        outputByteCount: length, unsafeUncheckedRounds: iterations)
}
