internal import COpenSSL
import Crypto
import Foundation
import _CryptoExtras

/// AES in the four modes kcs needs: CBC (Keycard 3.x secure channel, no padding — the
/// channel pads with ISO 9797-1 method 2 itself), CTR (keystore V3 `aes-128-ctr`,
/// 128-bit big-endian counter), GCM (secrets sealed at rest in the store) and CCM (Keycard
/// 4.0's Secure Channel V2, through OpenSSL's libcrypto).
public enum AESCipher {
    /// AES-CBC over whole 16-byte blocks, no padding. Key 16, 24 or 32 bytes; IV 16 bytes.
    public static func cbcEncrypt(_ data: [UInt8], key: Secret, iv: [UInt8]) throws(WalletCryptoError) -> [UInt8] {
        try checkBlocks(data, iv: iv, key: key)
        return try wrap {
            try key.withUnsafeBytes { k in
                Array(try AES._CBC.encrypt(data, using: SymmetricKey(data: k), iv: .init(ivBytes: iv), noPadding: true))
            }
        }
    }

    /// AES-CBC decryption over whole blocks, no padding removed.
    public static func cbcDecrypt(_ data: [UInt8], key: Secret, iv: [UInt8]) throws(WalletCryptoError) -> [UInt8] {
        try checkBlocks(data, iv: iv, key: key)
        return try wrap {
            try key.withUnsafeBytes { k in
                Array(try AES._CBC.decrypt(data, using: SymmetricKey(data: k), iv: .init(ivBytes: iv), noPadding: true))
            }
        }
    }

    /// AES-CTR with a 16-byte initial counter block (incremented as one 128-bit
    /// big-endian integer, wrapping at 2¹²⁸). Encryption and decryption are the same.
    public static func ctr(_ data: [UInt8], key: Secret, iv: [UInt8]) throws(WalletCryptoError) -> [UInt8] {
        guard iv.count == 16 else { throw .wrongLength(what: "AES-CTR IV", expected: "16 bytes", got: iv.count) }
        try checkKey(key)
        if data.isEmpty { return [] }
        return try wrap {
            try key.withUnsafeBytes { k in
                Array(try AES._CTR.encrypt(data, using: SymmetricKey(data: k), nonce: .init(nonceBytes: iv)))
            }
        }
    }

    /// AES-GCM seal: returns ciphertext ‖ 16-byte tag. The 12-byte nonce must never repeat for a key.
    public static func gcmSeal(
        _ plaintext: Secret, key: Secret, nonce: [UInt8], aad: [UInt8]
    ) throws(WalletCryptoError) -> [UInt8] {
        guard nonce.count == 12 else {
            throw .wrongLength(what: "AES-GCM nonce", expected: "12 bytes", got: nonce.count)
        }
        try checkKey(key)
        return try wrap {
            try key.withUnsafeBytes { k in
                try plaintext.withUnsafeBytes { p in
                    let box = try AES.GCM.seal(
                        p, using: SymmetricKey(data: k), nonce: .init(data: nonce),
                        authenticating: aad)
                    return Array(box.ciphertext) + Array(box.tag)
                }
            }
        }
    }

    /// AES-GCM open of ciphertext ‖ tag. A wrong key or any changed byte gives `.authenticationFailed`.
    public static func gcmOpen(
        _ sealed: [UInt8], key: Secret, nonce: [UInt8], aad: [UInt8]
    ) throws(WalletCryptoError) -> Secret {
        guard nonce.count == 12 else {
            throw .wrongLength(what: "AES-GCM nonce", expected: "12 bytes", got: nonce.count)
        }
        guard sealed.count >= 16 else {
            throw .wrongLength(what: "AES-GCM sealed data", expected: "at least 16 bytes", got: sealed.count)
        }
        try checkKey(key)
        do {
            return try key.withUnsafeBytes { k in
                let box = try AES.GCM.SealedBox(
                    nonce: .init(data: nonce), ciphertext: sealed.dropLast(16),
                    tag: sealed.suffix(16))
                let plain = try AES.GCM.open(box, using: SymmetricKey(data: k), authenticating: aad)
                var bytes = Array(plain)
                return Secret(consuming: &bytes)
            }
        } catch {
            throw .authenticationFailed
        }
    }

