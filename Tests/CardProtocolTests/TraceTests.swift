// The APDU trace (docs/habits.md §4: nothing secret is logged once the channel is open) and the
// fault-injecting transport.
import CardProtocol
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

@Suite("APDU trace masks secrets")
struct TraceTests {
    private let pin = "482916"
    private let puk = "739104628355"
    private let privateKeyHex = "5A17C0FFEE5A17C0FFEE5A17C0FFEE5A17C0FFEE5A17C0FFEE5A17C0FFEE5A17"
    private let seedHex = String(repeating: "D3", count: 64)
    private let pairingSecretHex = String(repeating: "7B", count: 32)

    /// Runs every secret-carrying command through an open channel and returns the trace text.
    private func tracedSession() throws -> (APDUTrace, MiniSecureCard) {
        let card = MiniSecureCard(keys: fixedSessionKeys())
        let trace = APDUTrace()
        let commands = KeycardCommandSet(transport: card, random: SeededRandom(seed: 3), trace: trace.sink)
        commands.secureChannel.open(with: card.keys)
        let key = try PrivateKey(bytes: h(privateKeyHex))
        card.reply = { command in
            switch command.ins {
            case 0xD0: return [UInt8](repeating: 0xEE, count: 32) + [0x90, 0x00]
            case 0xC2:
                return TLV(tag: 0xA1, children: [TLV(tag: 0x81, value: h(self.privateKeyHex))]).encoded + [0x90, 0x00]
            case 0xD2: return h("03a3055f01b506aa053f01810346057c020e015904fd0317") + [0x90, 0x00]
            default: return [0x90, 0x00]
            }
        }
        try commands.verifyPIN(ascii(pin))
        try commands.changePIN(ascii(pin))
        try commands.changePUK(ascii(puk))
        try commands.unblockPIN(puk: ascii(puk), newPIN: ascii(pin))
        try commands.changePairingSecret(PairingSecret(bytes: Secret(bytes: h(pairingSecretHex))))
        try commands.loadKey(privateKey: key, chainCode: [UInt8](repeating: 0xCC, count: 32))
        try commands.loadKey(seed: Secret(bytes: h(seedHex)))
        let exported = try commands.exportKey(.derive(CardKeyPath("m/43'/60'/1581'/0'/0")), kind: .privateKey)
        #expect(exported.privateKey?.secret == Secret(bytes: h(privateKeyHex)))
        _ = try commands.generateMnemonic()
        return (trace, card)
    }

