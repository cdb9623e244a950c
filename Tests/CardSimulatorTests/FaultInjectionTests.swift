// "Tag connection lost" must be survivable: the real client against the real simulator with the
// connection cut at every APDU of a full session (SELECT → INIT → SELECT → PAIR ×2 → OPEN SC →
// MUTUALLY AUTHENTICATE → VERIFY PIN) plus LOAD KEY, SIGN and UNPAIR — 11 APDUs — then a card reset
// and a reconnection without the fault, checking that nothing is half done.
//
// Two ways to lose the connection:
// - `FaultInjectingTransport(.dropConnection(afterAPDUs: N))`: APDU N + 1 never reaches the card
//   (N APDUs delivered).
// - `AnswerLosingTransport(lostAnswer: k)`: APDU k reaches the card and is executed, its answer is
//   lost (k APDUs delivered) — the harder case, where the card changed state and the client never
//   learnt it.
//
// "Not half done" — what is checked after the reset, from `d` = the number of APDUs the card
// executed (the simulator executes each APDU atomically, as the applet's transactions do):
// - INIT (APDU 2): SELECT answers either the pre-initialized `80 41 <key>` (d < 2; the full walk then
//   runs from scratch) or the initialized template (d ≥ 2) whose PIN, PUK tries and pairing secret are
//   exactly the ones sent: PAIR with the secret (or the stored pairing) works, GET STATUS shows 3 PIN and
//   5 PUK tries, VERIFY PIN with the PIN succeeds. Never an initialized card that refuses them.
// - PIN tries: always 3 after the reconnection: a drop never costs a try (the only VERIFY PIN sent
//   carries the right PIN). Separate tests show a wrong PIN whose *answer* was lost did count (2 tries
//   left) while the client reported `connectionLost`, not `wrongPIN`.
// - Pairing slot 0: used exactly when PAIR step 2 was executed and UNPAIR was not (5 ≤ d ≤ 10), else
//   free (SELECT's free-slot count 4 or 5). A PAIR cut after step 1 leaves the slot free (the pending
//   step is transient and cleared by the reset). When the slot is used:
//     * the client knows the pairing → OPEN SECURE CHANNEL with it works;
//     * the client does not know it → a leaked slot: a new PAIR gets slot 1, and UNPAIR 0 from that
//       paired, PIN-verified session frees it (free count back to 4 = only the new pairing).
//   When the slot is free but the client holds a pairing (UNPAIR executed, answer lost), OPEN SECURE
//   CHANNEL with it is refused with `6A86` (`incorrectP1P2`) and a new PAIR gets slot 0.
//   Both drivers learn the pairing as soon as PAIR step 2 answers: `KeycardCommandSet.pair` returns
//   it, and `CardSession.open` hands it to `SessionOptions.onPaired` before opening the channel, so a
//   drop at OPEN SECURE CHANNEL, MUTUALLY AUTHENTICATE or VERIFY PIN leaks nothing.
// - Key: SELECT's key UID is the V7 key UID exactly when LOAD KEY was executed (d ≥ 9), else empty;
//   GET STATUS agrees; the current path is still `m` (SIGN used option "derive", which commits nothing).
import CardProtocol
import Foundation
import Testing
import WalletCore
import WalletCrypto

@testable import CardSimulator

/// A transport that delivers APDU `lostAnswer` to the card and then loses the connection: the card
/// executed the command, the client never sees the answer. Every later APDU fails too.
private final class AnswerLosingTransport: CardTransport {
    let inner: CardTransport
    let lostAnswer: Int
    private(set) var count = 0

    init(wrapping inner: CardTransport, lostAnswer: Int) {
        self.inner = inner
        self.lostAnswer = lostAnswer
    }

    func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        count += 1
        guard count <= lostAnswer else { throw .connectionLost(detail: "fault injected: connection gone") }
        let response = try inner.transmit(command)
        if count == lostAnswer {
            throw .connectionLost(detail: "fault injected: answer to APDU \(count) lost")
        }
        return response
    }
}

