// Integration: the real protocol client (CardProtocol: `CardSession`, `KeycardCommandSet`,
// `SecureChannel`) against the real applet simulator (CardSimulator: `SimulatedCard`), in process,
// for every 3.1 command and the error paths of docs/keycard-protocol.md §7–§13. Expected values come from
// the spec (§16.1 V7, §16.2) and from WalletCore's own BIP-32 derivation, never from either side
// under test.
//
// Credentials: PIN 123456 and PUK 987654321098, so the default duress PIN (the first six PUK digits,
// §7.2) is 987654 and differs from the PIN: a normal login is not a duress login. The duress tests
// choose their duress PIN explicitly (or use PUK 123456789012 to show the default case).
import CardProtocol
import Testing
import WalletCore
import WalletCrypto

@testable import CardSimulator

// MARK: - Fixture shared by the integration and fault-injection tests

/// Values and steps the integration tests share.
enum IntegrationFixture {
    static let pin = "123456"
    static let puk = "987654321098"
    /// PBKDF2 of `KeycardDefaultPairing` (§7.1, §16.2), given as bytes so no test pays for PBKDF2.
    static let pairingToken = bytes("675DEABB0D7C724B4A36CAAD0E280826159E89886F7082535D431E924848BCF1")

    /// The V7 mnemonic (§16.1) and the values §16.2 lists for it.
    static let v7Mnemonic =
        "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal will"
    static let v7KeyUID = bytes("b98373b5f78c88bdd753fe8fc3e3300bc8060d8b723a10ea062ca63554a23e7a")
    static let v7MasterPublic = bytes(
        "04CC620F846055ED43995391CA5E490C52251EA40453F64A0515BEF84C24A653A7C4E02B9DE56F66D9EE58DC6B591B534F5A20C0550B2C33A086B90B866CF70799"
    )
    static let v7M44_60_0_0_0Public = bytes(
        "048a6a9c9cd67a7ef12e40ffd9c2028d14eb488c4b485179c360ea9fbf55621d118f5cf4bdb4525a91b4d9d373d7146607063119fb64b29d00e27fef1d017bc206"
    )
    static let v7M44_60_0Public = bytes(
        "044A028E010E80D02C4AE3B6321476DCED2891ACBEE8B353F942296EE24C5696B0412B8015B18ED1D0D67BBB6B14D18F7A2ABF52B746BBD5D94F09BBBFE7AFBD31"
    )
    static let v7M44_60_0ChainCode = bytes("FEDA0ED1C9EA4991EB377888B030E01D571797C70BF79EE3C8FC91AF448C795B")
    static let v7EIP1581Private = bytes("F95DEAC2B5A925A03D33C3894D87A6619DBCF2834C5B8AD376CA76089809DCBC")
    static let v7EIP1581Public = bytes(
        "04E7370D118461E1AB01F3E86E88C4B0C7B92CECB79C5E320CEF73DDA912F173BEAE74DF15090B6405A274963C054CDFE6AC7843A302C260390D1FE776008F310E"
    )
    static let v7DuressM44_60_0_0_0Public = bytes(
        "04B3AB5CEF6F459F4525EE434E3D257B70667BE9C3AAD3881D310F764242BBB382DB8F73EE389A66980B92B44B4289D0F03AA542F6CA4DDBF41D2805079CB79287"
    )

    static func bytes(_ hex: String) -> [UInt8] { try! [UInt8](hex: hex) }
    static func secret(_ text: String) -> Secret { Secret(bytes: Array(text.utf8)) }
    static var pairingSecret: PairingSecret { try! PairingSecret(bytes: Secret(bytes: pairingToken)) }
    static func path(_ text: String) -> CardKeyPath { try! CardKeyPath(text) }

    /// The 64-byte BIP-39 seed of the V7 mnemonic, empty passphrase.
    static var v7Seed: Secret { try! Mnemonic(phrase: v7Mnemonic).seed() }
    /// WalletCore's master key of the V7 seed: the reference every card derivation is checked against.
    static var v7Master: ExtendedKey { try! ExtendedKey.master(seed: v7Seed) }
    static func v7Key(_ path: String) -> ExtendedKey { try! v7Master.derive(path) }

    static func initParameters(pin: String = pin, puk: String = puk, duressPIN: String? = nil) -> InitParameters {
        try! InitParameters(
            pin: secret(pin), puk: secret(puk), pairingSecret: pairingSecret,
            duressPIN: duressPIN.map(secret))
    }

    /// A fresh, blank, in-memory card of applet 3.1.0 (5 pairing slots).
    static func card(seed: UInt64, profile: AppletProfile = .v3_1_0) -> SimulatedCard {
        SimulatedCard(profile: profile, random: SeededRandom(seed: seed))
    }

    /// The walk options: INIT a blank card with the fixture's credentials, PAIR, verify `pin`.
    static func walkOptions(verifying pin: String? = pin, duressPIN: String? = nil, puk: String = puk) -> SessionOptions
    {
        SessionOptions(pin: pin.map(secret), initialization: initParameters(puk: puk, duressPIN: duressPIN))
    }

    /// A blank card walked to an open channel with the PIN verified.
    static func readyCard(
        seed: UInt64, clientSeed: UInt64 = 1000, duressPIN: String? = nil, puk: String = puk
    ) throws(CardError) -> (card: SimulatedCard, commands: KeycardCommandSet, pairing: Pairing) {
        let card = card(seed: seed)
        let commands = KeycardCommandSet(transport: card, random: SeededRandom(seed: clientSeed))
        let result = try CardSession(commands: commands).open(walkOptions(duressPIN: duressPIN, puk: puk))
        return (card, commands, result.pairing!)
    }

    /// A ready card with the V7 seed loaded.
    static func readyCardWithV7(
        seed: UInt64
    ) throws(CardError) -> (card: SimulatedCard, commands: KeycardCommandSet, pairing: Pairing) {
        let (card, commands, pairing) = try readyCard(seed: seed)
        let uid = try commands.loadKey(seed: v7Seed)
        guard uid == v7KeyUID else {
            throw .malformedResponse(command: .loadKey, detail: "unexpected key UID \(uid.hex)")
        }
        return (card, commands, pairing)
    }

