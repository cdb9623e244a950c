/// DER encoding of ECDSA signatures: `30 L 02 Lr r 02 Ls s` (X.690, SEC1 §C.5).
public enum DERSignature {
    /// Minimal encoding of 32-byte big-endian r and s (leading zeros stripped, a
    /// `00` added when the top bit is set so the INTEGER stays positive).
    public static func encode(r: [UInt8], s: [UInt8]) -> [UInt8] {
        func integer(_ v: [UInt8]) -> [UInt8] {
            var body = Array(v.drop(while: { $0 == 0 }))
            if body.isEmpty { body = [0] }
            if body[0] & 0x80 != 0 { body.insert(0, at: 0) }
            return [0x02, UInt8(body.count)] + body
        }
        let content = integer(r) + integer(s)
        return [0x30, UInt8(content.count)] + content
    }

    /// Parses a DER signature into the big-endian magnitudes of r and s (leading
    /// zeros removed; values are not range-checked here).
    ///
    /// Strict mode is BIP-66: short-form lengths only, total length 8…72, each
    /// INTEGER non-empty, non-negative and minimal, nothing after S.
    /// Lenient mode additionally accepts non-minimal leading zeros and the long
    /// length form `81 LL` (what some card firmware emits), but still refuses
    /// negative numbers, truncation and trailing bytes.
    public static func parse(_ der: [UInt8], strict: Bool) throws(WalletCryptoError) -> (r: [UInt8], s: [UInt8]) {
        var i = 0
        func fail(_ reason: String) -> WalletCryptoError { .invalidDER(reason: reason, offset: i) }
        func length() throws(WalletCryptoError) -> Int {
            guard i < der.count else { throw fail("missing length") }
            let first = der[i]
            i += 1
            if first < 0x80 { return Int(first) }
            guard !strict, first == 0x81 else { throw fail("length must use the short form") }
            guard i < der.count else { throw fail("missing length") }
            let value = Int(der[i])
            i += 1
            return value
        }
        func integer(_ name: String) throws(WalletCryptoError) -> [UInt8] {
            guard i < der.count else { throw fail("missing INTEGER for \(name)") }
            guard der[i] == 0x02 else { throw fail("\(name) must be an INTEGER (tag 02), got tag \(hex(der[i]))") }
            i += 1
            let len = try length()
            guard len > 0 else { throw fail("\(name) has zero length") }
            guard i + len <= der.count else { throw fail("\(name) runs past the end") }
            let body = Array(der[i..<i + len])
            guard body[0] & 0x80 == 0 else { throw fail("\(name) is negative") }
            if strict, len > 1, body[0] == 0, body[1] & 0x80 == 0 {
                throw fail("\(name) has a superfluous leading zero")
            }
            i += len
            return Array(body.drop(while: { $0 == 0 }))
        }

        if strict {
            guard der.count >= 8 else { throw fail("too short: \(der.count) bytes, at least 8 needed") }
            guard der.count <= 72 else { throw fail("too long: \(der.count) bytes, at most 72 allowed") }
        }
        guard !der.isEmpty else { throw fail("empty") }
        guard der[0] == 0x30 else { throw fail("must start with SEQUENCE (30), got \(hex(der[0]))") }
        i = 1
        let total = try length()
        guard total == der.count - i else {
            throw fail("SEQUENCE length \(total) does not match the \(der.count - i) bytes that follow")
        }
        let r = try integer("r")
        let s = try integer("s")
        guard i == der.count else { throw fail("\(der.count - i) bytes after s") }
        return (r, s)
    }

    private static func hex(_ b: UInt8) -> String { Hex.encode([b]) }
}
