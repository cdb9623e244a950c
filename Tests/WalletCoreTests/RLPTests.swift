// RLP encoding and strict decoding. Source of the examples: the RLP specification, Ethereum Yellow
// Paper Appendix B, and its worked examples on ethereum.org (ethereum/ethereum-org-website
// public/content/developers/docs/data-structures-and-encoding/rlp/index.md, section "Examples"):
// "dog", ["cat","dog"], "", [], 0, '\x00', 15, 1024, the set-theoretic three and "Lorem ipsum…".
// The malformed inputs are hand-made, one per canonical-form rule of the specification.
import KCSTestSupport
import Testing
import WalletCore

/// One published example: a name, the item, its encoding in hex.
struct RLPExample: Sendable, CustomTestStringConvertible {
    let name: String
    let item: RLPItem
    let hex: String
    var testDescription: String { name }
}

/// One malformed input and the exact error decoding must report.
struct RLPBadInput: Sendable, CustomTestStringConvertible {
    let name: String
    let hex: String
    let maxDepth: Int
    let error: RLPError
    var testDescription: String { name }

    init(_ name: String, _ hex: String, maxDepth: Int = RLP.defaultMaxDepth, _ error: RLPError) {
        self.name = name
        self.hex = hex
        self.maxDepth = maxDepth
        self.error = error
    }
}

private let lorem = "Lorem ipsum dolor sit amet, consectetur adipisicing elit"

@Suite("RLP")
struct RLPTests {
    static let examples: [RLPExample] = [
        .init(name: "the string dog", item: .utf8("dog"), hex: "83646f67"),
        .init(name: "the list [cat, dog]", item: .list([.utf8("cat"), .utf8("dog")]), hex: "c88363617483646f67"),
        .init(name: "the empty string", item: .bytes([]), hex: "80"),
        .init(name: "the empty list", item: .list([]), hex: "c0"),
        .init(name: "the integer 0", item: .uint(0 as UInt64), hex: "80"),
        .init(name: "the byte 0x00", item: .bytes([0x00]), hex: "00"),
        .init(name: "the integer 15", item: .uint(15 as UInt64), hex: "0f"),
        .init(name: "the integer 1024", item: .uint(1024 as UInt64), hex: "820400"),
        .init(
            name: "the set-theoretic three [[], [[]], [[], [[]]]]",
            item: .list([.list([]), .list([.list([])]), .list([.list([]), .list([.list([])])])]),
            hex: "c7c0c1c0c3c0c1c0"),
        .init(
            name: "the 56-byte Lorem ipsum string", item: .utf8(lorem),
            hex: "b838" + Hex.encode(Array(lorem.utf8))),
    ]

    @Test("spec example encodes exactly", arguments: examples)
    func encode_specExample_matchesBytes(_ example: RLPExample) {
        #expect(RLP.encode(example.item).hex == example.hex)
        #expect(example.item.encoded.hex == example.hex)
    }

    @Test("spec example decodes exactly", arguments: examples)
    func decode_specExample_matchesItem(_ example: RLPExample) throws {
        #expect(try RLP.decode(Hex.decode(example.hex)) == example.item)
    }

    @Test("integers 0, 15 and 1024 read back from their encodings")
    func asUInt_specIntegers_readBack() throws {
        #expect(try RLP.decode([0x80]).asUInt(UInt64.self) == 0)
        #expect(try RLP.decode([0x0f]).asUInt(UInt64.self) == 15)
        #expect(try RLP.decode([0x82, 0x04, 0x00]).asUInt(UInt64.self) == 1024)
    }

    @Test("integer boundaries round-trip", arguments: [0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff_ffff, UInt64.max])
    func uint_boundary_roundTrips(_ value: UInt64) throws {
        let encoded = RLPItem.uint(value).encoded
        #expect(try RLP.decode(encoded).asUInt(UInt64.self) == value)
        #expect(RLP.minimalBigEndian(value).first != 0)
    }