    /// SELECT, OPEN SECURE CHANNEL, MUTUALLY AUTHENTICATE and (optionally) VERIFY PIN again.
    static func reopen(_ commands: KeycardCommandSet, pairing: Pairing, pin: String? = pin) throws(CardError) {
        try commands.select()
        try commands.openSecureChannel(pairing: pairing)
        if let pin { try commands.verifyPIN(secret(pin)) }
    }

    /// True for the error a dropped connection must produce (never a card status word).
    static func isConnectionLost(_ error: CardError) -> Bool {
        if case .transport(.connectionLost) = error { return true }
        return false
    }
}

/// A transport that flips one bit of one command APDU on its way to the card (a tampered wrapped
/// command: the card's MAC check must fail).
private final class CommandTamperingTransport: CardTransport {
    let inner: CardTransport
    /// The APDU (counted from 1) to tamper with, and the byte to flip.
    var target: (apdu: Int, byteIndex: Int)?
    private(set) var count = 0

    init(wrapping inner: CardTransport) { self.inner = inner }

    func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        count += 1
        var bytes = command
        if let target, target.apdu == count {
            let i = target.byteIndex >= 0 ? target.byteIndex : bytes.count + target.byteIndex
            bytes[i] ^= 0x01
        }
        return try inner.transmit(bytes)
    }
}

// MARK: - Tests

@Suite("Client against simulator: every command and its error paths")
struct ClientAgainstSimulatorTests {
    typealias F = IntegrationFixture

    // MARK: session walk, INIT, PAIR

    @Test func sessionWalk_blankCard_initThenSelectShowsVersion31With5FreeSlots_then4AfterPair() throws {
        let card = F.card(seed: 1)
        let commands = KeycardCommandSet(transport: card, random: SeededRandom(seed: 2))

        let blank = try commands.select()
        #expect(!blank.isInitialized)
        #expect(blank.version == nil && blank.freePairingSlots == nil && blank.instanceUID.isEmpty)
        #expect(blank.secureChannelPublicKey?.uncompressed == card.applet.secureChannelPublicKey)

        try commands.initialize(F.initParameters())
        #expect(commands.applicationInfo == nil, "INIT invalidates the SELECT answer (new channel key)")
        let initialized = try commands.select()
        #expect(initialized.isInitialized)
        #expect(initialized.version == AppletVersion(major: 3, minor: 1))
        #expect(initialized.freePairingSlots == 5)
        #expect(initialized.keyUID.isEmpty && !initialized.hasMasterKey)
        #expect(initialized.capabilities == .all)
        #expect(initialized.instanceUID == card.applet.instanceUID && initialized.instanceUID.count == 16)
        #expect(initialized.secureChannelPublicKey != blank.secureChannelPublicKey, "INIT generates a new channel key")

        let pairing = try commands.pair(secret: F.pairingSecret)
        #expect(pairing.index == 0, "the lowest free slot")
        #expect(try commands.select().freePairingSlots == 4)

        try commands.openSecureChannel(pairing: pairing)
        #expect(commands.isSecureChannelOpen && card.applet.isSecureChannelOpen)
        #expect(try commands.getStatus() == ApplicationStatus(pinRetries: 3, pukRetries: 5, keyInitialized: false))
        try commands.verifyPIN(F.secret(F.pin))
        #expect(try commands.getKeyPath() == DerivationPath(absolute: true, []))
    }

    @Test func cardSessionOpen_blankCard_initializesPairsAndVerifies_thenStoredPairingSkipsPair() throws {
        let card = F.card(seed: 3)
        let session = CardSession(transport: card, random: SeededRandom(seed: 4))
        let first = try session.open(F.walkOptions())
        #expect(first.initialized && first.paired && first.pinVerified)
        #expect(first.applicationInfo.freePairingSlots == 5, "the SELECT after INIT, before PAIR")
        #expect(first.pairing?.index == 0)

        card.reset()
        let again = CardSession(transport: card, random: SeededRandom(seed: 5))
        let second = try again.open(SessionOptions(pin: F.secret(F.pin), pairing: first.pairing))
        #expect(!second.initialized && !second.paired && second.pinVerified)
        #expect(second.applicationInfo.freePairingSlots == 4)
        #expect(second.applicationInfo.instanceUID == first.applicationInfo.instanceUID)
    }

    @Test func cardSessionOpen_blankCardWithoutInitParameters_notInitialized_cardStaysBlank() throws {
        let card = F.card(seed: 6)
        let session = CardSession(transport: card, random: SeededRandom(seed: 7))
        #expect(throws: CardError.notInitialized) { try session.open(SessionOptions(pin: F.secret(F.pin))) }
        #expect(!card.applet.isInitialized)
    }

