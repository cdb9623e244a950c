// Short APDUs (ISO 7816-4 §5.1; docs/keycard-protocol.md §2), TLV (§2), and the T=0 procedure
// bytes handled by PlainChannel (§2: 61 XX → GET RESPONSE, 6C XX → resend with Le).
import CardProtocol
import KCSTestSupport
import Testing
import WalletCrypto

@Suite("APDU encoding and parsing")
struct APDUTests {
    @Test(
        "short APDU cases 1–4 encode as CLA INS P1 P2 [Lc data] [Le]",
        arguments: [
            (CommandAPDU(ins: 0xD3), "80D30000"),
            (CommandAPDU(cla: 0x00, ins: 0xC0, le: 0x10), "00C0000010"),
            (CommandAPDU(ins: 0x20, data: Array("123456".utf8)), "8020000006313233343536"),
            (CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, data: [0xA0, 0x00], le: 0x00), "00A4040002A00000"),
        ])
    func encode_shortCases_bytes(_ apdu: CommandAPDU, _ expected: String) throws {
        #expect(try apdu.encoded().hex == expected.lowercased())
    }

    @Test("255 data bytes fit in a short APDU; 256 are refused as an invalid command")
    func encode_lengthLimit() throws {
        #expect(try CommandAPDU(ins: 0xE2, data: [UInt8](repeating: 7, count: 255)).encoded().count == 5 + 255)
        let error = caught { () throws(TransportError) in
            _ = try CommandAPDU(ins: 0xE2, data: [UInt8](repeating: 7, count: 256)).encoded()
        }
        #expect(error == .invalidCommand(detail: "command data is 256 bytes; a short APDU carries at most 255"))
    }

    @Test("a command's description shows the header and length, never the data")
    func commandDescription_hidesData() {
        let apdu = CommandAPDU(ins: 0x20, data: Array("123456".utf8))
        #expect(apdu.description == "80 20 00 00 (6 bytes)")
    }

    @Test("a response splits into data and SW1 SW2")
    func parseResponse_dataAndSW() throws {
        let response = try ResponseAPDU(bytes: h("A30902010302010501010090 00"))
        #expect(response.data == h("A309020103020105010100"))
        #expect(response.sw1 == 0x90 && response.sw2 == 0x00)
        #expect(response.sw == 0x9000)
        #expect(response.isOK)
        #expect(response.bytes == h("A3090201030201050101009000"))
        #expect(try ResponseAPDU(bytes: [0x63, 0xC2]) == ResponseAPDU(sw: 0x63C2))
    }

    @Test("fewer than two bytes is a malformed response at the transport level", arguments: [[], [0x90]] as [[UInt8]])
    func parseResponse_short_malformed(_ bytes: [UInt8]) {
        let error = caught { () throws(TransportError) in _ = try ResponseAPDU(bytes: bytes) }
        #expect(error?.id == "transport.malformedResponse")
        #expect(
            error
                == .malformedResponse(
                    detail: "\(bytes.count) byte\(bytes.count == 1 ? "" : "s") received, "
                        + "a response needs at least the 2-byte status word"))
    }
}

@Suite("BER-TLV")
struct TLVTests {
    @Test(
        "lengths: one byte below 80, 81 LL up to 255, 82 LL LL above",
        arguments: [
            (0, "00"), (0x7F, "7f"), (0x80, "8180"), (0xFF, "81ff"), (0x100, "820100"), (0x1234, "821234"),
        ])
    func encodeLength_forms(_ length: Int, _ expected: String) {
        #expect(TLV.encodeLength(length).hex == expected)
    }

    @Test("a value of 130 bytes round-trips through the 81 form")
    func roundTrip_longForm() throws {
        let field = TLV(tag: 0xA4, value: [UInt8](repeating: 0x55, count: 130))
        #expect(field.encoded.prefix(3) == [0xA4, 0x81, 0x82])
        #expect(try TLV.parse(field.encoded) == [field])
    }