    @Test("length boundaries: 55 bytes short form, 56 bytes long form, 0x80 as a one-byte string")
    func decode_lengthBoundaries_areAccepted() throws {
        let s55 = [UInt8](repeating: 0x61, count: 55)
        #expect(RLP.encode(.bytes(s55)).prefix(1) == [0xb7])
        #expect(try RLP.decode(RLP.encode(.bytes(s55))) == .bytes(s55))
        let s56 = s55 + [0x61]
        #expect(RLP.encode(.bytes(s56)).prefix(2) == [0xb8, 0x38])
        #expect(try RLP.decode([0x81, 0x80]) == .bytes([0x80]))
        let long = [UInt8](repeating: 0x62, count: 1024)
        #expect(RLP.encode(.bytes(long)).prefix(3) == [0xb9, 0x04, 0x00])
        #expect(try RLP.decode(RLP.encode(.bytes(long))) == .bytes(long))
        let bigList = RLPItem.list([RLPItem](repeating: .utf8("dog"), count: 20))
        #expect(RLP.encode(bigList).prefix(2) == [0xf8, 80])
        #expect(try RLP.decode(RLP.encode(bigList)) == bigList)
    }

    @Test("nesting exactly at the depth limit is accepted")
    func decode_depthAtLimit_isAccepted() throws {
        #expect(try RLP.decode([0xc2, 0xc1, 0xc0], maxDepth: 3) == .list([.list([.list([])])]))
    }

    // MARK: Malformed and non-canonical input, one test per rule

    static let badInputs: [RLPBadInput] = [
        .init("empty input", "", .truncated(offset: 0, needed: 1, available: 0)),
        .init("single byte 0x05 wrapped as 0x81 0x05", "8105", .nonCanonicalSingleByte(offset: 0, byte: 0x05)),
        .init("single byte 0x7f wrapped inside a list", "c2817f", .nonCanonicalSingleByte(offset: 1, byte: 0x7f)),
        .init("string long form for length 5", "b805" + "6161616161", .nonCanonicalLongForm(offset: 0, length: 5)),
        .init("list long form for length 3", "f803010203", .nonCanonicalLongForm(offset: 0, length: 3)),
        .init(
            "leading zero in length of length", "b90038" + String(repeating: "61", count: 56),
            .leadingZeroInLength(offset: 0)),
        .init("string payload cut short", "83646f", .truncated(offset: 0, needed: 4, available: 3)),
        .init("long-form length bytes missing", "b8", .truncated(offset: 0, needed: 2, available: 1)),
        .init(
            "long-form payload cut short", "b838" + String(repeating: "61", count: 10),
            .truncated(offset: 0, needed: 58, available: 12)),
        .init("list payload cut short", "c3c0c0", .truncated(offset: 0, needed: 4, available: 3)),
        .init("child overruns its list", "c28361", .truncated(offset: 1, needed: 4, available: 2)),
        .init("length beyond 2^63", "bfffffffffffffffff", .lengthTooLarge(offset: 0)),
        .init(
            "length of 2 GiB with 5 bytes present", "bb7fffffff",
            .truncated(
                offset: 0, needed: 2_147_483_652,
                available: 5)),
        .init("trailing byte after the item", "8000", .trailingBytes(offset: 1, count: 1)),
        .init("second item after a list", "c0c0c0", .trailingBytes(offset: 1, count: 2)),
        .init("four lists deep with limit 3", "c3c2c1c0", maxDepth: 3, .tooDeep(offset: 3, limit: 3)),
        .init(
            "33 lists deep with the default limit", Hex.encode((0...32).reversed().map { 0xc0 + UInt8($0) }),
            .tooDeep(offset: 32, limit: 32)),
    ]

    @Test("malformed input fails with the exact error and offset", arguments: badInputs)
    func decode_malformedInput_failsWithExactError(_ bad: RLPBadInput) throws {
        let bytes = try Hex.decode(bad.hex)
        let error = caught { () throws(RLPError) in _ = try RLP.decode(bytes, maxDepth: bad.maxDepth) }
        #expect(error == bad.error)
        #expect(error?.id == bad.error.id)
    }

    // MARK: Reading integers and kinds