    @Test func init_onInitializedCard_insNotSupported() throws {
        let (_, commands, _) = try F.readyCard(seed: 8)
        try commands.select()
        // The client needs a pre-init key for INIT; hand it the initialized card's key: the card
        // refuses the INS anyway (§7.2: INIT on an initialized card → 6D00).
        #expect(throws: CardError.insNotSupported(command: .initialize)) {
            try commands.initialize(F.initParameters())
        }
    }

    @Test func pair_wrongSecret_cardCryptogramMismatch_slotStaysFree() throws {
        let (_, commands, _) = try F.readyCard(seed: 9)
        try commands.select()
        let wrong = try PairingSecret(bytes: Secret(bytes: [UInt8](repeating: 0x41, count: 32)))
        #expect(throws: CardError.cardCryptogramMismatch) { try commands.pair(secret: wrong) }
        #expect(try commands.select().freePairingSlots == 4)
    }

    // MARK: VERIFY PIN / UNBLOCK PIN

    @Test func verifyPIN_wrongPIN_countsDown2Then1ThenBlocked_rightPINStillRefused() throws {
        let (_, commands, _) = try F.readyCard(seed: 10)
        let wrong = F.secret("111111")
        #expect(throws: CardError.wrongPIN(triesLeft: 2)) { try commands.verifyPIN(wrong) }
        #expect(throws: CardError.wrongPIN(triesLeft: 1)) { try commands.verifyPIN(wrong) }
        #expect(throws: CardError.wrongPIN(triesLeft: 0)) { try commands.verifyPIN(wrong) }
        #expect(throws: CardError.wrongPIN(triesLeft: 0)) { try commands.verifyPIN(F.secret(F.pin)) }
        #expect(try commands.getStatus() == ApplicationStatus(pinRetries: 0, pukRetries: 5, keyInitialized: false))
        // Blocked means not verified: a PIN command is refused.
        #expect(throws: CardError.conditionsNotSatisfied(command: .storeData)) { try commands.storeData([1]) }
    }

    @Test func verifyPIN_rightPINAfterOneWrong_resetsCounterTo3() throws {
        let (_, commands, _) = try F.readyCard(seed: 11)
        #expect(throws: CardError.wrongPIN(triesLeft: 2)) { try commands.verifyPIN(F.secret("000000")) }
        try commands.verifyPIN(F.secret(F.pin))
        #expect(try commands.getStatus().pinRetries == 3)
    }

    @Test func unblockPIN_wrongPUKCountsDown_rightPUKSetsAndVerifiesNewPIN() throws {
        let (_, commands, pairing) = try F.readyCard(seed: 12)
        for _ in 0..<3 { _ = try? commands.verifyPIN(F.secret("111111")) }
        #expect(try commands.getStatus().pinRetries == 0)

        let newPIN = F.secret("654321")
        #expect(throws: CardError.wrongPUK(triesLeft: 4)) {
            try commands.unblockPIN(puk: F.secret("000000000000"), newPIN: newPIN)
        }
        #expect(throws: CardError.wrongPUK(triesLeft: 3)) {
            try commands.unblockPIN(puk: F.secret("000000000001"), newPIN: newPIN)
        }
        #expect(try commands.getStatus() == ApplicationStatus(pinRetries: 0, pukRetries: 3, keyInitialized: false))

        try commands.unblockPIN(puk: F.secret(F.puk), newPIN: newPIN)
        #expect(try commands.getStatus() == ApplicationStatus(pinRetries: 3, pukRetries: 5, keyInitialized: false))
        // The new PIN is verified by UNBLOCK PIN itself (§10.4): a PIN command works at once.
        try commands.storeData([0xAB])
        #expect(try commands.getData() == [0xAB])

        // In a new selection the old PIN is wrong and the new one works.
        try F.reopen(commands, pairing: pairing, pin: nil)
        #expect(throws: CardError.wrongPIN(triesLeft: 2)) { try commands.verifyPIN(F.secret(F.pin)) }
        try commands.verifyPIN(newPIN)
    }

    @Test func unblockPIN_whenPINNotBlocked_conditionsNotSatisfied_pukNotCounted() throws {
        let (_, commands, _) = try F.readyCard(seed: 13)
        #expect(throws: CardError.conditionsNotSatisfied(command: .unblockPIN)) {
            try commands.unblockPIN(puk: F.secret(F.puk), newPIN: F.secret("654321"))
        }
        #expect(try commands.getStatus().pukRetries == 5)
    }

    @Test func pinCommands_withoutVerifyPIN_conditionsNotSatisfied() throws {
        let (_, commands, pairing) = try F.readyCard(seed: 14)
        try F.reopen(commands, pairing: pairing, pin: nil)
        #expect(throws: CardError.conditionsNotSatisfied(command: .loadKey)) { try commands.loadKey(seed: F.v7Seed) }
        #expect(throws: CardError.conditionsNotSatisfied(command: .storeData)) { try commands.storeData([1]) }
        #expect(throws: CardError.conditionsNotSatisfied(command: .changePIN)) {
            try commands.changePIN(F.secret("222222"))
        }
        #expect(throws: CardError.conditionsNotSatisfied(command: .unpair)) { try commands.unpair(index: 0) }
        // GET STATUS and GENERATE MNEMONIC need only the channel.
        #expect(try commands.getStatus().pinRetries == 3)
        #expect(try commands.generateMnemonic().wordCount == .twelve)
    }

    // MARK: CHANGE PIN / PUK / pairing secret

    @Test func changePIN_newPINVerifiesInNextSession_oldPINIsWrong() throws {
        let (_, commands, pairing) = try F.readyCard(seed: 15)
        try commands.changePIN(F.secret("222222"))
        try commands.storeData([1], slot: .publicData)  // still verified after CHANGE PIN (§10.3)
        try F.reopen(commands, pairing: pairing, pin: nil)
        #expect(throws: CardError.wrongPIN(triesLeft: 2)) { try commands.verifyPIN(F.secret(F.pin)) }
        try commands.verifyPIN(F.secret("222222"))
        #expect(try commands.getStatus().pinRetries == 3)
    }

    @Test func changePUK_newPUKUnblocks_oldPUKIsWrong() throws {
        let (_, commands, _) = try F.readyCard(seed: 16)
        try commands.changePUK(F.secret("111122223333"))
        for _ in 0..<3 { _ = try? commands.verifyPIN(F.secret("000000")) }
        #expect(throws: CardError.wrongPUK(triesLeft: 4)) {
            try commands.unblockPIN(puk: F.secret(F.puk), newPIN: F.secret("654321"))
        }
        try commands.unblockPIN(puk: F.secret("111122223333"), newPIN: F.secret("654321"))
        #expect(try commands.getStatus() == ApplicationStatus(pinRetries: 3, pukRetries: 5, keyInitialized: false))
    }

    @Test func changePairingSecret_oldPairingStillOpens_newPairNeedsTheNewSecret() throws {
        let (_, commands, pairing) = try F.readyCard(seed: 17)
        let newSecret = try PairingSecret(bytes: Secret(bytes: [UInt8](repeating: 0x42, count: 32)))
        try commands.changePairingSecret(newSecret)

        try F.reopen(commands, pairing: pairing)
        #expect(try commands.getStatus().pinRetries == 3, "the existing pairing keeps working")

        try commands.select()
        #expect(throws: CardError.cardCryptogramMismatch) { try commands.pair(secret: F.pairingSecret) }
        let fresh = try commands.pair(secret: newSecret)
        #expect(fresh.index == 1)
        try F.reopen(commands, pairing: fresh)
        #expect(try commands.select().freePairingSlots == 3)
    }

    // MARK: MAC tampering (§9.5, §9.6, §9.8)

    @Test func responseMACTampered_clientReportsMACMismatch_channelClosedUntilNewOpenSC() throws {
        let card = F.card(seed: 18)
        let faulty = FaultInjectingTransport(wrapping: card, faults: [])
        let commands = KeycardCommandSet(transport: faulty, random: SeededRandom(seed: 19))
        let result = try CardSession(commands: commands).open(F.walkOptions())

        faulty.faults = [.flipResponseByte(apdu: faulty.count + 1, byteIndex: 0)]
        #expect(throws: CardError.responseMACMismatch(command: .getStatus)) { try commands.getStatus() }
        #expect(!commands.isSecureChannelOpen)
        #expect(throws: CardError.secureChannelNotOpen(command: .getStatus)) { try commands.getStatus() }

        // A new OPEN SECURE CHANNEL (same selection) restores the channel; the card kept the PIN
        // authorisation (§9.11), so a PIN command works without VERIFY PIN.
        try commands.openSecureChannel(pairing: result.pairing!)
        #expect(try commands.getStatus() == ApplicationStatus(pinRetries: 3, pukRetries: 5, keyInitialized: false))
        try commands.storeData([7, 7])
        #expect(try commands.getData() == [7, 7])
    }

    @Test(arguments: [5, 20, -1])
    func commandMACTampered_cardAnswersPlain6982_clientReportsChannelClosed(byteIndex: Int) throws {
        // byte 5 = first MAC byte, 20 = inside the ciphertext, -1 = last ciphertext byte
        let card = F.card(seed: 20)
        let tamper = CommandTamperingTransport(wrapping: card)
        let commands = KeycardCommandSet(transport: tamper, random: SeededRandom(seed: 21))
        let result = try CardSession(commands: commands).open(F.walkOptions())

        tamper.target = (tamper.count + 1, byteIndex)
        #expect(throws: CardError.channelClosed(command: .storeData)) { try commands.storeData([1, 2, 3]) }
        #expect(!commands.isSecureChannelOpen && !card.applet.isSecureChannelOpen, "both sides closed")
        #expect(throws: CardError.secureChannelNotOpen(command: .getData)) {
            _ = try commands.transmit(KeycardCommands.getData(), route: .secure)
        }

        try commands.openSecureChannel(pairing: result.pairing!)
        #expect(try commands.getData() == [], "the tampered STORE DATA was not executed")
        try commands.storeData([1, 2, 3])  // PIN still verified: a MAC failure does not clear it (§9.11)
        #expect(try commands.getData() == [1, 2, 3])
    }

    // MARK: stale-IV answers (§9.9)

    struct StaleIVCase: Sendable, CustomTestStringConvertible {
        let name: String
        let command: CardProtocol.CommandAPDU
        let sw: UInt16
        let error: CardError
        var testDescription: String { name }
    }

    static let staleIVCases: [StaleIVCase] = [
        StaleIVCase(
            name: "unknown INS 84", command: CardProtocol.CommandAPDU(ins: 0x84), sw: 0x6D00,
            error: .insNotSupported(command: .getChallenge)),
        StaleIVCase(
            name: "unknown INS 84 with 32 data bytes (§16.2)",
            command: CardProtocol.CommandAPDU(ins: 0x84, p1: 0x20, data: [UInt8](repeating: 0x11, count: 32)),
            sw: 0x6D00,
            error: .insNotSupported(command: .getChallenge)),
        StaleIVCase(
            name: "INIT on an initialized card",
            command: CardProtocol.CommandAPDU(ins: 0xFE, data: [UInt8](repeating: 0, count: 32)),
            sw: 0x6D00, error: .insNotSupported(command: .initialize)),
        StaleIVCase(
            name: "SIGN with undefined option bits",
            command: CardProtocol.CommandAPDU(ins: 0xC0, p1: 0x04, data: [UInt8](repeating: 1, count: 32)), sw: 0x6B00,
            error: .wrongP1P2(command: .sign)),
        StaleIVCase(
            name: "PAIR while the channel is open",
            command: CardProtocol.CommandAPDU(ins: 0x12, data: [UInt8](repeating: 2, count: 32)), sw: 0x6985,
            error: .conditionsNotSatisfied(command: .pair)),
        StaleIVCase(
            name: "FACTORY RESET with wrong P1/P2, wrapped", command: CardProtocol.CommandAPDU(ins: 0xFD), sw: 0x6A86,
            error: .incorrectP1P2(command: .factoryReset)),
    ]

    @Test(arguments: staleIVCases)
    func staleIVAnswer_clientDecryptsError_andNextCommandStillWorks(_ c: StaleIVCase) throws {
        let (card, commands, _) = try F.readyCard(seed: 22)
        let response = try commands.transmit(c.command, route: .secure)
        #expect(response.sw == c.sw && response.data.isEmpty)
        #expect(CardError.from(sw: response.sw, command: CardCommand(c.command)) == c.error)
        #expect(commands.isSecureChannelOpen && card.applet.isSecureChannelOpen)
        // The chain re-synchronised: normal commands keep working, twice.
        #expect(try commands.getStatus() == ApplicationStatus(pinRetries: 3, pukRetries: 5, keyInitialized: false))
        try commands.storeData([9])
        #expect(try commands.getData() == [9])
    }

    // MARK: pairing slots (§8)

    @Test func pairingSlots_fullAfter5_noFreePairingSlot_unpairFromPairedSessionFreesOne() throws {
        let (card, commands, first) = try F.readyCard(seed: 23)
        try commands.select()
        var pairings = [first]
        for expected in 1...4 {
            let p = try commands.pair(secret: F.pairingSecret)
            #expect(Int(p.index) == expected)
            pairings.append(p)
        }
        #expect(try commands.select().freePairingSlots == 0)
        #expect(throws: CardError.noFreePairingSlot) { try commands.pair(secret: F.pairingSecret) }
        let other = CardSession(transport: card, random: SeededRandom(seed: 24))
        #expect(throws: CardError.noFreePairingSlot) {
            try other.open(SessionOptions(pin: F.secret(F.pin), pairingSecret: F.pairingSecret))
        }

        try F.reopen(commands, pairing: pairings[0])
        try commands.unpair(index: 3)
        #expect(try commands.select().freePairingSlots == 1)
        #expect(throws: CardError.incorrectP1P2(command: .openSecureChannel)) {
            try commands.openSecureChannel(pairing: pairings[3])
        }
        try commands.select()
        let again = try commands.pair(secret: F.pairingSecret)
        #expect(again.index == 3, "the freed slot is the lowest free one")
        #expect(try commands.select().freePairingSlots == 0)
        try commands.openSecureChannel(pairing: again)
        #expect(try commands.getStatus().pinRetries == 3)
    }

    @Test func unpair_ownSlot_sessionWorksUntilReselect_thenPairingRefused() throws {
        let (_, commands, pairing) = try F.readyCard(seed: 25)
        try commands.unpair(index: pairing.index)
        #expect(try commands.getStatus().pinRetries == 3, "the current session keeps its keys (§8.2)")
        #expect(try commands.select().freePairingSlots == 5)
        #expect(throws: CardError.incorrectP1P2(command: .openSecureChannel)) {
            try commands.openSecureChannel(pairing: pairing)
        }
    }

    @Test func unpair_indexBeyondTable_incorrectP1P2_freeSlot_isNoOp() throws {
        let (_, commands, _) = try F.readyCard(seed: 26)
        #expect(throws: CardError.incorrectP1P2(command: .unpair)) { try commands.unpair(index: 5) }
        #expect(throws: CardError.unknown(command: .unpair)) { try commands.unpair(index: 0x80) }
        try commands.unpair(index: 4)
        #expect(try commands.select().freePairingSlots == 4)
    }

    // MARK: LOAD KEY / EXPORT KEY (§10.5, §10.11)

    @Test func loadKeySeed_v7_returnsKeyUID_selectAndStatusShowTheKey() throws {
        let (_, commands, pairing) = try F.readyCard(seed: 27)
        let uid = try commands.loadKey(seed: F.v7Seed)
        #expect(uid == F.v7KeyUID)
        #expect(try commands.getStatus().keyInitialized)
        #expect(try commands.getKeyPath() == DerivationPath(absolute: true, []))
        try F.reopen(commands, pairing: pairing)
        #expect(commands.applicationInfo?.keyUID == F.v7KeyUID)
        #expect(
            try commands.exportKey(.derive(F.path("m")), kind: .publicKey).publicKey.uncompressed == F.v7MasterPublic)
    }

    @Test func loadKey_extendedKeyFromWalletCore_keyUIDIsSHA256OfItsPublicKey() throws {
        let (_, commands, _) = try F.readyCard(seed: 28)
        let account = F.v7Key("m/44'/60'/0'")
        let uid = try commands.loadKey(extendedKey: account)
        #expect(uid == Hash.sha256(account.publicKey.uncompressed))
        let child = try commands.exportKey(.derive(F.path("m/0/7")), kind: .publicKey)
        #expect(child.publicKey == F.v7Key("m/44'/60'/0'/0/7").publicKey)
    }

    @Test func loadKey_plainKeyPair_onlyEmptyPathWorks() throws {
        let (_, commands, _) = try F.readyCard(seed: 29)
        let key = try PrivateKey(bytes: F.v7EIP1581Private)
        #expect(try commands.loadKey(privateKey: key) == Hash.sha256(key.publicKey.uncompressed))
        let digest = Hash.sha256(Array("plain key".utf8))
        #expect(try commands.sign(digest: digest).publicKey == key.publicKey)
        #expect(throws: CardError.conditionsNotSatisfied(command: .deriveKey)) {
            try commands.deriveKey(F.path("m/1"))
        }
    }

    @Test func exportKey_publicOfM44_60_0_0_0_matchesSpecVector() throws {
        let (_, commands, _) = try F.readyCardWithV7(seed: 30)
        let exported = try commands.exportKey(.derive(F.path("m/44'/60'/0'/0/0")), kind: .publicKey)
        #expect(exported.publicKey.uncompressed == F.v7M44_60_0_0_0Public)
        #expect(exported.privateKey == nil && exported.chainCode == nil)
        #expect(try commands.getKeyPath() == DerivationPath(absolute: true, []), "option derive leaves the path")
    }

    @Test func exportKey_xpubOfM44_60_0_matchesSpecAndWalletCore() throws {
        let (_, commands, _) = try F.readyCardWithV7(seed: 31)
        let exported = try commands.exportKey(.derive(F.path("m/44'/60'/0'")), kind: .extendedPublicKey)
        #expect(exported.publicKey.uncompressed == F.v7M44_60_0Public)
        #expect(exported.chainCode == F.v7M44_60_0ChainCode)
        #expect(exported.privateKey == nil)

        let reference = F.v7Key("m/44'/60'/0'")
        #expect(exported.publicKey == reference.publicKey)
        #expect(exported.chainCode == reference.chainCode)
        let parent = F.v7Key("m/44'/60'")
        let xpub = try exported.extendedPublicKey(
            depth: 3, parentFingerprint: parent.fingerprint, childNumber: ChildIndex(0, hardened: true).raw)
        #expect(xpub.publicString == reference.publicString)
    }

    @Test func exportKey_privateOutsideEIP1581_refused_insideReturnsSpecKey() throws {
        let (_, commands, _) = try F.readyCardWithV7(seed: 32)
        #expect(throws: CardError.conditionsNotSatisfied(command: .exportKey)) {
            try commands.exportKey(.derive(F.path("m/44'/60'/0'/0/0")), kind: .privateKey)
        }
        #expect(throws: CardError.conditionsNotSatisfied(command: .exportKey)) {
            try commands.exportKey(.derive(F.path("m/43'/60'/1581'")), kind: .privateKey)  // only 3 levels
        }
        let exported = try commands.exportKey(.derive(F.path("m/43'/60'/1581'/0'/0")), kind: .privateKey)
        #expect(exported.privateKey.map { $0.secret.withUnsafeBytes { Array($0) } } == F.v7EIP1581Private)
        #expect(exported.publicKey.uncompressed == F.v7EIP1581Public)
        #expect(exported.chainCode == nil)
    }

    @Test func exportKey_xpubInsideEIP1581_refused_publicAllowed() throws {
        let (_, commands, _) = try F.readyCardWithV7(seed: 33)
        #expect(throws: CardError.conditionsNotSatisfied(command: .exportKey)) {
            try commands.exportKey(.derive(F.path("m/43'/60'/1581'/0'/0")), kind: .extendedPublicKey)
        }
        let exported = try commands.exportKey(.derive(F.path("m/43'/60'/1581'/0'/0")), kind: .publicKey)
        #expect(exported.publicKey.uncompressed == F.v7EIP1581Public)
    }

    @Test func exportKey_withoutKey_conditionsNotSatisfied() throws {
        let (_, commands, _) = try F.readyCard(seed: 34)
        #expect(throws: CardError.conditionsNotSatisfied(command: .exportKey)) {
            try commands.exportKey(kind: .publicKey)
        }
    }

    // MARK: DERIVE KEY (§10.6)

    @Test func deriveKey_thenGetStatusKeyPath_andCurrentExportFollowIt() throws {
        let (_, commands, _) = try F.readyCardWithV7(seed: 35)
        try commands.deriveKey(F.path("m/44'/60'/0'/0/0"))
        #expect(try commands.getKeyPath() == DerivationPath("m/44'/60'/0'/0/0"))
        #expect(try commands.exportKey(.current, kind: .publicKey).publicKey.uncompressed == F.v7M44_60_0_0_0Public)

        try commands.deriveKey(F.path("../1"))
        #expect(try commands.getKeyPath() == DerivationPath("m/44'/60'/0'/0/1"))
        try commands.deriveKey(F.path("./5"))
        #expect(try commands.getKeyPath() == DerivationPath("m/44'/60'/0'/0/1/5"))
        #expect(try commands.exportKey(.current, kind: .publicKey).publicKey == F.v7Key("m/44'/60'/0'/0/1/5").publicKey)

        try commands.deriveKey(F.path("m"))
        #expect(try commands.getKeyPath() == DerivationPath(absolute: true, []))
        #expect(throws: CardError.wrongP1P2(command: .deriveKey)) { try commands.deriveKey(F.path("../1")) }
    }

    @Test func deriveKey_pastDepth10_wrongData_currentPathUnchanged() throws {
        let (_, commands, _) = try F.readyCardWithV7(seed: 36)
        try commands.deriveKey(F.path("m/44'/60'/0'/0/0"))
        // 5 + 6 = 11 levels: the client cannot see the total, the card refuses it (§10.6: 6A80).
        #expect(throws: CardError.wrongData(command: .deriveKey)) { try commands.deriveKey(F.path("./1/2/3/4/5/6")) }
        #expect(try commands.getKeyPath() == DerivationPath("m/44'/60'/0'/0/0"))
        // 5 + 5 = 10 is the limit and works.
        try commands.deriveKey(F.path("./1/2/3/4/5"))
        #expect(try commands.getKeyPath().depth == 10)
        // An absolute path of 11 levels never leaves the client.
        #expect(throws: CardError.keyPathTooDeep(depth: 11)) { try CardKeyPath("m/1/2/3/4/5/6/7/8/9/10/11") }
    }

    // MARK: SIGN (§10.9)

    @Test func sign_currentDeriveAndDeriveMakeCurrent_verifyAgainstWalletCoreKeys() throws {
        let (_, commands, _) = try F.readyCardWithV7(seed: 37)
        try commands.deriveKey(F.path("m/44'/60'/0'/0/0"))

        func check(_ option: SignOption, _ path: String, _ label: String) throws {
            let digest = Hash.sha256(Array(label.utf8))
            let signed = try commands.sign(digest: digest, option: option)
            let expected = F.v7Key(path).publicKey
            #expect(signed.publicKey == expected, "\(label): returned public key")
            #expect(Secp256k1.verify(signed.signature.signature, digest: digest, publicKey: expected), "\(label)")
            #expect(signed.signature.signature.isLowS, "\(label): low-S")
            #expect(try signed.signature.recoverPublicKey(digest: digest) == expected, "\(label): recovery id")
            #expect(!Secp256k1.verify(signed.signature.signature, digest: Hash.sha256(digest), publicKey: expected))
        }

        try check(.current, "m/44'/60'/0'/0/0", "current")
        try check(.derive(F.path("m/44'/60'/0'/0/1")), "m/44'/60'/0'/0/1", "derive")
        #expect(try commands.getKeyPath() == DerivationPath("m/44'/60'/0'/0/0"), "derive keeps the current path")
        try check(.deriveAndMakeCurrent(F.path("m/44'/60'/0'/0/2")), "m/44'/60'/0'/0/2", "derive and make current")
        #expect(try commands.getKeyPath() == DerivationPath("m/44'/60'/0'/0/2"))
        try check(.current, "m/44'/60'/0'/0/2", "current after make current")
        try check(.derive(F.path("./3")), "m/44'/60'/0'/0/2/3", "derive from current")
        try check(.derive(F.path("m")), "m", "master")
        #expect(F.v7Key("m").publicKey.uncompressed == F.v7MasterPublic)
    }

    @Test func sign_withoutPIN_conditionsNotSatisfied() throws {
        let (_, commands, pairing) = try F.readyCardWithV7(seed: 38)
        try F.reopen(commands, pairing: pairing, pin: nil)
        #expect(throws: CardError.conditionsNotSatisfied(command: .sign)) {
            try commands.sign(digest: [UInt8](repeating: 3, count: 32))
        }
    }

    @Test func pinlessSign_plainAPDUOnFreshSelect_signsWithThePinlessKey() throws {
        let (_, commands, _) = try F.readyCardWithV7(seed: 39)
        try commands.setPinlessPath(F.path("m/44'/60'/0'/0/0"))

        let trace = APDUTrace()
        commands.trace = trace.sink
        try commands.select()
        #expect(!commands.isSecureChannelOpen)
        let digest = Hash.sha256(Array("pinless".utf8))
        let signed = try commands.sign(digest: digest, option: .pinless)
        #expect(signed.publicKey.uncompressed == F.v7M44_60_0_0_0Public)
        #expect(Secp256k1.verify(signed.signature.signature, digest: digest, publicKey: signed.publicKey))
        let record = try #require(trace.records.last)
        #expect(record.command == .sign && !record.secure)
        #expect(record.commandText == "80 C0 03 00 20 " + digest.hex.uppercased(), "a plain APDU (§10.9)")

        // Without a PIN the other SIGN options are still refused.
        #expect(throws: CardError.secureChannelNotOpen(command: .sign)) { try commands.sign(digest: digest) }
    }

    @Test func pinlessSign_noPinlessPath_referencedDataNotFound() throws {
        let (_, commands, _) = try F.readyCardWithV7(seed: 40)
        try commands.select()
        let digest = [UInt8](repeating: 0x5A, count: 32)
        #expect(throws: CardError.referencedDataNotFound(command: .sign)) {
            try commands.sign(digest: digest, option: .pinless)
        }
    }

    @Test func setPinlessPath_clearedByLoadKey() throws {
        let (_, commands, pairing) = try F.readyCard(seed: 41)
        try commands.loadKey(seed: F.v7Seed)
        try commands.setPinlessPath(F.path("m/44'/60'/0'/0/0"))
        try commands.loadKey(seed: F.v7Seed)
        try F.reopen(commands, pairing: pairing, pin: nil)
        #expect(throws: CardError.referencedDataNotFound(command: .sign)) {
            try commands.sign(digest: [UInt8](repeating: 1, count: 32), option: .pinless)
        }
    }

    // MARK: duress PIN (§10.2)

    @Test func duressPIN_explicit_derivesSpecDuressKey_differentFromMainPINKey_sameMaster() throws {
        let (_, commands, pairing) = try F.readyCard(seed: 42, duressPIN: "999999")
        #expect(try commands.loadKey(seed: F.v7Seed) == F.v7KeyUID)
        let path = F.path("m/44'/60'/0'/0/0")
        let main = try commands.exportKey(.derive(path), kind: .publicKey).publicKey.uncompressed
        #expect(main == F.v7M44_60_0_0_0Public)

        try F.reopen(commands, pairing: pairing, pin: "999999")
        let duress = try commands.exportKey(.derive(path), kind: .publicKey).publicKey.uncompressed
        #expect(duress == F.v7DuressM44_60_0_0_0Public)
        #expect(duress != main)
        #expect(
            try commands.exportKey(.derive(F.path("m")), kind: .publicKey).publicKey.uncompressed == F.v7MasterPublic)
        #expect(commands.applicationInfo?.keyUID == F.v7KeyUID, "the key UID does not reveal the duress login")
        let digest = Hash.sha256(Array("duress".utf8))
        let signed = try commands.sign(digest: digest, option: .derive(path))
        #expect(signed.publicKey.uncompressed == F.v7DuressM44_60_0_0_0Public)

        // The main PIN switches back.
        try F.reopen(commands, pairing: pairing, pin: F.pin)
        #expect(try commands.exportKey(.derive(path), kind: .publicKey).publicKey.uncompressed == main)
    }

    @Test func duressPIN_defaultFromPUK123456789012_equalsPIN_loginRunsInDuressMode() throws {
        // PUK 123456789012 → default duress PIN 123456 = the PIN: duress wins (§10.2).
        let (_, commands, _) = try F.readyCard(seed: 43, puk: "123456789012")
        try commands.loadKey(seed: F.v7Seed)
        let key = try commands.exportKey(.derive(F.path("m/44'/60'/0'/0/0")), kind: .publicKey)
        #expect(key.publicKey.uncompressed == F.v7DuressM44_60_0_0_0Public)
    }

    // MARK: GENERATE MNEMONIC / REMOVE KEY / GENERATE KEY (§10.7, §10.8)

    @Test(arguments: [Mnemonic.WordCount.twelve, .fifteen, .eighteen, .twentyOne, .twentyFour])
    func generateMnemonic_parsesAsValidBIP39_ofTheRequestedLength(_ count: Mnemonic.WordCount) throws {
        let (card, commands, _) = try F.readyCard(seed: 44)
        let mnemonic = try commands.generateMnemonic(wordCount: count)
        #expect(mnemonic.wordCount == count)
        let words = mnemonic.withWords { $0 }
        #expect(words.count == count.rawValue)
        let reparsed = try mnemonic.withPhrase { try Mnemonic(phrase: $0, language: .english) }
        #expect(reparsed == mnemonic)
        #expect(reparsed.entropy.count == count.entropyByteCount)
        #expect(try commands.generateMnemonic(wordCount: count) != mnemonic, "fresh entropy each time")
        #expect(!card.applet.hasKey, "nothing is stored")
    }

    @Test func removeKey_thenSign_conditionsNotSatisfied_selectShowsNoKey() throws {
        let (_, commands, _) = try F.readyCardWithV7(seed: 45)
        try commands.removeKey()
        #expect(try commands.getStatus().keyInitialized == false)
        #expect(throws: CardError.conditionsNotSatisfied(command: .sign)) {
            try commands.sign(digest: [UInt8](repeating: 7, count: 32))
        }
        #expect(try commands.select().keyUID.isEmpty)
    }

    @Test func generateKey_keyUIDIsSHA256OfExportedMasterPublicKey() throws {
        let (_, commands, pairing) = try F.readyCard(seed: 46)
        let uid = try commands.generateKey()
        let master = try commands.exportKey(.derive(F.path("m")), kind: .publicKey)
        #expect(uid.count == 32)
        #expect(uid == Hash.sha256(master.publicKey.uncompressed))
        #expect(uid != F.v7KeyUID)
        try F.reopen(commands, pairing: pairing)
        #expect(commands.applicationInfo?.keyUID == uid)
        // The generated key is extended: derivation works.
        let child = try commands.exportKey(.derive(F.path("m/44'/60'/0'/0/0")), kind: .publicKey)
        #expect(child.publicKey != master.publicKey)
    }

    // MARK: GET DATA / STORE DATA (§10.12)

    @Test func storeDataGetData_roundTrip_wrappedAndPlain_allSlots() throws {
        let (_, commands, _) = try F.readyCard(seed: 47)
        let publicData = Array((0..<127).map { UInt8($0) })
        try commands.storeData(publicData, slot: .publicData)
        try commands.storeData([0x00, 0x03, 0xD0, 0x00, 0x00], slot: .ndef)
        try commands.storeData(Array("cash".utf8), slot: .cash)
        #expect(try commands.getData(.publicData) == publicData)
        #expect(try commands.getData(.ndef) == [0x00, 0x03, 0xD0, 0x00, 0x00])
        #expect(try commands.getData(.cash) == Array("cash".utf8))

        #expect(throws: CardError.wrongData(command: .storeData)) {
            try commands.storeData([UInt8](repeating: 1, count: 128), slot: .publicData)
        }
        try commands.select()  // GET DATA needs no channel and no PIN
        #expect(!commands.isSecureChannelOpen)
        #expect(try commands.getData(.publicData) == publicData)
        #expect(throws: CardError.secureChannelNotOpen(command: .storeData)) { try commands.storeData([1]) }
    }

    // MARK: FACTORY RESET (§10.13)

    @Test func factoryReset_cardBlankAgain_reInitGivesNewInstanceUID_oldPairingRefused() throws {
        let (card, commands, pairing) = try F.readyCard(seed: 48)
        try commands.storeData([1, 2, 3])
        let oldInfo = try #require(commands.applicationInfo)

        try commands.factoryReset()
        #expect(!commands.isSecureChannelOpen && commands.applicationInfo == nil)
        let blank = try commands.select()
        #expect(!blank.isInitialized)
        #expect(blank.secureChannelPublicKey != oldInfo.secureChannelPublicKey)
        #expect(throws: CardError.insNotSupported(command: .factoryReset)) { try commands.factoryReset() }

        try commands.select()  // FACTORY RESET forgets the SELECT answer, even when refused
        try commands.initialize(F.initParameters())
        let reinitialized = try commands.select()
        #expect(reinitialized.isInitialized && reinitialized.freePairingSlots == 5)
        #expect(
            reinitialized.instanceUID != oldInfo.instanceUID && reinitialized.instanceUID == card.applet.instanceUID)
        #expect(throws: CardError.incorrectP1P2(command: .openSecureChannel)) {
            try commands.openSecureChannel(pairing: pairing)
        }

        // Slot 0 taken by a new pairing: the old key no longer matches (MUTUALLY AUTHENTICATE fails).
        try commands.select()
        let fresh = try commands.pair(secret: F.pairingSecret)
        #expect(fresh.index == pairing.index)
        try commands.select()
        #expect(throws: CardError.channelClosed(command: .mutuallyAuthenticate)) {
            try commands.openSecureChannel(pairing: pairing)
        }
        #expect(!commands.isSecureChannelOpen)
        try commands.select()
        try commands.openSecureChannel(pairing: fresh)
        #expect(try commands.getData() == [], "public data was erased")
        #expect(try commands.getStatus() == ApplicationStatus(pinRetries: 3, pukRetries: 5, keyInitialized: false))
    }

    // MARK: IDENTIFY (§11)

    @Test func identify_withoutCertificate_conditionsNotSatisfied_blankAndInChannel() throws {
        let card = F.card(seed: 49)
        let commands = KeycardCommandSet(transport: card, random: SeededRandom(seed: 50))
        try commands.select()
        #expect(throws: CardError.conditionsNotSatisfied(command: .identify)) { try commands.identify() }

        _ = try CardSession(commands: commands).open(F.walkOptions())
        #expect(throws: CardError.conditionsNotSatisfied(command: .identify)) { try commands.identify() }
        #expect(try commands.getStatus().pinRetries == 3, "the wrapped error kept the chain in step")
    }

    @Test func identify_provisionedTestCertificate_verifiesAndRecoversTheCA() throws {
        let card = F.card(seed: 51)
        let identityKey = try PrivateKey(bytes: Hash.sha256(Array("identity".utf8)))
        let caKey = try PrivateKey(bytes: Hash.sha256(Array("test ca".utf8)))
        let certificate = IdentityCertificate.make(identityKey: identityKey, caKey: caKey)
        try card.provisionIdentity(
            certificate: certificate, privateKey: identityKey.secret.withUnsafeBytes { Array($0) })
        let commands = KeycardCommandSet(transport: card, random: SeededRandom(seed: 52))
        try commands.select()
        // Several challenges: the card's IDENTIFY signature is not low-S normalised (§11), so some are high-S.
        for _ in 0..<4 {
            let identity = try commands.identify()
            #expect(identity.certificate == certificate)
            #expect(identity.identityPublicKey == identityKey.publicKey)
            #expect(identity.caPublicKey == caKey.publicKey)
            #expect(identity.issuer == .unknown)
        }
        _ = try CardSession(commands: commands).open(F.walkOptions())
        #expect(try commands.identify().identityPublicKey == identityKey.publicKey, "wrapped in the channel")
    }
}
