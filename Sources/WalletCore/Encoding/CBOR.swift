// CBOR (RFC 8949) as Uniform Resources use it (docs/ur.md §3): a deterministic encoder (shortest
// heads, definite lengths, map keys sorted by their encoded bytes) and a strict, bounded decoder
// that still accepts what wallets in the field write (unsorted keys, longer-than-needed heads).

// MARK: - Errors

/// Every way a CBOR item is refused. Offsets are 0-based byte positions in the input.
public enum CBORError: WalletError, Equatable {
    /// The input ends inside an item.
    case truncated(offset: Int)
    /// An indefinite-length string, array or map (additional information 31).
    case indefiniteLength(offset: Int)
    /// Additional information 28–30 (reserved).
    case reservedAdditionalInfo(offset: Int)
    /// Arrays, maps and tags nested deeper than `limit`.
    case tooDeep(limit: Int)
    /// Bytes left after the one top-level item.
    case trailingBytes(count: Int)
    /// A text string that is not UTF-8.
    case invalidUTF8(offset: Int)
    /// The same key twice in one map.
    case duplicateKey(offset: Int)
    /// A simple value other than false, true and null, or a break code outside an indefinite item.
    case unsupportedSimple(value: Int, offset: Int)
    /// A length that does not fit in memory.
    case tooLong(offset: Int)

    public var id: String {
        switch self {
        case .truncated: "cbor.truncated"
        case .indefiniteLength: "cbor.indefiniteLength"
        case .reservedAdditionalInfo: "cbor.reserved"
        case .tooDeep: "cbor.tooDeep"
        case .trailingBytes: "cbor.trailingBytes"
        case .invalidUTF8: "cbor.invalidUTF8"
        case .duplicateKey: "cbor.duplicateKey"
        case .unsupportedSimple: "cbor.unsupportedSimple"
        case .tooLong: "cbor.tooLong"
        }
    }

    public var description: String {
        switch self {
        case .truncated(let offset): "the CBOR data ends inside an item (at byte \(offset))"
        case .indefiniteLength(let offset):
            "an indefinite-length CBOR item at byte \(offset): only definite lengths are accepted"
        case .reservedAdditionalInfo(let offset): "a reserved CBOR head at byte \(offset)"
        case .tooDeep(let limit): "CBOR nested deeper than \(limit) levels"
        case .trailingBytes(let count): "\(count) bytes follow the CBOR item"
        case .invalidUTF8(let offset): "a CBOR text string at byte \(offset) is not UTF-8"
        case .duplicateKey(let offset): "a CBOR map repeats the key at byte \(offset)"
        case .unsupportedSimple(let value, let offset): "an unsupported CBOR simple value \(value) at byte \(offset)"
        case .tooLong(let offset): "a CBOR length at byte \(offset) is larger than the data"
        }
    }
}

// MARK: - Values

/// One CBOR data item.
public indirect enum CBOR: Sendable, Hashable {
    case unsigned(UInt64)
    /// −1 − n.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Key–value pairs in the order read (the encoder sorts them).
    case map([Pair])
    case tagged(UInt64, CBOR)
    case bool(Bool)
    case null
    case float(Double)

    /// A map entry.
    public struct Pair: Sendable, Hashable {
        public let key: CBOR
        public let value: CBOR
        public init(_ key: CBOR, _ value: CBOR) {
            self.key = key
            self.value = value
        }
    }

    /// A map from pairs given in any order.
    public static func map(_ pairs: [(CBOR, CBOR)]) -> CBOR { .map(pairs.map { Pair($0.0, $0.1) }) }

    /// An integer, signed.
    public static func int(_ v: Int) -> CBOR { v >= 0 ? .unsigned(UInt64(v)) : .negative(UInt64(-(v + 1))) }

    /// The value under `key` of a map, nil for another item or a missing key.
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    /// The value under the integer `key` of a map.
    public subscript(key: Int) -> CBOR? { self[.int(key)] }
}

// MARK: - Encoding

extension CBOR {
    /// The deterministic encoding: shortest heads, definite lengths, map keys sorted by their
    /// encoded bytes (numeric order for small integer keys), floats as the shortest of 32 or 64
    /// bits that keeps the value.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    private func encode(into out: inout [UInt8]) {
        switch self {
        case .unsigned(let v): Self.head(0, v, into: &out)
        case .negative(let v): Self.head(1, v, into: &out)
        case .bytes(let b):
            Self.head(2, UInt64(b.count), into: &out)
            out += b
        case .text(let s):
            let u = Array(s.utf8)
            Self.head(3, UInt64(u.count), into: &out)
            out += u
        case .array(let items):
            Self.head(4, UInt64(items.count), into: &out)
            for item in items { item.encode(into: &out) }
        case .map(let pairs):
            Self.head(5, UInt64(pairs.count), into: &out)
            let sorted = pairs.map { ($0.key.encoded, $0.value) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }
            for (key, value) in sorted {
                out += key
                value.encode(into: &out)
            }
        case .tagged(let tag, let item):
            Self.head(6, tag, into: &out)
            item.encode(into: &out)
        case .bool(let b): out.append(b ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        case .float(let d):
            if let f = Float(exactly: d) {
                out.append(0xFA)
                out += Self.bigEndian(UInt64(f.bitPattern), count: 4)
            } else {
                out.append(0xFB)
                out += Self.bigEndian(d.bitPattern, count: 8)
            }
        }
    }

