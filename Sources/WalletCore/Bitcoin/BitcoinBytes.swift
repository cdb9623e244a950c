import WalletCrypto

// Reading and writing Bitcoin's wire encodings (docs/bitcoin.md, "Bytes"): little-endian
// integers and the compact size (CompactSize, "varint"), which must be minimal wherever kcs
// reads it (BIP-174 requires it of PSBT key types; Bitcoin Core refuses a non-minimal one in
// every serialisation it reads).

/// Why bytes could not be read: what was being read, and at which offset of the whole input.
public struct BitcoinBytesError: WalletError, Equatable {
    /// What was being read (`the transaction's input count`).
    public let what: String
    /// 0-based offset into the bytes given.
    public let offset: Int
    /// What went wrong there.
    public let problem: String

    public var id: String { "bitcoin.malformed" }
    public var description: String { "\(what) at byte \(offset): \(problem)" }
}

/// A cursor over bytes that reads Bitcoin's encodings and never reads past the end.
public struct BitcoinReader {
    public let bytes: [UInt8]
    public private(set) var offset: Int
    /// Where `bytes[0]` is in the caller's larger input, for error offsets.
    public let base: Int

    public init(_ bytes: [UInt8], base: Int = 0) {
        self.bytes = bytes
        self.offset = 0
        self.base = base
    }

    public var remaining: Int { bytes.count - offset }
    public var atEnd: Bool { offset == bytes.count }
    /// The offset in the caller's input.
    public var position: Int { base + offset }

    func fail(_ what: String, _ problem: String, at: Int? = nil) -> BitcoinBytesError {
        BitcoinBytesError(what: what, offset: base + (at ?? offset), problem: problem)
    }

    public mutating func take(_ n: Int, _ what: String) throws(BitcoinBytesError) -> [UInt8] {
        guard n >= 0, n <= remaining else {
            throw fail(what, "needs \(n) bytes, \(remaining) left")
        }
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }

    public mutating func byte(_ what: String) throws(BitcoinBytesError) -> UInt8 { try take(1, what)[0] }

    public mutating func uint32(_ what: String) throws(BitcoinBytesError) -> UInt32 {
        let b = try take(4, what)
        return b.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    public mutating func uint64(_ what: String) throws(BitcoinBytesError) -> UInt64 {
        let b = try take(8, what)
        return b.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A compact size, refused unless minimally encoded.
    public mutating func compactSize(_ what: String) throws(BitcoinBytesError) -> UInt64 {
        let start = offset
        let first = try byte(what)
        let value: UInt64
        let minimum: UInt64
        switch first {
        case 0xfd:
            value = UInt64(try take(2, what).reversed().reduce(0) { $0 << 8 | UInt16($1) })
            minimum = 0xfd
        case 0xfe:
            value = UInt64(try uint32(what))
            minimum = 0x1_0000
        case 0xff:
            value = try uint64(what)
            minimum = 0x1_0000_0000
        default: return UInt64(first)
        }
        guard value >= minimum else {
            throw fail(what, "compact size \(value) is not minimally encoded", at: start)
        }
        return value
    }

    /// A compact size that counts bytes still to come: refused when larger than what is left.
    public mutating func length(_ what: String) throws(BitcoinBytesError) -> Int {
        let start = offset
        let n = try compactSize(what)
        guard n <= UInt64(remaining) else {
            throw fail(what, "says \(n) bytes, \(remaining) left", at: start)
        }
        return Int(n)
    }

    /// A compact size counting items of at least `minimumSize` bytes each still to come.
    public mutating func count(_ what: String, minimumSize: Int) throws(BitcoinBytesError) -> Int {
        let start = offset
        let n = try compactSize(what)
        guard n <= UInt64(remaining / max(minimumSize, 1)) else {
            throw fail(what, "says \(n) items, more than the \(remaining) bytes left can hold", at: start)
        }
        return Int(n)
    }

    /// A compact-size-prefixed byte string.
    public mutating func lengthPrefixed(_ what: String) throws(BitcoinBytesError) -> [UInt8] {
        try take(try length(what), what)
    }
}

/// Bitcoin's encodings, written.
public enum BitcoinWriter {
    public static func uint32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    public static func uint64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// The minimal compact size of `n`.
    public static func compactSize(_ n: UInt64) -> [UInt8] {
        switch n {
        case 0..<0xfd: [UInt8(n)]
        case 0xfd...0xffff: [0xfd, UInt8(n & 0xff), UInt8(n >> 8)]
        case 0x1_0000...0xffff_ffff: [0xfe] + uint32(UInt32(n))
        default: [0xff] + uint64(n)
        }
    }

    public static func compactSize(_ n: Int) -> [UInt8] { compactSize(UInt64(n)) }

    public static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] { compactSize(bytes.count) + bytes }
}
