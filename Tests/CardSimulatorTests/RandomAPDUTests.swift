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
        let params = try InitParameters(
            pin: pin, puk: Secret(utf8: "987654321098"), pairingSecret: PairingSecret(password: "x"))
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
        let keycardINS: [UInt8] = [
            0xA4, 0xFE, 0x12, 0x13, 0x10, 0x11, 0x14, 0xF2, 0x20, 0x21, 0x22, 0xD0, 0xD1, 0xD2,
            0xD3, 0xD4, 0xC0, 0xC1, 0xC2, 0xCA, 0xE2, 0xFD, 0x84,
        ]
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
                #expect(
                    [0x90, 0x61, 0x62, 0x63, 0x67, 0x69, 0x6A, 0x6B, 0x6C, 0x6D, 0x6E, 0x6F].contains(sw1),
                    "\(state) #\(i): \(Hex.encode(apdu)) → SW \(Hex.encode(response.suffix(2)))")
                if i % 500 == 499 {  // a reader reset, then the applet selected again
                    card.reset()
                    _ = try card.transmit([
                        0x00, 0xA4, 0x04, 0x00, 0x09, 0xA0, 0x00, 0x00, 0x08, 0x04, 0x00, 0x01, 0x01, 0x01,
                    ])
                }
            }
        }
    }
}

/// The same robustness on the 4.0 profile: random outer APDUs against a blank and an initialized
/// 4.0 card (no session), and random inner APDUs sealed through an open Secure Channel V2 to a
/// logged-in card with a key (the session is opened again whenever the card closes it).
@Suite("Random APDUs against the 4.0 simulator")
struct RandomAPDUTests4 {
    static let statusWords: Set<UInt8> = [0x90, 0x61, 0x62, 0x63, 0x67, 0x69, 0x6A, 0x6B, 0x6C, 0x6D, 0x6E, 0x6F]
    static let innerINS: [UInt8] = [
        0xFE, 0xF2, 0x20, 0x21, 0x22, 0xD0, 0xD1, 0xD2, 0xD3, 0xD4, 0xC0, 0xC1, 0xC2, 0xC3,
        0xC4, 0xC5, 0x84, 0xCA, 0xE2, 0x11, 0x12, 0x13, 0x14,
    ]

    static func provisioned(seed: UInt64) -> SimulatedCard {
        let card = SimulatedCard(profile: .v4_0, random: SeededRandom(seed: seed))
        let identity = PrivateKey.generate(using: SeededRandom(seed: seed + 100))
        try! card.provisionIdentity(
            certificate: IdentityCertificate.make(identityKey: identity, caKey: IdentityCertificate.simulatorCA),
            privateKey: identity.secret.withUnsafeBytes { Array($0) })
        return card
    }

    @Test(arguments: [UInt64(20_261_126), 41])
    func randomOuterAndInnerAPDUs_alwaysAnswerWithAStatusWord(seed: UInt64) throws {
        print("RandomAPDUTests4 seed \(seed)")
        let random = SeededRandom(seed: seed)
        let outerINS: [UInt8] = [0xA4, 0x10, 0x18, 0xFD, 0xF2, 0x20, 0xC0, 0x84, 0x11, 0x12]
        for card in [Self.provisioned(seed: seed), Self.provisioned(seed: seed + 1)] {
            _ = try card.transmit([0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.keycardInstance)
            for i in 0..<1_500 {
                let r = random.bytes(6)
                let length = Int(r[1]) % 100
                var apdu: [UInt8] = [r[2] & 1 == 0 ? 0x80 : 0x00, outerINS[Int(r[3]) % outerINS.count], r[4], r[5]]
                if i % 3 != 0 { apdu += [UInt8(length)] + random.bytes(length) }
                let response = try card.transmit(apdu)
                #expect(
                    response.count >= 2 && Self.statusWords.contains(response[response.count - 2]),
                    "#\(i): \(Hex.encode(apdu)) → \(Hex.encode(response))")
            }
        }
        // Inner commands through an open session on a logged-in card with a key.
        let card = Self.provisioned(seed: seed + 2)
        let client = KeycardCommandSet(transport: card, random: SeededRandom(seed: seed + 3))
        var steps = CardWalkSteps()
        steps.certificate = { _ in }
        let pin = Secret(utf8: "123456")
        steps.initializationV2 = { _ in
            try InitParametersV2(pin: pin, puk: Secret(utf8: "987654321098"), duressPIN: Secret(utf8: "654321"))
        }
        steps.pin = pin
        let session = CardSession(commands: client)
        _ = try session.open(steps)
        _ = try client.loadKey(seed: Secret(bytes: [UInt8](repeating: 7, count: 64)))
        var answered = 0
        for i in 0..<1_500 {
            let r = random.bytes(6)
            let data = random.bytes(Int(r[1]) % 120)
            let command = CommandAPDU(
                ins: Self.innerINS[Int(r[3]) % Self.innerINS.count], p1: r[4], p2: r[5], data: data)
            // A PIN change or a wrong PIN may lock this session out: walk in again with whatever works.
            if !client.isSecureChannelOpen { _ = try? session.open(steps) }
            guard client.isSecureChannelOpen else { continue }
            switch Result(catching: { () throws(CardError) in try client.transmit(command, route: .secure) }) {
            case .success(let response):
                answered += 1
                #expect(
                    Self.statusWords.contains(response.sw1), "#\(i): \(command) → SW \(String(response.sw, radix: 16))")
            case .failure(let error):
                // The card closing the session (plain 69 82 / 69 85) is an answer too; nothing else may end it.
                #expect(
                    ["card.channelClosed", "card.responseMACMismatch"].contains(error.id),
                    "#\(i): \(command) → \(error)")
            }
        }
        #expect(answered > 1_000, "only \(answered) inner commands were answered inside a session")
    }
}
