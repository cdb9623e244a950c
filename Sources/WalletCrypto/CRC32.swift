/// CRC-32/ISO-HDLC, zlib's `crc32`: reflected polynomial 0xEDB88320, initial value and final
/// XOR 0xFFFFFFFF. Uniform Resources use it for bytewords checksums and to seed the fountain
/// code (docs/ur.md §1); it is written out big-endian there.
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The checksum of `bytes`.
    public static func checksum<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    /// The checksum as 4 big-endian bytes.
    public static func bigEndianBytes<S: Sequence>(_ bytes: S) -> [UInt8] where S.Element == UInt8 {
        let c = checksum(bytes)
        return [UInt8(c >> 24), UInt8(c >> 16 & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)]
    }
}