    @Test("the trace never contains the PIN, PUK, pairing secret, private key, seed or mnemonic")
    func trace_secretCommands_masked() throws {
        let (trace, card) = try tracedSession()
        // The card received the real bytes…
        #expect(card.received.first?.data == Array(pin.utf8))
        // …but the trace only shows their lengths.
        let text = trace.text.uppercased()
        for secret in [
            Array(pin.utf8).hex, Array(puk.utf8).hex, pairingSecretHex, privateKeyHex, seedHex,
            "03A3055F01B506AA",
        ] {
            #expect(!text.contains(secret.uppercased()), "trace leaks \(secret.prefix(8))…")
        }
        #expect(trace.records.count == 9)
        #expect(trace.records.allSatisfy { $0.secure })
        #expect(
            trace.records.map(\.commandText) == [
                "80 20 00 00 06 <masked 6 bytes>",
                "80 21 00 00 06 <masked 6 bytes>",
                "80 21 01 00 0C <masked 12 bytes>",
                "80 22 00 00 12 <masked 18 bytes>",
                "80 21 02 00 20 <masked 32 bytes>",
                "80 D0 02 00 46 <masked 70 bytes>",
                "80 D0 03 00 40 <masked 64 bytes>",
                "80 C2 01 00 14 8000002B8000003C8000062D8000000000000000",
                "80 D2 04 00",
            ])
        #expect(trace.records[7].responseText == "<masked 36 bytes> 9000")
        #expect(trace.records[8].responseText == "<masked 24 bytes> 9000")
        #expect(trace.records[5].responseText == String(repeating: "EE", count: 32) + " 9000")
        #expect(trace.records[0].description == "→ [SC] VERIFY PIN: 80 20 00 00 06 <masked 6 bytes>\n  ← 9000")
    }

    @Test("a failed exchange is traced with its error")
    func trace_transportFailure_recorded() {
        let trace = APDUTrace()
        let transport = FaultInjectingTransport(
            wrapping: ConstantTransport(h("9000")), faults: [.dropConnection(afterAPDUs: 0)])
        let commands = KeycardCommandSet(transport: transport, random: SeededRandom(seed: 3), trace: trace.sink)
        #expect(caught { () throws(CardError) in _ = try commands.getData() } != nil)
        #expect(
            trace.text == "→ GET DATA: 80 CA 00 00\n  ✗ the connection to the card was lost "
                + "(fault injected: connection dropped after APDU 0)")
        trace.clear()
        #expect(trace.records.isEmpty)
    }

    @Test("TracingChannel above a plain channel shows the wire, masked the same way")
    func tracingChannel_plain() throws {
        let trace = APDUTrace()
        let channel = TracingChannel(
            wrapping: PlainChannel(transport: ConstantTransport(h("63C1"))), secure: false, sink: trace.sink)
        let response = try channel.send(try KeycardCommands.verifyPIN(ascii(pin)))
        #expect(response.sw == 0x63C1)
        #expect(trace.text == "→ VERIFY PIN: 80 20 00 00 06 <masked 6 bytes>\n  ← 63C1")
    }
}

@Suite("Fault injection")
struct FaultInjectionTests {
    @Test("drop after N: APDUs 1…N pass, every later one fails with connectionLost")
    func drop_afterN() throws {
        let inner = ConstantTransport(h("9000"))
        let transport = FaultInjectingTransport(wrapping: inner, faults: [.dropConnection(afterAPDUs: 2)])
        #expect(try transport.transmit(h("80CA0000")) == h("9000"))
        #expect(try transport.transmit(h("80CA0000")) == h("9000"))
        for _ in 0..<2 {
            let error = caught { () throws(TransportError) in _ = try transport.transmit(h("80CA0000")) }
            #expect(error == .connectionLost(detail: "fault injected: connection dropped after APDU 2"))
        }
        #expect(inner.sent.count == 2)
        #expect(transport.count == 4)
    }

    @Test("flip a byte of the answer to APDU N only; negative indexes count from the end")
    func flip_byteOfAnswerN() throws {
        let transport = FaultInjectingTransport(
            wrapping: ConstantTransport(h("01029000")),
            faults: [
                .flipResponseByte(apdu: 2, byteIndex: 0, mask: 0xFF),
                .flipResponseByte(apdu: 3, byteIndex: -1),
            ])
        #expect(try transport.transmit([0x80, 0xCA, 0, 0]) == h("01029000"))
        #expect(try transport.transmit([0x80, 0xCA, 0, 0]) == h("FE029000"))
        #expect(try transport.transmit([0x80, 0xCA, 0, 0]) == h("01029001"))
        #expect(try transport.transmit([0x80, 0xCA, 0, 0]) == h("01029000"))
    }

    @Test("a flipped status word reaches the command set as an unexpected status, not a crash")
    func flip_statusWord_unexpected() {
        let transport = FaultInjectingTransport(
            wrapping: ConstantTransport(h("9000")),
            faults: [.flipResponseByte(apdu: 1, byteIndex: -1, mask: 0x01)])
        let commands = KeycardCommandSet(transport: transport, random: SeededRandom(seed: 1))
        #expect(
            caught { () throws(CardError) in _ = try commands.getData() } == .unexpected(command: .getData, sw: 0x9001))
    }
}
