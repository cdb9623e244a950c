// Recursive Length Prefix, Ethereum's serialisation for transactions and other structures
// (Ethereum Yellow Paper, Appendix B; ethereum.org "Recursive-length prefix (RLP)
// serialization"). The decoder is strict: it accepts only the one canonical encoding of
// each item, since two encodings of the same transaction would hash differently.

// MARK: - Errors

/// Every way RLP data can be rejected. Decoding cases carry the 0-based byte offset of the
/// item's first (prefix) byte, so a message points into the hex the user gave.
public enum RLPError: WalletError, Equatable {
    // MARK: decoding
    /// The item at `offset` needs `needed` bytes (header and payload) but only `available`
    /// remain in the data or in the enclosing list.
    case truncated(offset: Int, needed: Int, available: Int)
    /// A single byte below 0x80 written as `0x81 byte`; it must encode as itself.
    case nonCanonicalSingleByte(offset: Int, byte: UInt8)
    /// The long form (prefix 0xb8…0xbf or 0xf8…0xff) used for a payload shorter than 56 bytes.
    case nonCanonicalLongForm(offset: Int, length: Int)
    /// A long-form length whose first byte is zero.
    case leadingZeroInLength(offset: Int)
    /// A long-form length too large to be a byte count on this machine.
    case lengthTooLarge(offset: Int)
    /// Bytes left over after the one top-level item; `offset` is the first extra byte.
    case trailingBytes(offset: Int, count: Int)
    /// A list nested deeper than `limit` lists.
    case tooDeep(offset: Int, limit: Int)

    // MARK: reading decoded items
    /// A list where a byte string was expected.
    case expectedBytes
    /// A byte string where a list was expected.
    case expectedList
    /// An integer written with a leading zero byte (RLP integers are minimal; zero is empty).
    case integerLeadingZero
    /// An integer longer than the `maxBytes` the caller can hold.
    case integerTooLarge(maxBytes: Int, got: Int)

    /// Stable identifier of the case, for tests and for callers that branch on the kind.
    public var id: String {
        switch self {
        case .truncated: "rlp.truncated"
        case .nonCanonicalSingleByte: "rlp.nonCanonicalSingleByte"
        case .nonCanonicalLongForm: "rlp.nonCanonicalLongForm"
        case .leadingZeroInLength: "rlp.leadingZeroInLength"
        case .lengthTooLarge: "rlp.lengthTooLarge"
        case .trailingBytes: "rlp.trailingBytes"
        case .tooDeep: "rlp.tooDeep"
        case .expectedBytes: "rlp.expectedBytes"
        case .expectedList: "rlp.expectedList"
        case .integerLeadingZero: "rlp.integerLeadingZero"
        case .integerTooLarge: "rlp.integerTooLarge"
        }
    }

    /// One sentence naming the rule, the byte offset and what was found there.
    public var description: String {
        switch self {
        case .truncated(let offset, let needed, let available):
            "RLP item at byte \(offset) needs \(EncodingText.plural(needed, "byte")), but only \(available) remain"
        case .nonCanonicalSingleByte(let offset, let byte):
            "RLP item at byte \(offset) must encode the single byte \(Self.hex(byte)) as itself,"
                + " got it behind the prefix 0x81"
        case .nonCanonicalLongForm(let offset, let length):
            "RLP item at byte \(offset) must use the short form for a length below 56,"
                + " got the long form for length \(length)"
        case .leadingZeroInLength(let offset):
            "RLP item at byte \(offset) must write its length without leading zero bytes, got a leading zero"
        case .lengthTooLarge(let offset):
            "RLP item at byte \(offset) must declare a length below 2^63, got a larger one"
        case .trailingBytes(let offset, let count):
            "RLP data must hold exactly one item, got \(EncodingText.plural(count, "extra byte")) from byte \(offset)"
        case .tooDeep(let offset, let limit):
            "RLP lists must nest at most \(limit) deep, got a deeper list at byte \(offset)"
        case .expectedBytes:
            "RLP item must be a byte string, got a list"
        case .expectedList:
            "RLP item must be a list, got a byte string"
        case .integerLeadingZero:
            "RLP integer must have no leading zero bytes (zero is the empty string), got a leading zero"
        case .integerTooLarge(let maxBytes, let got):
            "RLP integer must fit in \(EncodingText.plural(maxBytes, "byte")), got \(got)"
        }
    }

    private static func hex(_ byte: UInt8) -> String { "0x" + Hex.encode([byte]) }
}

// MARK: - Items

