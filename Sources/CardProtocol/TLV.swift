/// One BER-TLV field with a one-byte tag, as the Keycard applet writes them
/// (docs/keycard-protocol.md §2): length one byte when < 0x80, otherwise `81 LL`; `82 LL LL` is
/// accepted when parsing and written for values over 255 bytes. Templates nest: a
/// constructed field's value is itself a TLV sequence (`children()`).
public struct TLV: Sendable, Equatable, CustomStringConvertible {
    /// The one-byte tag.
    public let tag: UInt8
    /// The value bytes.
    public let value: [UInt8]

    /// A field with a raw value.
    public init(tag: UInt8, value: [UInt8]) {
        self.tag = tag
        self.value = value
    }

    /// A constructed field whose value is `children` encoded in order.
    public init(tag: UInt8, children: [TLV]) {
        self.init(tag: tag, value: children.flatMap(\.encoded))
    }

    // MARK: - Encoding

    /// `tag ‖ length ‖ value`.
    public var encoded: [UInt8] { [tag] + TLV.encodeLength(value.count) + value }

    /// The shortest length form: `LL` below 0x80, `81 LL` up to 255, `82 LL LL` above.
    public static func encodeLength(_ length: Int) -> [UInt8] {
        precondition(length >= 0 && length <= 0xffff, "TLV length out of range")
        if length < 0x80 { return [UInt8(length)] }
        if length <= 0xff { return [0x81, UInt8(length)] }
        return [0x82, UInt8(length >> 8), UInt8(length & 0xff)]
    }

    // MARK: - Parsing

    /// Parses a sequence of fields that fills `bytes` exactly.
    ///
    /// - Throws: `CardError.malformedTLV` for a missing or unsupported length byte or a value
    ///   that runs past the end; offsets are relative to `bytes`.
    public static func parse(_ bytes: [UInt8]) throws(CardError) -> [TLV] {
        var reader = TLVReader(bytes)
        var out = [TLV]()
        while !reader.isAtEnd { out.append(try reader.next()) }
        return out
    }

    /// Parses exactly one field at the start of `bytes`; anything after it is ignored
    /// (unknown trailing fields, §2).
    public static func parseFirst(_ bytes: [UInt8]) throws(CardError) -> TLV {
        var reader = TLVReader(bytes)
        return try reader.next()
    }

    /// The value parsed as a TLV sequence (a template's fields).
    public func children() throws(CardError) -> [TLV] { try TLV.parse(value) }

    /// `80 (65 bytes)`.
    public var description: String { "\(hexByte(tag)) (\(value.count) bytes)" }
}

extension Array where Element == TLV {
    /// The first field with `tag`, if any; unknown fields are skipped.
    public func first(tag: UInt8) -> TLV? { first { $0.tag == tag } }
}

/// Reads TLV fields one after another, so parsers can take fields in the documented order
/// and ignore whatever follows.
public struct TLVReader: Sendable {
    private let bytes: [UInt8]
    /// Offset of the next unread byte.
    public private(set) var offset: Int = 0

    /// A reader at the start of `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// True when every byte has been read.
    public var isAtEnd: Bool { offset >= bytes.count }

    /// The tag of the next field without consuming it.
    public var nextTag: UInt8? { isAtEnd ? nil : bytes[offset] }

    /// Reads the next field.
    public mutating func next() throws(CardError) -> TLV {
        let start = offset
        guard offset < bytes.count else { throw .malformedTLV(offset: offset, reason: "expected a tag, got the end") }
        let tag = bytes[offset]
        offset += 1
        guard offset < bytes.count else {
            throw .malformedTLV(offset: offset, reason: "tag \(hexByte(tag)) has no length byte")
        }
        let first = bytes[offset]
        offset += 1
        var length: Int
        switch first {
        case 0x00...0x7f:
            length = Int(first)
        case 0x81, 0x82:
            let n = Int(first & 0x7f)
            guard offset + n <= bytes.count else {
                throw .malformedTLV(
                    offset: offset,
                    reason: "tag \(hexByte(tag)): the \(n)-byte length runs past the end")
            }
            length = 0
            for _ in 0..<n {
                length = length << 8 | Int(bytes[offset])
                offset += 1
            }
        default:
            throw .malformedTLV(
                offset: offset - 1,
                reason: "tag \(hexByte(tag)): length byte \(hexByte(first)) is not 00–7F, 81 or 82")
        }
        guard offset + length <= bytes.count else {
            throw .malformedTLV(
                offset: start,
                reason: "tag \(hexByte(tag)) declares \(length) bytes, "
                    + "only \(bytes.count - offset) follow")
        }
        let value = Array(bytes[offset..<(offset + length)])
        offset += length
        return TLV(tag: tag, value: value)
    }

    /// Reads the next field and checks its tag.
    public mutating func next(expecting tag: UInt8) throws(CardError) -> TLV {
        let at = offset
        let field = try next()
        guard field.tag == tag else {
            throw .malformedTLV(offset: at, reason: "expected tag \(hexByte(tag)), got \(hexByte(field.tag))")
        }
        return field
    }

    /// Reads the next field if it has `tag`; otherwise leaves the reader where it is.
    public mutating func next(ifTag tag: UInt8) throws(CardError) -> TLV? {
        guard nextTag == tag else { return nil }
        return try next()
    }
}
