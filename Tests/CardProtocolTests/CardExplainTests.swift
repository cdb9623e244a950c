// The card trace's decoder and renderer (docs/card-explained.md): commands and answers of both
// generations decoded with the tables of docs/keycard-protocol.md, unknown bytes said to be
// unknown, the ATR byte by byte, saved records read back unchanged.
import CardProtocol
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

extension CardTracer {
    /// A tracer at the explain level installed on `card`, keeping every record.
    static func explaining(_ card: KeycardCommandSet, view: TraceView = TraceView()) -> CardTracer {
        let tracer = CardTracer(level: .explain, view: view, card: "test")
        card.tracer = tracer
        return tracer
    }
}

/// Every record explained with no "unknown"; the command names, when given, in this order.
func expectFullyDecoded(_ tracer: CardTracer, _ names: [String]?, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!tracer.records.isEmpty, sourceLocation: sourceLocation)
    for record in tracer.records {
        let lines = CardTraceRenderer(level: .explain).lines(record)
        let unknown = lines.filter { $0.contains(KeycardExplainer.unknown) }
        #expect(unknown.isEmpty, "exchange \(record.number): \(unknown)", sourceLocation: sourceLocation)
        #expect(record.answer != nil || record.error != nil, sourceLocation: sourceLocation)
    }
    if let names {
        #expect(tracer.records.map { $0.command.command.name } == names, sourceLocation: sourceLocation)
    }
}

private func explain(_ command: String, _ response: String? = nil, _ g: KeycardGeneration = .v3) throws -> String {
    let c = try [UInt8](hex: command.filter { !$0.isWhitespace })
    let r = try response.map { try [UInt8](hex: $0.filter { !$0.isWhitespace }) }
    return try APDUExplanation.explain(command: c, response: r, generation: g)
}

@Suite("Card trace: the decoder")
struct CardExplainTests {
    /// One command of each INS of both generations (docs/keycard-protocol.md §10, §14), with a
    /// line its explanation must hold; none may hold "unknown".
    static let cases: [(KeycardGeneration, String, String?, String)] = [
        (
            .v3, "00A4040009A00000080400010101", "9000",
            "AID A0 00 00 08 04 00 01 01 01 = Keycard applet instance (default)"
        ),
        (
            .v3, "8012000020" + String(repeating: "AB", count: 32), "6A84",
            "SW 6A 84 not enough memory: no free pairing slot"
        ),
        (
            .v3, "8012010020" + String(repeating: "AB", count: 32), "05" + String(repeating: "11", count: 32) + "9000",
            "pairing slot 5"
        ),
        (.v3, "8013020000", "9000", "P1 02 pairing slot 2"),
        (
            .v3, "8010010041" + "04" + String(repeating: "22", count: 64), String(repeating: "33", count: 48) + "9000",
            "P1 01 pairing slot 1"
        ),
        (
            .v3, "8011000020" + String(repeating: "44", count: 32), "6982",
            "SW 69 82 security status not satisfied: the card closed the secure channel (MAC or tag wrong, or a malformed MUTUALLY AUTHENTICATE)"
        ),
        (
            .v3, "8014000020" + String(repeating: "55", count: 32), "6985",
            "SW 69 85 conditions not satisfied: no certificate on this card"
        ),
        (.v3, "80F2010000", "8000002C8000003C800000000000000000000000" + "9000", "current key path m/44'/60'/0'/0/0"),
        (.v3, "8021010000", "6985", "P1 01 the PUK"),
        (.v3, "8022000000", "63C1", "SW 63 C1 verification failed: wrong PUK, 1 try left"),
        (.v3, "80D0030000", "6A80", "P1 03 BIP-32 seed"),
        (.v3, "80D1800008" + "0000000100000002", "9000", "path 1/2 (2 × 4-byte index, bit 31 = hardened)"),
        (.v3, "80D2060000", "9000", "P1 06 checksum 6 bits: 18 words"),
        (.v3, "80D3000000", "9000", "INS D3 REMOVE KEY"),
        (.v3, "80D4000000", String(repeating: "66", count: 32) + "9000", "key UID = SHA-256(master public key) 6666"),
        (
            .v3, "80C0030020" + String(repeating: "77", count: 32), "6A88",
            "SW 6A 88 referenced data not found: no PIN-less path is set"
        ),
        (.v3, "80C1000000", "9000", "no data: the PIN-less path is removed"),
        (.v3, "80C2010100", "6A86", "P1 01 derive, from the master (absolute path) · P2 01 public key"),
        (.v3, "80CA000000", "AABB9000", "stored bytes (2) AABB"),
        (.v3, "80E2000002AABB", "9000", "P1 00 public data slot"),
        (.v3, "80FDAA5500", "9000", "P1 AA confirmation byte AA · P2 55 confirmation byte 55"),
        (.v3, "00C0000010", "9000", "INS C0 GET RESPONSE"),
        (
            .v4, "8010000061" + String(repeating: "11", count: 32) + "04" + String(repeating: "22", count: 64), nil,
            "salt (32 random) 1111"
        ),
        (
            .v4, "80C0010340" + String(repeating: "77", count: 32) + String(repeating: "88", count: 32), "6A81",
            "P1 01 absolute path · P2 03 BIP-340 Schnorr (with tweak)"
        ),
        (.v4, "80C3000000", "6985", "INS C3 EXPORT LEE"),
        (.v4, "80C410000C" + "C0000000" + "80000027" + "80000000", "6A80", "P1 10 16 bytes of entropy"),
        (
            .v4, "80C5010045" + "04" + String(repeating: "22", count: 64) + "80000000", "6985",
            "P1 01 plain ECDH (x coordinate)"
        ),
        (.v4, "8084200000", String(repeating: "99", count: 32) + "9000", "P1 20 32 random bytes asked"),
        (.v4, "80D0040000", "6985", "P1 04 LEE seed (enters LEE mode)"),
        (.v4, "8018000010" + String(repeating: "AB", count: 16), "6982", "INS 18 SECURED APDU (4.0 Secure Channel V2)"),
        (.v4, "80D1000000", "6D00", "INS D1 DERIVE KEY (not in applet 4.0)"),
    ]