/// One RLP item: a byte string or a list of items. RLP has no other types; integers are
/// big-endian byte strings without leading zeros, text is its bytes (Yellow Paper B).
public enum RLPItem: Sendable, Hashable {
    /// A byte string (possibly empty).
    case bytes([UInt8])
    /// A list of items (possibly empty).
    case list([RLPItem])

    /// The UTF-8 bytes of `text` as a byte string.
    public static func utf8(_ text: String) -> RLPItem { .bytes(Array(text.utf8)) }

    /// `value` as RLP integer: minimal big-endian bytes, zero as the empty string.
    public static func uint<T: FixedWidthInteger & UnsignedInteger>(_ value: T) -> RLPItem {
        .bytes(RLP.minimalBigEndian(value))
    }

    /// An integer of any size given as big-endian bytes (e.g. a 256-bit value); leading zero
    /// bytes are dropped so the item is canonical.
    public static func uint(bigEndian bytes: [UInt8]) -> RLPItem {
        .bytes(Array(bytes.drop { $0 == 0 }))
    }

    /// The canonical encoding of this item.
    public var encoded: [UInt8] { RLP.encode(self) }

    /// The bytes of a byte string; throws `.expectedBytes` for a list.
    public func asBytes() throws(RLPError) -> [UInt8] {
        guard case .bytes(let bytes) = self else { throw .expectedBytes }
        return bytes
    }

    /// The items of a list; throws `.expectedList` for a byte string.
    public func asList() throws(RLPError) -> [RLPItem] {
        guard case .list(let items) = self else { throw .expectedList }
        return items
    }

    /// Reads a byte string as an unsigned integer of type `T`. Throws `.expectedBytes`,
    /// `.integerLeadingZero` (non-minimal, including `0x00` for zero) or `.integerTooLarge`.
    public func asUInt<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type = T.self) throws(RLPError) -> T {
        try RLP.uint(fromBigEndian: asBytes())
    }

    /// Reads a byte string as the big-endian bytes of an unsigned integer of at most
    /// `maxBytes` bytes (32 for Ethereum's 256-bit quantities), checking it is minimal.
    public func asUIntBytes(maxBytes: Int = 32) throws(RLPError) -> [UInt8] {
        let bytes = try asBytes()
        try RLP.checkInteger(bytes, maxBytes: maxBytes)
        return bytes
    }
}

// MARK: - Encoding and decoding

/// RLP encoding and strict decoding (Yellow Paper, Appendix B).
///
/// Prefixes: 0x00–0x7f a single byte as itself; 0x80–0xb7 a string of 0–55 bytes;
/// 0xb8–0xbf a longer string, followed by its length in 1–8 bytes; 0xc0–0xf7 a list whose
/// payload is 0–55 bytes; 0xf8–0xff a longer list, followed by its payload length.
public enum RLP {
    /// Default limit on list nesting for `decode`. Ethereum transactions nest at most three
    /// deep (access lists); the limit keeps hostile input from exhausting the stack.
    public static let defaultMaxDepth = 32

    /// Encodes `item` canonically.
    public static func encode(_ item: RLPItem) -> [UInt8] {
        var out = [UInt8]()
        append(item, to: &out)
        return out
    }

    /// Decodes exactly one item from `data`.
    ///
    /// Rejects, with the offset of the offending item: truncated data (`.truncated`, also for
    /// empty input), a single byte below 0x80 wrapped as `0x81 xx`, the long form for lengths
    /// below 56, lengths with leading zero bytes, lengths beyond 2^63, lists nested deeper than
    /// `maxDepth`, and any bytes after the item (`.trailingBytes`).
    public static func decode(_ data: [UInt8], maxDepth: Int = defaultMaxDepth) throws(RLPError) -> RLPItem {
        let reader = Reader(data: data, maxDepth: maxDepth)
        let (item, next) = try reader.item(at: 0, end: data.count, depth: 0)
        guard next == data.count else { throw .trailingBytes(offset: next, count: data.count - next) }
        return item
    }

