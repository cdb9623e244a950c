import BigInt
import KCSRuntime
import Testing

@testable import KCSBuiltins

@Suite struct CoreTests {
    @Test func len_countsCharactersBytesItemsAndEntries() throws {
        #expect(try Call.run("len", [.string("héllo")]) == .int(5))
        #expect(try Call.run("len", [.bytes([1, 2, 3])]) == .int(3))
        #expect(try Call.run("len", [.list([.int(1), .null])]) == .int(2))
        #expect(try Call.run("len", [.map(ValueMap([("a", .int(1))]))]) == .int(1))
    }

    @Test func type_namesTheValueType() throws {
        #expect(try Call.run("type", [.bytes([0])]) == .string("bytes"))
        #expect(try Call.run("type", [.bigInt(BigInt(1) << 200)]) == .string("int"))
        let m = try Call.run("mnemonic.seed", [.string(Vectors.abandon)])
        #expect(try Call.run("type", [m]) == .string("secret seed"))
        #expect(try Call.run("type", [Call.run("path.parse", [.string("m/0")])]) == .string("path"))
    }

    @Test func str_isOneLine() throws {
        #expect(try Call.run("str", [.int(42)]) == .string("42"))
        #expect(try Call.run("str", [.string("x")]) == .string("x"))
        #expect(
            try Call.run("str", [.map(ValueMap([("a", .list([.int(1), .string("b")]))]))])
                == .string(#"{"a": [1, "b"]}"#))
        #expect(try Call.run("str", [Call.run("path.parse", [.string("m/44h/0")])]) == .string("m/44'/0"))
    }

    @Test func int_readsDecimalHexAndBigEndianBytes() throws {
        #expect(try Call.run("int", [.string("0xff")]) == .int(255))
        #expect(try Call.run("int", [.string("-1_000")]) == .int(-1000))
        #expect(try Call.run("int", [.bytes([0x01, 0x00])]) == .int(256))
        #expect(try Call.run("int", [.bytes([])]) == .int(0))
        let wei = "115792089237316195423570985008687907853269984665640564039457584007913129639935"  // 2^256 - 1
        #expect(try Call.run("int", [.string(wei)]) == .integer(BigInt(wei)!))
        #expect(try Call.run("int", [.bytes([UInt8](repeating: 0xff, count: 32))]) == .integer(BigInt(wei)!))
        #expect(Call.message("int", [.string("12ab")]) == #"int: expected a decimal or 0x hex integer, got "12ab""#)
        #expect(Call.message("int", [.string("")]) == #"int: expected a decimal or 0x hex integer, got """#)
    }

    @Test func hex_writesIntegersAndBytes() throws {
        #expect(try Call.run("hex", [.int(255)]) == .string("0xff"))
        #expect(try Call.run("hex", [.int(0)]) == .string("0x0"))
        #expect(try Call.run("hex", [.bytes([0x00, 0x1c, 0x8a])]) == .string("0x001c8a"))
        #expect(try Call.run("hex", [.integer(BigInt(1) << 64)]) == .string("0x10000000000000000"))
        #expect(Call.message("hex", [.int(-1)]) == "hex: expected an integer of 0 or more, got -1")
    }

    @Test func bytes_fromHexTextIntegers() throws {
        #expect(try Call.run("bytes", [.string("0x1C8a")]) == .bytes([0x1c, 0x8a]))
        #expect(try Call.run("bytes", [.string("hi")]) == .bytes([0x68, 0x69]))
        #expect(try Call.run("bytes", [.string("0x")], [("utf8", nil)]) == .bytes([0x30, 0x78]))
        #expect(try Call.run("bytes", [.int(258)]) == .bytes([1, 2]))
        #expect(try Call.run("bytes", [.int(0)]) == .bytes([0]))
        #expect(try Call.run("bytes", [.int(1)], [("length", .int(4))]) == .bytes([0, 0, 0, 1]))
        #expect(
            Call.message("bytes", [.int(65536)], [("length", .int(2))])
                == "bytes: the value needs 3 bytes, more than --length 2")
        #expect(Call.message("bytes", [.string("0xabc")]) == "hex must have an even number of digits, got 3")
    }

    @Test func hashes_matchPublishedDigests() throws {
        // FIPS 180-2 "abc"; Keccak-256 of the empty string (Ethereum's empty code hash).
        #expect(
            try Call.run("hex", [Call.run("sha256", [.string("abc")])])
                == .string("0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        #expect(
            try Call.run("hex", [Call.run("keccak256", [.bytes([])])])
                == .string("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"))
        #expect(try Call.run("keccak256", [.string("")]) == Call.run("keccak256", [.bytes([])]))
    }

    @Test func range_countsUpDownAndRefusesZeroStep() throws {
        #expect(try Call.run("range", [.int(3)]) == .list([.int(0), .int(1), .int(2)]))
        #expect(try Call.run("range", [.int(1), .int(10), .int(3)]) == .list([.int(1), .int(4), .int(7)]))
        #expect(try Call.run("range", [.int(3), .int(0), .int(-1)]) == .list([.int(3), .int(2), .int(1)]))
        #expect(try Call.run("range", [.int(5), .int(2)]) == .list([]))
        #expect(Call.message("range", [.int(0), .int(5), .int(0)]) == "range: the step must not be 0")
        #expect(
            Call.message("range", [.integer(BigInt(1) << 80)])
                == "range: a range may hold at most 10000000 items, this one holds 1208925819614629174706176")
    }

    @Test func mapsAndLists_helpers() throws {
        let m = Value.map(ValueMap([("b", .int(2)), ("a", .int(1))]))
        #expect(try Call.run("keys", [m]) == .list([.string("b"), .string("a")]))
        #expect(try Call.run("values", [m]) == .list([.int(2), .int(1)]))
        #expect(try Call.run("contains", [m, .string("a")]) == .bool(true))
        #expect(try Call.run("contains", [.list([.int(1), .int(2)]), .int(2)]) == .bool(true))
        #expect(try Call.run("contains", [.string("ethereum"), .string("ther")]) == .bool(true))
        #expect(try Call.run("contains", [.bytes([1, 2, 3]), .bytes([2, 3])]) == .bool(true))
        #expect(try Call.run("contains", [.bytes([1, 2, 3]), .int(4)]) == .bool(false))
        #expect(
            Call.message("contains", [.string("abc"), .int(1)])
                == "contains: argument 2 (item) must be a string, got int")
        let list = Value.list([.int(1)])
        #expect(try Call.run("append", [list, .string("x")]) == .list([.int(1), .string("x")]))
    }

    @Test func strings_joinSplitUpperLower() throws {
        #expect(
            try Call.run("join", [.list([.string("a"), .int(3), .bytes([0xab])]), .string(", ")])
                == .string("a, 3, 0xab"))
        #expect(try Call.run("join", [.list([.string("a"), .string("b")])]) == .string("a b"))
        #expect(try Call.run("split", [.string("  a b\tc ")]) == .list([.string("a"), .string("b"), .string("c")]))
        #expect(
            try Call.run("split", [.string("a,b,,c"), .string(",")])
                == .list([.string("a"), .string("b"), .string(""), .string("c")]))
        #expect(try Call.run("split", [.string("ab"), .string("")]) == .list([.string("a"), .string("b")]))
        #expect(try Call.run("upper", [.string("eth")]) == .string("ETH"))
        #expect(try Call.run("lower", [.string("0xABC")]) == .string("0xabc"))
    }
}