@Suite("Fault injection: a lost connection is survivable, a flipped byte is a MAC error")
struct FaultInjectionTests {
    typealias F = IntegrationFixture

    /// The APDUs of the scenario, in order.
    static let steps = [
        "SELECT", "INIT", "SELECT", "PAIR step 1", "PAIR step 2", "OPEN SECURE CHANNEL", "MUTUALLY AUTHENTICATE",
        "VERIFY PIN", "LOAD KEY", "SIGN", "UNPAIR",
    ]

    /// How the scenario drives the client.
    enum Driver: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `KeycardCommandSet` step by step; the pairing is kept as soon as PAIR answers.
        case commandSet
        /// `CardSession.open` for the walk; the pairing arrives through `onPaired`.
        case cardSession
        var testDescription: String { rawValue }
    }

    /// Holds the pairing `onPaired` reports (the callback is `@Sendable`).
    final class PairingBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Pairing?
        func set(_ p: Pairing) { lock.withLock { value = p } }
        func get() -> Pairing? { lock.withLock { value } }
    }

    /// What the client got out of the scenario.
    struct Outcome {
        var pairing: Pairing?
        var error: CardError?
    }

    static let digest = Hash.sha256(Array("fault injection".utf8))

    /// The 11-APDU scenario on `commands`; stops at the first error.
    static func runScenario(_ commands: KeycardCommandSet, driver: Driver) -> Outcome {
        var outcome = Outcome()
        do throws(CardError) {
            switch driver {
            case .commandSet:
                try commands.select()
                try commands.initialize(F.initParameters())
                try commands.select()
                outcome.pairing = try commands.pair(secret: F.pairingSecret)
                try commands.openSecureChannel(pairing: outcome.pairing!)
                try commands.verifyPIN(F.secret(F.pin))
            case .cardSession:
                let kept = PairingBox()
                var options = F.walkOptions()
                options.onPaired = { kept.set($0) }
                defer { outcome.pairing = kept.get() }
                _ = try CardSession(commands: commands).open(options)
                outcome.pairing = kept.get()
            }
            try commands.loadKey(seed: F.v7Seed)
            _ = try commands.sign(digest: digest, option: .derive(F.path("m/44'/60'/0'/0/0")))
            try commands.unpair(index: outcome.pairing!.index)
        } catch {
            outcome.error = error
        }
        return outcome
    }

    /// Whether the client holds the pairing after the scenario stopped at APDU `failed` (1-based).
    static func clientKnowsPairing(driver: Driver, failedAt failed: Int) -> Bool {
        switch driver {
        case .commandSet, .cardSession: failed > 5  // PAIR step 2 answered
        }
    }

    /// Reconnects to `card` after a reset and checks the "not half done" rules (file header) for
    /// `delivered` executed APDUs and the pairing the client kept.
    static func expectConsistent(
        _ card: SimulatedCard, delivered d: Int, known: Pairing?, _ label: String
    ) throws {
        card.reset()
        let c = KeycardCommandSet(transport: card, random: SeededRandom(seed: 9_000 + UInt64(d)))
        let info = try c.select()
        let initialized = d >= 2
        #expect(info.isInitialized == initialized, "\(label): INIT all or nothing")
        #expect(card.applet.isInitialized == initialized, "\(label)")
        guard initialized else {
            #expect(info.secureChannelPublicKey?.uncompressed == card.applet.secureChannelPublicKey)
            let walk = try CardSession(commands: c).open(F.walkOptions())
            #expect(walk.initialized && walk.paired && walk.pairing?.index == 0, "\(label): blank card walks again")
            return
        }
        let slotUsed = d >= 5 && d <= 10
        let keyLoaded = d >= 9
        #expect(info.freePairingSlots == (slotUsed ? 4 : 5), "\(label): slot 0 used or free, never pending")
        #expect(info.keyUID == (keyLoaded ? F.v7KeyUID : []), "\(label): key loaded or not")

        let leaked = slotUsed && known == nil
        let pairing: Pairing
        if let known, slotUsed {
            try c.openSecureChannel(pairing: known)
            pairing = known
        } else {
            if let known {
                #expect(throws: CardError.incorrectP1P2(command: .openSecureChannel), "\(label): slot was freed") {
                    try c.openSecureChannel(pairing: known)
                }
                try c.select()
            }
            pairing = try c.pair(secret: F.pairingSecret)
            #expect(pairing.index == (slotUsed ? 1 : 0), "\(label): new pairing slot")
            try c.select()
            try c.openSecureChannel(pairing: pairing)
        }
        #expect(
            try c.getStatus() == ApplicationStatus(pinRetries: 3, pukRetries: 5, keyInitialized: keyLoaded),
            "\(label): no PIN try lost")
        try c.verifyPIN(F.secret(F.pin))
        if keyLoaded {
            #expect(try c.getKeyPath() == DerivationPath(absolute: true, []), "\(label)")
            let key = try c.exportKey(.derive(F.path("m/44'/60'/0'/0/0")), kind: .publicKey)
            #expect(key.publicKey.uncompressed == F.v7M44_60_0_0_0Public, "\(label)")
        }
        if leaked {
            try c.unpair(index: 0)
            #expect(try c.select().freePairingSlots == 4, "\(label): leaked slot 0 recovered by UNPAIR")
        }
    }

    // MARK: connection dropped before APDU N + 1

    @Test(arguments: Driver.allCases, 0...10)
    func dropConnection_afterNAPDUs_connectionLost_cardConsistentAfterReset(driver: Driver, n: Int) throws {
        let label = "\(driver) drop before APDU \(n + 1) (\(Self.steps[n]))"
        let card = F.card(seed: 100 + UInt64(n))
        let faulty = FaultInjectingTransport(wrapping: card, faults: [.dropConnection(afterAPDUs: n)])
        let commands = KeycardCommandSet(transport: faulty, random: SeededRandom(seed: 200 + UInt64(n)))
        let outcome = Self.runScenario(commands, driver: driver)

        let error = try #require(outcome.error, "\(label): the scenario must fail")
        #expect(F.isConnectionLost(error), "\(label): got \(error)")
        #expect(error.statusWord == nil, "\(label): never a card status word")
        #expect(faulty.count == n + 1, "\(label): the client stops at the first failure, no retry")
        #expect(!commands.isSecureChannelOpen, "\(label): the channel state is unknown, so closed")
        #expect(
            (outcome.pairing != nil) == Self.clientKnowsPairing(driver: driver, failedAt: n + 1), "\(label)")
        try Self.expectConsistent(card, delivered: n, known: outcome.pairing, label)
    }

    @Test func noFault_scenarioIs11APDUs_andEndsUnpairedWithKeyLoaded() throws {
        let card = F.card(seed: 99)
        let faulty = FaultInjectingTransport(wrapping: card, faults: [.dropConnection(afterAPDUs: 11)])
        let commands = KeycardCommandSet(transport: faulty, random: SeededRandom(seed: 98))
        let outcome = Self.runScenario(commands, driver: .cardSession)
        #expect(outcome.error == nil)
        #expect(faulty.count == Self.steps.count)
        #expect(outcome.pairing?.index == 0)
        try Self.expectConsistent(card, delivered: 11, known: outcome.pairing, "no fault")
    }

    // MARK: APDU k executed, its answer lost

    @Test(arguments: Driver.allCases, 1...11)
    func answerLost_afterCardExecutedAPDUk_connectionLost_cardConsistentAfterReset(driver: Driver, k: Int) throws {
        let label = "\(driver) answer to APDU \(k) (\(Self.steps[k - 1])) lost"
        let card = F.card(seed: 300 + UInt64(k))
        let lossy = AnswerLosingTransport(wrapping: card, lostAnswer: k)
        let commands = KeycardCommandSet(transport: lossy, random: SeededRandom(seed: 400 + UInt64(k)))
        let outcome = Self.runScenario(commands, driver: driver)

        let error = try #require(outcome.error, "\(label): the scenario must fail")
        #expect(F.isConnectionLost(error), "\(label): got \(error)")
        #expect(lossy.count == k, "\(label): no retry")
        #expect(
            (outcome.pairing != nil) == Self.clientKnowsPairing(driver: driver, failedAt: k), "\(label)")
        try Self.expectConsistent(card, delivered: k, known: outcome.pairing, label)
    }

    @Test func answerLost_pairStep2_leaksSlot0_recoveredByUnpairFromAnotherSession() throws {
        // The worked example of the rules above, spelled out.
        let card = F.card(seed: 500)
        let lossy = AnswerLosingTransport(wrapping: card, lostAnswer: 5)
        let outcome = Self.runScenario(
            KeycardCommandSet(transport: lossy, random: SeededRandom(seed: 501)), driver: .commandSet)
        #expect(outcome.pairing == nil)
        #expect(outcome.error.map(F.isConnectionLost) == true)
        #expect(card.applet.freePairingSlots == 4, "the card stored the pairing")

        card.reset()
        let other = KeycardCommandSet(transport: card, random: SeededRandom(seed: 502))
        let result = try CardSession(commands: other).open(
            SessionOptions(pin: F.secret(F.pin), pairingSecret: F.pairingSecret))
        #expect(result.paired && result.pairing!.index == 1)
        try other.unpair(index: 0)
        #expect(try other.select().freePairingSlots == 4)
        try other.openSecureChannel(pairing: result.pairing!)
        try other.verifyPIN(F.secret(F.pin))
        try other.unpair(index: 1)
        #expect(try other.select().freePairingSlots == 5)
    }

    // MARK: a wrong PIN and a lost connection

    @Test func wrongPIN_droppedBeforeDelivery_connectionLost_triesUnchanged() throws {
        let card = F.card(seed: 600)
        let faulty = FaultInjectingTransport(wrapping: card, faults: [])
        let commands = KeycardCommandSet(transport: faulty, random: SeededRandom(seed: 601))
        let pairing = try #require(try CardSession(commands: commands).open(F.walkOptions(verifying: nil)).pairing)
        faulty.faults = [.dropConnection(afterAPDUs: faulty.count)]
        do throws(CardError) {
            try commands.verifyPIN(F.secret("000000"))
            Issue.record("VERIFY PIN succeeded over a dropped connection")
        } catch {
            #expect(F.isConnectionLost(error), "got \(error)")
        }
        card.reset()
        let again = KeycardCommandSet(transport: card, random: SeededRandom(seed: 602))
        try F.reopen(again, pairing: pairing, pin: nil)
        #expect(try again.getStatus().pinRetries == 3)
    }

    @Test func wrongPIN_answerLost_connectionLostNotWrongPIN_cardCountedTheTry() throws {
        let card = F.card(seed: 610)
        let lossy = AnswerLosingTransport(wrapping: card, lostAnswer: 8)  // the walk without PIN is 7 APDUs
        let commands = KeycardCommandSet(transport: lossy, random: SeededRandom(seed: 611))
        let pairing = try #require(try CardSession(commands: commands).open(F.walkOptions(verifying: nil)).pairing)
        #expect(lossy.count == 7)
        do throws(CardError) {
            try commands.verifyPIN(F.secret("000000"))
            Issue.record("VERIFY PIN answered over a lost connection")
        } catch {
            #expect(F.isConnectionLost(error), "got \(error)")
        }
        card.reset()
        let again = KeycardCommandSet(transport: card, random: SeededRandom(seed: 612))
        try F.reopen(again, pairing: pairing, pin: nil)
        #expect(try again.getStatus().pinRetries == 2, "the card executed the wrong VERIFY PIN")
        try again.verifyPIN(F.secret(F.pin))
        #expect(try again.getStatus().pinRetries == 3)
    }

    // MARK: a flipped byte in a protected answer

    @Test(arguments: [0, 15, 16, -3])
    func flippedByteInVerifyPINAnswer_responseMACMismatchNotWrongPIN_pinCounterUnchanged(byteIndex: Int) throws {
        // 0 / 15: first / last MAC byte; 16 / -3: first / last ciphertext byte (the answer is
        // MAC 16 ‖ ciphertext 16 ‖ SW 90 00).
        let card = F.card(seed: 700)
        let faulty = FaultInjectingTransport(wrapping: card, faults: [])
        let commands = KeycardCommandSet(transport: faulty, random: SeededRandom(seed: 701))
        let pairing = try #require(try CardSession(commands: commands).open(F.walkOptions(verifying: nil)).pairing)

        faulty.faults = [.flipResponseByte(apdu: faulty.count + 1, byteIndex: byteIndex)]
        #expect(throws: CardError.responseMACMismatch(command: .verifyPIN)) {
            try commands.verifyPIN(F.secret(F.pin))
        }
        #expect(!commands.isSecureChannelOpen)

        try F.reopen(commands, pairing: pairing, pin: nil)
        #expect(try commands.getStatus() == ApplicationStatus(pinRetries: 3, pukRetries: 5, keyInitialized: false))
        try commands.verifyPIN(F.secret(F.pin))
    }

    @Test func flippedByteInWrongPINAnswer_responseMACMismatchNotWrongPIN_onlyTheWrongPINCounted() throws {
        let card = F.card(seed: 710)
        let faulty = FaultInjectingTransport(wrapping: card, faults: [])
        let commands = KeycardCommandSet(transport: faulty, random: SeededRandom(seed: 711))
        let pairing = try #require(try CardSession(commands: commands).open(F.walkOptions(verifying: nil)).pairing)

        faulty.faults = [.flipResponseByte(apdu: faulty.count + 1, byteIndex: 20, mask: 0x80)]
        #expect(throws: CardError.responseMACMismatch(command: .verifyPIN)) {
            try commands.verifyPIN(F.secret("000000"))
        }
        try F.reopen(commands, pairing: pairing, pin: nil)
        #expect(try commands.getStatus().pinRetries == 2, "one wrong PIN, one try; the flip cost nothing")
    }

    @Test func flippedByteInGetStatusAnswer_responseMACMismatch_stateUntouched() throws {
        let card = F.card(seed: 720)
        let faulty = FaultInjectingTransport(wrapping: card, faults: [])
        let commands = KeycardCommandSet(transport: faulty, random: SeededRandom(seed: 721))
        let pairing = try #require(try CardSession(commands: commands).open(F.walkOptions()).pairing)
        faulty.faults = [.flipResponseByte(apdu: faulty.count + 1, byteIndex: 1)]
        #expect(throws: CardError.responseMACMismatch(command: .getStatus)) { try commands.getStatus() }
        try F.reopen(commands, pairing: pairing, pin: nil)
        #expect(try commands.getStatus() == ApplicationStatus(pinRetries: 3, pukRetries: 5, keyInitialized: false))
    }
}

