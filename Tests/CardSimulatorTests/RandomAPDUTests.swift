// Robustness: whatever bytes a client sends, the simulated applet answers with a status word and
// never crashes or hangs — in every state a session passes through. Seeded; the seed is printed.
import CardProtocol
import CardSimulator
import Testing
import WalletCore
import WalletCrypto

@Suite("Random APDUs against the simulator")
struct RandomAPDUTests {
    /// Cards in the states a client meets: blank, initialized, paired with an open channel and a key.
    static func cards(seed: UInt64) throws -> [(String, SimulatedCard)] {
        let blank = SimulatedCard(random: SeededRandom(seed: seed))
        let initialized = SimulatedCard(random: SeededRandom(seed: seed + 1))
        let open = SimulatedCard(random: SeededRandom(seed: seed + 2))
        let pin = Secret(utf8: "123456")
        let params = try InitParameters(pin: pin, puk: Secret(utf8: "987654321098"), pairingSecret: PairingSecret(password: "x"))
        let initCommands = KeycardCommandSet(transport: initialized, random: SeededRandom(seed: 5))
        _ = try initCommands.select()
        try initCommands.initialize(params)
        let session = CardSession(transport: open, random: SeededRandom(seed: 6))
        _ = try session.open(SessionOptions(pin: pin, initialization: params))
        _ = try session.commands.loadKey(seed: Secret(bytes: [UInt8](repeating: 7, count: 64)))
        return [("blank", blank), ("initialized", initialized), ("open channel", open)]
    }

    @Test(arguments: [UInt64(20_251_121), 7, 99])
    func randomAPDUs_alwaysAnswerWithAStatusWord(seed: UInt64) throws {
        print("RandomAPDUTests seed \(seed)")
        let random = SeededRandom(seed: seed)
        let keycardINS: [UInt8] = [0xA4, 0xFE, 0x12, 0x13, 0x10, 0x11, 0x14, 0xF2, 0x20, 0x21, 0x22, 0xD0, 0xD1, 0xD2,
                                   0xD3, 0xD4, 0xC0, 0xC1, 0xC2, 0xCA, 0xE2, 0xFD, 0x84]
        for (state, card) in try Self.cards(seed: seed) {
            for i in 0..<3_000 {
                let r = random.bytes(6)
                let length = Int(r[0]) % 2 == 0 ? Int(r[1]) % 64 : Int(r[1])  // mostly short, sometimes long
                var apdu: [UInt8] = [r[2] & 1 == 0 ? 0x80 : 0x00, keycardINS[Int(r[3]) % keycardINS.count], r[4], r[5]]
                switch i % 4 {
                case 0: break  // header only (case 1)
                case 1: apdu += [UInt8(length)] + random.bytes(length)  // case 3
                case 2: apdu += [UInt8(length)] + random.bytes(length) + [0x00]  // case 4
                default: apdu += random.bytes(Int(r[1]) % 8)  // malformed lengths
                }
                let response = try card.transmit(apdu)
                #expect(response.count >= 2, "\(state) #\(i): \(Hex.encode(apdu)) → \(Hex.encode(response))")
                if response.count < 2 { return }
                let sw1 = response[response.count - 2]
                #expect([0x90, 0x61, 0x62, 0x63, 0x67, 0x69, 0x6A, 0x6B, 0x6C, 0x6D, 0x6E, 0x6F].contains(sw1),
                        "\(state) #\(i): \(Hex.encode(apdu)) → SW \(Hex.encode(response.suffix(2)))")
                if i % 500 == 499 {  // a reader reset, then the applet selected again
                    card.reset()
                    _ = try card.transmit([0x00, 0xA4, 0x04, 0x00, 0x09, 0xA0, 0x00, 0x00, 0x08, 0x04, 0x00, 0x01, 0x01, 0x01])
                }
            }
        }
    }
}