    /// AES-128-CCM seal without associated data (RFC 3610): ciphertext ‖ tag. The nonce is 7 to
    /// 13 bytes, the tag 4 to 16 (even); the nonce must never repeat for a key.
    public static func ccmSeal(
        _ plaintext: [UInt8], key: Secret, nonce: [UInt8], tagLength: Int
    ) throws(WalletCryptoError) -> [UInt8] {
        try checkCCM(key: key, nonce: nonce, tagLength: tagLength)
        var out = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        let ok = key.withUnsafeBytes { k in
            out.withUnsafeMutableBufferPointer { o in
                kcs_ccm_seal(
                    k.baseAddress!.assumingMemoryBound(to: UInt8.self), nonce, Int32(nonce.count), Int32(tagLength),
                    plaintext, Int32(plaintext.count), o.baseAddress!)
            }
        }
        guard ok == 1 else { throw .cipherFailure(ccmLibraryProblem()) }
        return out
    }

    /// AES-128-CCM open of ciphertext ‖ tag. A wrong key, nonce or any changed byte gives
    /// `.authenticationFailed`, and no plaintext.
    public static func ccmOpen(
        _ sealed: [UInt8], key: Secret, nonce: [UInt8], tagLength: Int
    ) throws(WalletCryptoError) -> [UInt8] {
        try checkCCM(key: key, nonce: nonce, tagLength: tagLength)
        guard sealed.count >= tagLength else {
            throw .wrongLength(what: "AES-CCM sealed data", expected: "at least \(tagLength) bytes", got: sealed.count)
        }
        let length = sealed.count - tagLength
        var out = [UInt8](repeating: 0, count: max(length, 1))
        let result = key.withUnsafeBytes { k in
            out.withUnsafeMutableBufferPointer { o in
                kcs_ccm_open(
                    k.baseAddress!.assumingMemoryBound(to: UInt8.self), nonce, Int32(nonce.count), Int32(tagLength),
                    sealed, Int32(length), o.baseAddress!)
            }
        }
        switch result {
        case 1: return Array(out.prefix(length))
        case 0: throw .authenticationFailed
        default: throw .cipherFailure(ccmLibraryProblem())
        }
    }

    private static func checkCCM(key: Secret, nonce: [UInt8], tagLength: Int) throws(WalletCryptoError) {
        guard key.count == 16 else { throw .wrongLength(what: "AES-128-CCM key", expected: "16 bytes", got: key.count) }
        guard (7...13).contains(nonce.count) else {
            throw .wrongLength(what: "AES-CCM nonce", expected: "7 to 13 bytes", got: nonce.count)
        }
        guard (4...16).contains(tagLength), tagLength % 2 == 0 else {
            throw .wrongLength(what: "AES-CCM tag", expected: "4 to 16 bytes, even", got: tagLength)
        }
    }

    private static func ccmLibraryProblem() -> String {
        kcs_crypto_load().map { String(cString: $0) } ?? "AES-128-CCM failed in libcrypto"
    }

    private static func checkKey(_ key: Secret) throws(WalletCryptoError) {
        guard [16, 24, 32].contains(key.count) else {
            throw .wrongLength(what: "AES key", expected: "16, 24 or 32 bytes", got: key.count)
        }
    }

    private static func checkBlocks(_ data: [UInt8], iv: [UInt8], key: Secret) throws(WalletCryptoError) {
        try checkKey(key)
        guard iv.count == 16 else { throw .wrongLength(what: "AES-CBC IV", expected: "16 bytes", got: iv.count) }
        guard data.count % 16 == 0 else {
            throw .wrongLength(what: "AES-CBC data", expected: "a multiple of 16 bytes", got: data.count)
        }
    }

    private static func wrap<R>(_ body: () throws -> R) throws(WalletCryptoError) -> R {
        do { return try body() } catch { throw .cipherFailure(String(describing: error)) }
    }
}