/// The same faults on a 4.0 card: the walk (SELECT, OPEN SECURE CHANNEL, INIT, SELECT, OPEN, VERIFY
/// PIN), LOAD KEY and SIGN, with the connection dropped before each APDU or an executed APDU's answer
/// lost. The client stops at the fault with a lost connection, never a status word, and closes its
/// side of the channel; after a reset the card is consistent — INIT and LOAD KEY all or nothing, no
/// PIN try lost — and a fresh walk gets in.
@Suite("Fault injection on a 4.0 card")
struct FaultInjectionTests4 {
    typealias F = IntegrationFixture
    static let steps = [
        "SELECT", "OPEN SECURE CHANNEL", "INIT", "SELECT", "OPEN SECURE CHANNEL", "VERIFY PIN", "LOAD KEY", "SIGN",
    ]

    static func walk(pin: Bool = true) -> CardWalkSteps {
        var steps = CardWalkSteps()
        steps.certificate = { _ in }
        steps.initializationV2 = { _ in
            try InitParametersV2(pin: F.secret(F.pin), puk: F.secret(F.puk), duressPIN: Secret(utf8: "654321"))
        }
        if pin { steps.pin = F.secret(F.pin) }
        return steps
    }

    /// Runs the scenario; nil when it completed.
    static func scenario(_ commands: KeycardCommandSet) -> CardError? {
        do {
            _ = try CardSession(commands: commands).open(walk())
            try commands.loadKey(seed: F.v7Seed)
            _ = try commands.signV2(
                digest: Hash.sha256(Array("fault".utf8)), path: try DerivationPath("m/44'/60'/0'/0/0"))
            return nil
        } catch let error as CardError {
            return error
        } catch {
            return .malformedResponse(command: .select, detail: "\(error)")
        }
    }