    /// `value` as minimal big-endian bytes: no leading zeros, and zero as no bytes at all.
    public static func minimalBigEndian<T: FixedWidthInteger & UnsignedInteger>(_ value: T) -> [UInt8] {
        var out = [UInt8]()
        var rest = value
        while rest != 0 {
            out.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
        return out.reversed()
    }

    /// Reads minimal big-endian `bytes` back as a `T`; the empty string is zero. Throws
    /// `.integerLeadingZero` or `.integerTooLarge`.
    public static func uint<T: FixedWidthInteger & UnsignedInteger>(
        fromBigEndian bytes: [UInt8],
        as type: T.Type = T.self
    ) throws(RLPError) -> T {
        try checkInteger(bytes, maxBytes: T.bitWidth / 8)
        return bytes.reduce(T.zero) { $0 << 8 | T($1) }
    }

    static func checkInteger(_ bytes: [UInt8], maxBytes: Int) throws(RLPError) {
        guard bytes.first != 0 else { throw .integerLeadingZero }
        guard bytes.count <= maxBytes else { throw .integerTooLarge(maxBytes: maxBytes, got: bytes.count) }
    }

    // MARK: Internals

    private static func append(_ item: RLPItem, to out: inout [UInt8]) {
        switch item {
        case .bytes(let bytes):
            if bytes.count == 1, bytes[0] < 0x80 {
                out.append(bytes[0])
            } else {
                appendHeader(base: 0x80, length: bytes.count, to: &out)
                out.append(contentsOf: bytes)
            }
        case .list(let items):
            var payload = [UInt8]()
            for child in items { append(child, to: &payload) }
            appendHeader(base: 0xc0, length: payload.count, to: &out)
            out.append(contentsOf: payload)
        }
    }

    /// Short form `base + length` below 56, else `base + 55 + n` and the length in n bytes.
    private static func appendHeader(base: UInt8, length: Int, to out: inout [UInt8]) {
        if length < 56 {
            out.append(base + UInt8(length))
        } else {
            let lengthBytes = minimalBigEndian(UInt(length))
            out.append(base + 55 + UInt8(lengthBytes.count))
            out.append(contentsOf: lengthBytes)
        }
    }

    /// A recursive-descent reader over `data`; every position is an absolute offset.
    private struct Reader {
        let data: [UInt8]
        let maxDepth: Int

        /// Reads the item starting at `offset`, which must end by `end`; returns the item and
        /// the offset just past it. `depth` counts the lists enclosing this item.
        func item(at offset: Int, end: Int, depth: Int) throws(RLPError) -> (RLPItem, Int) {
            guard offset < end else { throw .truncated(offset: offset, needed: 1, available: 0) }
            let prefix = data[offset]
            switch prefix {
            case 0x00...0x7f:
                return (.bytes([prefix]), offset + 1)
            case 0x80...0xbf:
                let (start, length) = try payload(at: offset, end: end, shortBase: 0x80)
                if length == 1, data[start] < 0x80 {
                    throw .nonCanonicalSingleByte(offset: offset, byte: data[start])
                }
                return (.bytes(Array(data[start..<(start + length)])), start + length)
            default:
                let (start, length) = try payload(at: offset, end: end, shortBase: 0xc0)
                guard depth < maxDepth else { throw .tooDeep(offset: offset, limit: maxDepth) }
                var items = [RLPItem]()
                var next = start
                while next < start + length {
                    let (child, after) = try item(at: next, end: start + length, depth: depth + 1)
                    items.append(child)
                    next = after
                }
                return (.list(items), next)
            }
        }

        /// Parses the header of the item at `offset` (a string if `shortBase` is 0x80, a list
        /// if 0xc0) and returns where its payload starts and how long it is, after checking
        /// that header and payload fit before `end` and that the length is canonical.
        private func payload(at offset: Int, end: Int, shortBase: UInt8) throws(RLPError) -> (Int, Int) {
            let available = end - offset
            let shortLength = Int(data[offset] - shortBase)
            if shortLength < 56 {
                guard 1 + shortLength <= available else {
                    throw .truncated(offset: offset, needed: 1 + shortLength, available: available)
                }
                return (offset + 1, shortLength)
            }
            let lengthOfLength = shortLength - 55  // 1…8
            guard 1 + lengthOfLength <= available else {
                throw .truncated(offset: offset, needed: 1 + lengthOfLength, available: available)
            }
            let lengthBytes = data[(offset + 1)...(offset + lengthOfLength)]
            guard lengthBytes.first != 0 else { throw .leadingZeroInLength(offset: offset) }
            let length = lengthBytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard length <= UInt64(Int.max - 16) else { throw .lengthTooLarge(offset: offset) }
            guard length >= 56 else { throw .nonCanonicalLongForm(offset: offset, length: Int(length)) }
            let headerLength = 1 + lengthOfLength
            guard Int(length) <= available - headerLength else {
                throw .truncated(offset: offset, needed: headerLength + Int(length), available: available)
            }
            return (offset + headerLength, Int(length))
        }
    }
}
