import WalletCrypto

/// DER encodings of ECDSA signatures as the card's firmware writes them.
enum DERCard {
    /// `30 L 02 Lr r 02 Ls s`. R is minimal (the Java Card encoder); S is minimal too, unless
    /// `fixedLengthS`, when it is exactly 32 bytes, leading zeros kept (what `Crypto.fixS` leaves).
    static func signature(r: [UInt8], s: [UInt8], fixedLengthS: Bool) -> [UInt8] {
        let sField = fixedLengthS ? [0x02, 0x20] + leftPadded(s) : integer(s)
        let content = integer(r) + sField
        return [0x30, UInt8(content.count)] + content
    }

    /// A minimal DER INTEGER for a non-negative big-endian magnitude.
    static func integer(_ value: [UInt8]) -> [UInt8] {
        var body = Array(value.drop(while: { $0 == 0 }))
        if body.isEmpty { body = [0] }
        if body[0] & 0x80 != 0 { body.insert(0, at: 0) }
        return [0x02, UInt8(body.count)] + body
    }

    /// n − s for a 32-byte s in 1…n−1 (the other, "high" half of an ECDSA signature).
    static func negated(_ s: [UInt8]) -> [UInt8] {
        let n = Secp256k1.order
        let a = leftPadded(s)
        var out = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for i in stride(from: 31, through: 0, by: -1) {
            var d = Int(n[i]) - Int(a[i]) - borrow
            borrow = d < 0 ? 1 : 0
            if d < 0 { d += 256 }
            out[i] = UInt8(d)
        }
        return out
    }

    static func leftPadded(_ v: [UInt8]) -> [UInt8] {
        let trimmed = Array(v.drop(while: { $0 == 0 }).suffix(32))
        return [UInt8](repeating: 0, count: 32 - trimmed.count) + trimmed
    }
}