    @Test("one command of each instruction of both generations, decoded, nothing unknown")
    func everyInstruction() throws {
        for (g, command, response, expected) in Self.cases where !expected.isEmpty {
            let text = try explain(command, response, g)
            #expect(text.contains(expected), "\(command): \(text)")
            #expect(!text.contains(KeycardExplainer.unknown), "\(command): \(text)")
        }
    }

    @Test("a byte no table has is said to be unknown, never guessed")
    func unknownBytes() throws {
        #expect(try explain("8077000000").contains("INS 77 unknown instruction"))
        #expect(try explain("8077000000", "6A83").contains("SW 6A 83 unknown status word"))
        #expect(try explain("9020000000").contains("CLA 90 unknown class"))
        #expect(try explain("00A4000000").contains("P1 00 unknown selection"))
        #expect(try explain("80F2050000").contains("P1 05 unknown status"))
        #expect(try explain("80D2090000").contains("unknown checksum size (4–8)"))
        #expect(try explain("80F2000000", "A3 03 77 01 00 9000").contains("77 01 unknown tag 00"))
        #expect(try explain("80C2000003010203").contains("unknown path: 3 B is not a multiple of 4"))
        #expect(throws: APDUExplanation.Failure.lengthMismatch(lc: 6, data: 2)) { try explain("80200000061234") }
        #expect(throws: APDUExplanation.Failure.tooShort(what: "the command", count: 3)) { try explain("802000") }
    }