    @Test("an integer with a leading zero byte is rejected", arguments: [[0x00], [0x00, 0x01]] as [[UInt8]])
    func asUInt_leadingZero_fails(_ bytes: [UInt8]) {
        let error = caught { () throws(RLPError) in _ = try RLPItem.bytes(bytes).asUInt(UInt64.self) }
        #expect(error == .integerLeadingZero)
    }

    @Test("a 9-byte integer does not fit in UInt64; 33 bytes exceed 256 bits")
    func asUInt_tooLong_failsIntegerTooLarge() throws {
        let nine = RLPItem.bytes([UInt8](repeating: 1, count: 9))
        #expect(
            caught { () throws(RLPError) in _ = try nine.asUInt(UInt64.self) }
                == .integerTooLarge(maxBytes: 8, got: 9))
        let big = RLPItem.bytes([UInt8](repeating: 1, count: 33))
        #expect(caught { () throws(RLPError) in _ = try big.asUIntBytes() } == .integerTooLarge(maxBytes: 32, got: 33))
        #expect(try RLPItem.bytes([UInt8](repeating: 1, count: 32)).asUIntBytes().count == 32)
    }

    @Test("uint(bigEndian:) drops leading zeros so the item is canonical")
    func uintBigEndian_leadingZeros_areDropped() {
        #expect(RLPItem.uint(bigEndian: [0, 0, 4, 0]) == .bytes([4, 0]))
        #expect(RLPItem.uint(bigEndian: [0, 0]) == .bytes([]))
    }

    @Test("asBytes on a list and asList on bytes fail with the kind expected")
    func asBytesAsList_wrongKind_fail() {
        #expect(caught { () throws(RLPError) in _ = try RLPItem.list([]).asBytes() } == .expectedBytes)
        #expect(caught { () throws(RLPError) in _ = try RLPItem.bytes([]).asList() } == .expectedList)
        #expect(caught { () throws(RLPError) in _ = try RLPItem.list([]).asUInt(UInt8.self) } == .expectedBytes)
    }

    // MARK: Rendered messages, one per error kind

    @Test(
        "each error kind renders its full message",
        arguments: [
            (
                RLPError.truncated(offset: 0, needed: 4, available: 3), "rlp.truncated",
                "RLP item at byte 0 needs 4 bytes, but only 3 remain"
            ),
            (
                .nonCanonicalSingleByte(offset: 0, byte: 0x05), "rlp.nonCanonicalSingleByte",
                "RLP item at byte 0 must encode the single byte 0x05 as itself, got it behind the prefix 0x81"
            ),
            (
                .nonCanonicalLongForm(offset: 0, length: 5), "rlp.nonCanonicalLongForm",
                "RLP item at byte 0 must use the short form for a length below 56, got the long form for length 5"
            ),
            (
                .leadingZeroInLength(offset: 0), "rlp.leadingZeroInLength",
                "RLP item at byte 0 must write its length without leading zero bytes, got a leading zero"
            ),
            (
                .lengthTooLarge(offset: 0), "rlp.lengthTooLarge",
                "RLP item at byte 0 must declare a length below 2^63, got a larger one"
            ),
            (
                .trailingBytes(offset: 1, count: 1), "rlp.trailingBytes",
                "RLP data must hold exactly one item, got 1 extra byte from byte 1"
            ),
            (
                .tooDeep(offset: 3, limit: 3), "rlp.tooDeep",
                "RLP lists must nest at most 3 deep, got a deeper list at byte 3"
            ),
            (.expectedBytes, "rlp.expectedBytes", "RLP item must be a byte string, got a list"),
            (.expectedList, "rlp.expectedList", "RLP item must be a list, got a byte string"),
            (
                .integerLeadingZero, "rlp.integerLeadingZero",
                "RLP integer must have no leading zero bytes (zero is the empty string), got a leading zero"
            ),
            (.integerTooLarge(maxBytes: 8, got: 9), "rlp.integerTooLarge", "RLP integer must fit in 8 bytes, got 9"),
        ])
    func error_eachKind_rendersFullMessage(_ error: RLPError, _ id: String, _ message: String) {
        #expect(error.id == id)
        #expect(error.description == message)
    }
}