    private static func head(_ major: UInt8, _ v: UInt64, into out: inout [UInt8]) {
        let m = major << 5
        switch v {
        case 0..<24: out.append(m | UInt8(v))
        case 24...0xFF: out += [m | 24, UInt8(v)]
        case 0x100...0xFFFF:
            out.append(m | 25)
            out += bigEndian(v, count: 2)
        case 0x1_0000...0xFFFF_FFFF:
            out.append(m | 26)
            out += bigEndian(v, count: 4)
        default:
            out.append(m | 27)
            out += bigEndian(v, count: 8)
        }
    }

    private static func bigEndian(_ v: UInt64, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64(count - 1 - $0))) }
    }
}

// MARK: - Decoding

extension CBOR {
    /// How deep arrays, maps and tags may nest.
    public static let maximumDepth = 32

    /// The one item in `bytes`. Definite lengths only; no trailing bytes; at most
    /// `maximumDepth` levels; UTF-8 text; no repeated map key. Unsorted keys and heads longer
    /// than needed are accepted. Work and memory are bounded by the input's length.
    public init(decoding bytes: [UInt8]) throws(CBORError) {
        var reader = Reader(bytes: bytes)
        self = try reader.item(depth: 0)
        guard reader.offset == bytes.count else { throw .trailingBytes(count: bytes.count - reader.offset) }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func byte() throws(CBORError) -> UInt8 {
            guard offset < bytes.count else { throw .truncated(offset: offset) }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func take(_ n: UInt64, at start: Int) throws(CBORError) -> [UInt8] {
            guard n <= UInt64(bytes.count - offset) else {
                throw n > UInt64(bytes.count) ? .tooLong(offset: start) : .truncated(offset: bytes.count)
            }
            defer { offset += Int(n) }
            return Array(bytes[offset..<(offset + Int(n))])
        }

        mutating func argument(_ info: UInt8, at start: Int) throws(CBORError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24...27:
                var v: UInt64 = 0
                for b in try take(1 << UInt64(info - 24), at: start) { v = v << 8 | UInt64(b) }
                return v
            case 31: throw .indefiniteLength(offset: start)
            default: throw .reservedAdditionalInfo(offset: start)
            }
        }

        mutating func item(depth: Int) throws(CBORError) -> CBOR {
            let start = offset
            let initial = try byte()
            let major = initial >> 5, info = initial & 0x1F
            if major == 7 { return try simple(info, at: start) }
            let n = try argument(info, at: start)
            switch major {
            case 0: return .unsigned(n)
            case 1: return .negative(n)
            case 2: return .bytes(try take(n, at: start))
            case 3:
                let raw = try take(n, at: start)
                guard let s = String(validating: raw, as: UTF8.self) else { throw .invalidUTF8(offset: start) }
                return .text(s)
            case 4:
                guard depth < CBOR.maximumDepth else { throw .tooDeep(limit: CBOR.maximumDepth) }
                // Every item takes at least one byte: a count beyond what is left cannot be met.
                guard n <= UInt64(bytes.count - offset) else { throw .tooLong(offset: start) }
                var items: [CBOR] = []
                items.reserveCapacity(Int(n))
                for _ in 0..<n { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                guard depth < CBOR.maximumDepth else { throw .tooDeep(limit: CBOR.maximumDepth) }
                guard n <= UInt64(bytes.count - offset) / 2 else { throw .tooLong(offset: start) }
                var pairs: [Pair] = []
                var seen = Set<[UInt8]>()
                for _ in 0..<n {
                    let keyStart = offset
                    let key = try item(depth: depth + 1)
                    guard seen.insert(Array(bytes[keyStart..<offset])).inserted else {
                        throw .duplicateKey(offset: keyStart)
                    }
                    pairs.append(Pair(key, try item(depth: depth + 1)))
                }
                return .map(pairs)
            default:  // 6
                guard depth < CBOR.maximumDepth else { throw .tooDeep(limit: CBOR.maximumDepth) }
                return .tagged(n, try item(depth: depth + 1))
            }
        }

        mutating func simple(_ info: UInt8, at start: Int) throws(CBORError) -> CBOR {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 25:
                let h = try take(2, at: start)
                return .float(Self.half(UInt16(h[0]) << 8 | UInt16(h[1])))
            case 26:
                let f = try take(4, at: start).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                return .float(Double(Float(bitPattern: f)))
            case 27:
                let d = try take(8, at: start).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                return .float(Double(bitPattern: d))
            case 24: throw .unsupportedSimple(value: Int(try byte()), offset: start)
            case 28...30: throw .reservedAdditionalInfo(offset: start)
            case 31: throw .unsupportedSimple(value: 31, offset: start)
            default: throw .unsupportedSimple(value: Int(info), offset: start)
            }
        }

        /// An IEEE 754 half-precision value.
        static func half(_ h: UInt16) -> Double {
            let sign: Double = h & 0x8000 == 0 ? 1 : -1
            let exponent = Int(h >> 10 & 0x1F), fraction = Double(h & 0x3FF)
            switch exponent {
            case 0: return sign * fraction * 0x1p-24
            case 31: return fraction == 0 ? sign * .infinity : .nan
            default: return sign * (1 + fraction / 1024) * Double(sign: .plus, exponent: exponent - 15, significand: 1)
            }
        }
    }
}