    @Test("SELECT answers of 3.1 (pre-initialized and initialized) and 4.0 (the one-byte-short length)")
    func selectAnswers() throws {
        let pre = try explain(
            "00A4040009A00000080400010101", "8041" + "04" + String(repeating: "AB", count: 64) + "9000")
        #expect(pre.contains("80 41 card channel key 04ABAB") && pre.contains("(pre-initialized: INIT encrypts to it)"))
        let blank4 = Keycard4Recording.selectBlank.hex
        let v4 = try explain("00A4040009A00000080400010101", blank4 + "9000", .v4)
        #expect(
            v4.contains("length byte says 111, the content is 112: the 4.0 applet writes one less; read field by field")
        )
        #expect(v4.contains("8C 01 status 00: not initialized, PIN tries left 0"))
        #expect(
            v4.contains("identity public key (33) 0268DCFE86150560677B35A08228BFCD65E7E2920BABDF922E92633388AA5C7498"))
        #expect(!v4.contains(KeycardExplainer.unknown))
    }

    @Test("the ATR byte by byte: the simulator's pseudo-ATR and a T=1 contact ATR, TCK checked")
    func atr() throws {
        let sim = ATRExplainer.lines(
            try [UInt8](hex: "3B8A80014B657963617264536 96D1F".replacingOccurrences(of: " ", with: ""))
        ).map(\.text)
        #expect(sim.contains("TS 3B direct convention"))
        #expect(sim.contains("T0 8A Y1 TD · 10 historical bytes"))
        #expect(sim.contains("TD1 80 Y2 TD · protocol T=0"))
        #expect(sim.contains("TD2 01 Y3 (none) · protocol T=1"))
        #expect(sim.contains("historical bytes 4B 65 79 63 61 72 64 53 69 6D \"KeycardSim\""))
        #expect(sim.contains("TCK 1F check byte: XOR of T0 … TCK is 00 → correct"))
        var contact: [UInt8] = [0x3B, 0x90, 0x96, 0x81, 0x11, 0xFE]
        contact.append(contact[1...].reduce(0, ^))
        let lines = ATRExplainer.lines(contact).map(\.text)
        #expect(lines.contains("TA1 96 Fi = 512, Di = 32: 16 clock cycles per bit"))
        #expect(lines.contains("TA3 FE T=1 IFSC = 254 bytes"))
        #expect(lines.contains { $0.hasSuffix("→ correct") })
        contact[contact.count - 1] ^= 1
        #expect(ATRExplainer.lines(contact).map(\.text).contains { $0.hasSuffix("→ WRONG") })
    }

    @Test("one secret rule: a PIN sent plain stays off the wire even revealed; the older APDU trace masks by it too")
    func oneSecretRule() {
        let verify = CommandAPDU(ins: 0x20, data: Array("123456".utf8))
        let rule = TraceSensitivity.of(verify, generation: .v3)
        let revealed = TraceView(reveal: true)
        let wire = TraceWire(
            sent: [0x80, 0x20, 0, 0, 6] + Array("123456".utf8), received: [0x69, 0x85], micros: 1, plain: true,
            keeping: rule, view: revealed)
        #expect(wire.sent == [0x80, 0x20, 0, 0, 6])
        #expect(TraceCommand(verify, keeping: rule.command, view: revealed).data == nil)
        // Through a channel the wire is ciphertext and kept as it is.
        let sealed = TraceWire(
            sent: [0x80, 0x18, 0, 0, 2, 0xAB, 0xCD], received: [0xEF, 0x90, 0], micros: 1, plain: false, keeping: rule,
            view: TraceView())
        #expect(sealed.sent.count == 7 && sealed.received.count == 3)
        // A key loaded is kept only when revealed; an exported public key always.
        let load = CommandAPDU(ins: 0xD0, p1: 0x03, data: [1, 2, 3])
        let loadRule = TraceSensitivity.of(load, generation: .v3).command
        #expect(TraceCommand(load, keeping: loadRule, view: TraceView()).data == nil)
        #expect(TraceCommand(load, keeping: loadRule, view: revealed).data == [1, 2, 3])
        // The APDU trace of the command set reads the same rule: a 4.0 INIT's PIN and PUK, EXPORT LEE's keys.
        #expect(TraceMask.policy(for: CommandAPDU(ins: 0xFE, data: Array("123456123456789012".utf8))) == (true, false))
        #expect(TraceMask.policy(for: CommandAPDU(ins: 0xC3, data: [])) == (false, true))
        #expect(TraceMask.policy(for: CommandAPDU(ins: 0xC2, p2: 0x01, data: [])) == (false, false))
    }

    @Test("a record written as JSON reads back equal, secrets as null")
    func recordRoundTrip() throws {
        let record = TraceExchange(
            number: 3, generation: .v4, channel: "V2", card: "sim:x",
            command: TraceCommand(header: [0x80, 0x20, 0, 0], data: nil, count: 6),
            answer: TraceAnswer(data: [], count: 0, sw: 0x63C2),
            wire: [TraceWire(sent: [0x80, 0x18, 0, 0, 1, 2], received: [1, 0x90, 0], micros: 12)],
            steps: [TraceStep(.after, "K", value: nil, count: 32, secret: true)], error: nil,
            explained: [ExplainLine("PIN ••••••")])
        let json = CardTraceRenderer(level: .explain).json(record)
        #expect(json.contains("\"data\":null") && json.contains("\"sent\":\"801800000102\""))
        #expect(try JSONDecoder().decode(TraceExchange.self, from: Data(json.utf8)) == record)
    }
}