    @Test("the 82 LL LL form and a non-minimal 81 form are accepted when parsing")
    func parse_lenientLengths() throws {
        #expect(
            try TLV.parse(h("8E82000201028D8101FF")) == [TLV(tag: 0x8E, value: [1, 2]), TLV(tag: 0x8D, value: [0xFF])])
    }

    @Test("nested templates: children parse the value; unknown fields are skipped by tag lookup")
    func nested_templates() throws {
        let inner = [TLV(tag: 0x80, value: [1]), TLV(tag: 0x99, value: [2, 3]), TLV(tag: 0x81, value: [4])]
        let outer = TLV(tag: 0xA1, children: inner)
        #expect(outer.encoded.hex == "a10a80010199020203810104")
        let parsed = try TLV.parseFirst(outer.encoded + [0xDE, 0xAD])  // trailing bytes after the template are ignored
        #expect(try parsed.children() == inner)
        #expect(try parsed.children().first(tag: 0x81)?.value == [4])
        #expect(try parsed.children().first(tag: 0x82) == nil)
    }

    @Test(
        "malformed TLV names the offset and the reason",
        arguments: [
            ("80", 1, "tag 80 has no length byte"),
            ("8005010203", 0, "tag 80 declares 5 bytes, only 3 follow"),
            ("808301", 1, "tag 80: length byte 83 is not 00–7F, 81 or 82"),
            ("8081", 2, "tag 80: the 1-byte length runs past the end"),
        ])
    func parse_malformed_offsets(_ hex: String, _ offset: Int, _ reason: String) {
        let error = caught { () throws(CardError) in _ = try TLV.parse(h(hex)) }
        #expect(error == .malformedTLV(offset: offset, reason: reason))
    }

    @Test("the reader takes fields in order and checks tags")
    func reader_expectingTags() throws {
        var reader = TLVReader(h("020103020105"))
        #expect(try reader.next(expecting: 0x02).value == [3])
        #expect(try reader.next(ifTag: 0x01) == nil)
        #expect(try reader.next(ifTag: 0x02)?.value == [5])
        #expect(reader.isAtEnd)
        var other = TLVReader(h("010100"))
        #expect(
            caught { () throws(CardError) in _ = try other.next(expecting: 0x02) }
                == .malformedTLV(offset: 0, reason: "expected tag 02, got 01"))
    }
}

/// A transport that answers from a queue and records what it got.
private final class QueueTransport: CardTransport {
    var answers: [[UInt8]]
    private(set) var sent: [String] = []
    init(_ answers: [[UInt8]]) { self.answers = answers }
    func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        sent.append(command.hex)
        guard !answers.isEmpty else { throw .connectionLost(detail: "queue empty") }
        return answers.removeFirst()
    }
}

@Suite("T=0 procedure bytes in PlainChannel")
struct PlainChannelTests {
    @Test("61 XX: GET RESPONSE 00 C0 00 00 XX, data appended across rounds")
    func send_61XX_getResponseRounds() throws {
        let transport = QueueTransport([h("6104"), h("AABBCCDD6102"), h("EEFF9000")])
        let response = try PlainChannel(transport: transport).send(CommandAPDU(ins: 0xCA))
        #expect(transport.sent == ["80ca0000", "00c0000004", "00c0000002"])
        #expect(response == ResponseAPDU(data: h("AABBCCDDEEFF"), sw: 0x9000))
    }

    @Test("6C XX: the same command again with Le = XX")
    func send_6CXX_resendWithLe() throws {
        let transport = QueueTransport([h("6C20"), h("0102639000")])
        let response = try PlainChannel(transport: transport).send(
            CommandAPDU(cla: 0x00, ins: 0xA4, p1: 4, data: [0xA0]))
        #expect(transport.sent == ["00a4040001a0", "00a4040001a020"])
        #expect(response == ResponseAPDU(data: h("010263"), sw: 0x9000))
    }

    @Test("61 XX then an error status keeps the data gathered so far with the final SW")
    func send_61ThenError_finalSW() throws {
        let transport = QueueTransport([h("01026101"), h("6F00")])
        let response = try PlainChannel(transport: transport).send(CommandAPDU(ins: 0xCA))
        #expect(response == ResponseAPDU(data: [1, 2], sw: 0x6F00))
    }

    @Test("a card that never stops asking is cut off with malformedResponse")
    func send_endless61_malformed() {
        let transport = QueueTransport(Array(repeating: h("6101"), count: 100))
        let error = caught { () throws(CardError) in
            _ = try PlainChannel(transport: transport).send(CommandAPDU(ins: 0xCA))
        }
        #expect(
            error
                == .malformedResponse(command: .getData, detail: "the card still asks for GET RESPONSE after 64 rounds")
        )
        #expect(transport.sent.count == 65)
    }

    @Test("a transport failure becomes CardError.transport, a response under 2 bytes too")
    func send_transportErrors_wrapped() {
        let empty = QueueTransport([])
        #expect(
            caught { () throws(CardError) in _ = try PlainChannel(transport: empty).send(CommandAPDU(ins: 0xCA)) }
                == .transport(.connectionLost(detail: "queue empty")))
        let short = QueueTransport([[0x90]])
        let error = caught { () throws(CardError) in _ = try PlainChannel(transport: short).send(CommandAPDU(ins: 0xCA))
        }
        #expect(error?.id == "card.transport.malformedResponse")
    }
}
