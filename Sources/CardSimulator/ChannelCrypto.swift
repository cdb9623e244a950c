import WalletCrypto

/// The card-side primitives of Secure Channel V1 (docs/keycard-protocol.md §6): ISO/IEC 9797-1 method 2
/// padding, AES-256-CBC with it (Java Card `ALG_AES_CBC_ISO9797_M2`) and the AES CBC-MAC without
/// padding (`ALG_AES_MAC_128_NOPAD`). Failures are the Java Card `CryptoException`s the applet sees.
enum ChannelCrypto {
    /// Why a cipher call failed, in Java Card terms.
    enum Failure: Error { case illegalUse }

    /// Appends `80` and zeros up to the next multiple of 16 (always at least one byte).
    static func pad(_ data: [UInt8]) -> [UInt8] {
        var out = data
        out.append(0x80)
        while out.count % 16 != 0 { out.append(0) }
        return out
    }

    /// Removes method-2 padding: trailing zeros, then a mandatory `80`, all inside the last block.
    static func unpad(_ data: [UInt8]) -> [UInt8]? {
        var i = data.count - 1
        while i >= 0, data[i] == 0, data.count - i <= 16 { i -= 1 }
        guard i >= 0, data[i] == 0x80, data.count - i <= 16 else { return nil }
        return Array(data[..<i])
    }

    /// AES-CBC encryption of `pad(plain)`.
    static func encrypt(_ plain: [UInt8], key: Secret, iv: [UInt8]) -> [UInt8] {
        do {
            return try AESCipher.cbcEncrypt(pad(plain), key: key, iv: iv)
        } catch {
            // Block-aligned input, a 16-byte IV and a 32-byte key are guaranteed by construction.
            preconditionFailure("AES-CBC rejected aligned input: \(error)")
        }
    }

    /// AES-CBC decryption and unpadding. Unaligned or empty input and bad padding are `ILLEGAL_USE`.
    static func decrypt(_ cipher: [UInt8], key: Secret, iv: [UInt8]) throws(Failure) -> [UInt8] {
        guard !cipher.isEmpty, cipher.count % 16 == 0, iv.count == 16 else { throw .illegalUse }
        guard let plain = try? AESCipher.cbcDecrypt(cipher, key: key, iv: iv), let data = unpad(plain) else {
            throw .illegalUse
        }
        return data
    }

    /// AES CBC-MAC: the last block of AES-CBC over `data` with a zero IV. `data` must be block-aligned.
    static func mac(_ data: [UInt8], key: Secret) throws(Failure) -> [UInt8] {
        guard !data.isEmpty, data.count % 16 == 0 else { throw .illegalUse }
        guard let out = try? AESCipher.cbcEncrypt(data, key: key, iv: [UInt8](repeating: 0, count: 16)) else {
            throw .illegalUse
        }
        return Array(out.suffix(16))
    }

    /// Java Card `ALG_EC_SVDP_DH_PLAIN`: the X coordinate of `privateKey`·`peer`. The peer must be a
    /// 65-byte uncompressed point on secp256k1; anything else fails (the applet answers `6A80`).
    static func ecdh(privateKey: PrivateKey, peer: [UInt8]) -> Secret? {
        guard peer.count == 65, peer[0] == 0x04, let point = try? PublicKey(bytes: peer) else { return nil }
        return try? privateKey.sharedSecretX(with: point)
    }
}
