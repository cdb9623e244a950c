// Runtime values: exact integers with unboxed fast path, renderings, secrets that never show.
import BigInt
import KCSRuntime
import Testing

/// A stand-in secret payload (the real one is WalletCrypto's Secret, bound by the builtins).
struct TestPayload: SecretPayload {
    let bytes: [UInt8]
    var byteCount: Int { bytes.count }
    func isEqual(to other: any SecretPayload) -> Bool { (other as? TestPayload)?.bytes == bytes }
}

/// A domain value with fields, like an address record.
struct TestRecord: DomainValue {
    let name: String
    let index: Int
    var typeName: String { "record" }
    var text: String { "\(name)#\(index)" }
    var fields: [(name: String, value: Value)] { [("name", .string(name)), ("index", .int(index))] }
}

@Suite("Runtime values")
struct ValueTests {
    @Test func integers_promoteOnOverflowAndComeBack() throws {
        let max = Value.int(Int.max)
        let over = try Value.add(max, .int(1))
        #expect(over == .bigInt(BigInt(Int.max) + 1))
        #expect(try Value.subtract(over, .int(1)) == .int(Int.max))
        let wei = try Value.multiply(.int(1_000_000_000_000_000_000), .int(1_000_000_000_000))
        #expect(wei.text == "1000000000000000000000000000000")
        let two256 = (0..<256).reduce(Value.int(1)) { acc, _ in try! Value.multiply(acc, .int(2)) }
        #expect(two256.text == "115792089237316195423570985008687907853269984665640564039457584007913129639936")
        #expect(try Value.compareIntegers(two256, .int(5)) == 1)
    }

    @Test func division_isFloorDivisionWithMatchingRemainder() throws {
        #expect(try Value.divide(.int(-7), .int(2)) == .int(-4))
        #expect(try Value.remainder(.int(-7), .int(2)) == .int(1))
        #expect(try Value.divide(.int(7), .int(-2)) == .int(-4))
        #expect(try Value.remainder(.int(7), .int(-2)) == .int(-1))
        #expect(throws: Value.ArithmeticError.divisionByZero) { try Value.divide(.int(1), .int(0)) }
        #expect(throws: Value.ArithmeticError.notIntegers("string", "int")) { try Value.add(.string("a"), .int(1)) }
    }

    @Test func text_scalarsListsAndMaps() {
        #expect(Value.null.text == "nil")
        #expect(Value.string("hi").text == "hi")
        #expect(
            Value.list([.string("a\"b"), .int(1), .bytes([0xab, 0x01]), .bool(true)]).text
                == "[\"a\\\"b\", 1, 0xab01, true]")
        let m = Value.map(ValueMap([("address", .string("0xabc")), ("index", .int(0))]))
        #expect(m.text == "address  0xabc\nindex    0")
    }

    @Test func text_listOfRecords_isAnAlignedTable() {
        let rows = Value.list([
            .domain(TestRecord(name: "metamask", index: 0)), .domain(TestRecord(name: "ledger-live", index: 12)),
        ])
        #expect(rows.text == "name         index\nmetamask     0\nledger-live  12")
        // Records with different fields: every field is a column, a missing one an empty cell.
        let mixed = Value.list([
            .map(ValueMap([("name", .string("m")), ("xpub", .string("xpub6…"))])),
            .map(ValueMap([("name", .string("m-0")), ("path", .string("m/0"))])),
        ])
        #expect(mixed.text == "name  xpub    path\nm     xpub6…\nm-0           m/0")
    }

    @Test func json_keepsOrderAndBigIntegersExact() {
        let m = Value.map(
            ValueMap([("z", .int(1)), ("a", .list([.null, .bool(false)])), ("wei", .integer(BigInt(10).power(21)))]))
        #expect(m.json == "{\"z\":1,\"a\":[null,false],\"wei\":\"1000000000000000000000\"}")
        #expect(Value.int(Value.maxSafeJSONInteger).json == "9007199254740991")
        #expect(Value.int(Value.maxSafeJSONInteger + 1).json == "\"9007199254740992\"")
        #expect(Value.string("line\nnext\u{1}").json == "\"line\\nnext\\u0001\"")
        #expect(Value.domain(TestRecord(name: "x", index: 2)).json == "{\"name\":\"x\",\"index\":2}")
    }

    @Test func secrets_neverRender() {
        let s = Value.secret(SecretValue(kind: "mnemonic", payload: TestPayload(bytes: Array("abandon about".utf8))))
        #expect(s.text == "<secret mnemonic>")
        #expect(s.json == "\"<secret mnemonic>\"")
        #expect(Value.list([s]).text == "[<secret mnemonic>]")
        #expect(!Value.map(ValueMap([("m", s)])).json.contains("abandon"))
        #expect(s.typeName == "secret mnemonic")
        #expect(s == .secret(SecretValue(kind: "mnemonic", payload: TestPayload(bytes: Array("abandon about".utf8)))))
    }

    @Test func map_keepsInsertionOrderAndRemoves() {
        var m = ValueMap()
        m["b"] = .int(1)
        m["a"] = .int(2)
        m["b"] = .int(3)
        #expect(m.keys == ["b", "a"] && m["b"] == .int(3))
        m["b"] = nil
        #expect(m.keys == ["a"] && m.count == 1)
    }
}