    static func expectConsistent(_ card: SimulatedCard, delivered d: Int, _ label: String) throws {
        card.reset()
        let commands = KeycardCommandSet(transport: card, random: SeededRandom(seed: 9_400 + UInt64(d)))
        let info = try commands.select()
        let initialized = d >= 3, keyLoaded = d >= 7
        #expect(info.isInitialized == initialized, "\(label): INIT all or nothing")
        #expect(info.keyUID == (keyLoaded ? F.v7KeyUID : []), "\(label): key loaded or not")
        let result = try CardSession(commands: commands).open(walk())
        #expect(result.initialized == !initialized && result.pinVerified, "\(label): a fresh walk gets in")
        #expect(
            try commands.getStatus() == ApplicationStatus(pinRetries: 3, pukRetries: 5, keyInitialized: keyLoaded),
            "\(label): no PIN try lost")
        if keyLoaded {
            let key = try commands.exportKeyV2(path: try DerivationPath("m/44'/60'/0'/0/0"), kind: .publicKey)
            #expect(key.publicKey.uncompressed == F.v7M44_60_0_0_0Public, "\(label)")
        }
    }

    @Test(arguments: 0...7)
    func dropConnection_afterNAPDUs(n: Int) throws {
        let label = "drop before APDU \(n + 1) (\(Self.steps[n]))"
        let card = RandomAPDUTests4.provisioned(seed: 500 + UInt64(n))
        let faulty = FaultInjectingTransport(wrapping: card, faults: [.dropConnection(afterAPDUs: n)])
        let commands = KeycardCommandSet(transport: faulty, random: SeededRandom(seed: 600 + UInt64(n)))
        let error = try #require(Self.scenario(commands), "\(label): the scenario must fail")
        #expect(F.isConnectionLost(error) && error.statusWord == nil, "\(label): got \(error)")
        #expect(faulty.count == n + 1, "\(label): no retry")
        #expect(!commands.isSecureChannelOpen, "\(label): the channel state is unknown, so closed")
        try Self.expectConsistent(card, delivered: n, label)
    }

    @Test(arguments: 1...8)
    func answerLost_afterCardExecutedAPDUk(k: Int) throws {
        let label = "answer to APDU \(k) (\(Self.steps[k - 1])) lost"
        let card = RandomAPDUTests4.provisioned(seed: 700 + UInt64(k))
        let lossy = AnswerLosingTransport(wrapping: card, lostAnswer: k)
        let commands = KeycardCommandSet(transport: lossy, random: SeededRandom(seed: 800 + UInt64(k)))
        let error = try #require(Self.scenario(commands), "\(label): the scenario must fail")
        #expect(F.isConnectionLost(error), "\(label): got \(error)")
        #expect(lossy.count == k, "\(label): no retry")
        try Self.expectConsistent(card, delivered: k, label)
    }

    @Test func noFault_scenarioIs8APDUs() throws {
        let card = RandomAPDUTests4.provisioned(seed: 499)
        let faulty = FaultInjectingTransport(wrapping: card, faults: [.dropConnection(afterAPDUs: 8)])
        let commands = KeycardCommandSet(transport: faulty, random: SeededRandom(seed: 498))
        #expect(Self.scenario(commands) == nil)
        #expect(faulty.count == Self.steps.count)
        try Self.expectConsistent(card, delivered: 8, "no fault")
    }
}
