// The application layer's card walk, tested directly in Swift (no interpreter, no binary):
// `Session.login` on `CardSession` against the simulated applet, with the store in a temporary
// home, and against a transport that drops the connection after every APDU in turn.
import CardProtocol
import CardSimulator
import Foundation
import KCSErrors
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

/// A temporary kcs home with a batch session (the vault passphrase from the environment) and
/// an in-memory simulated card, initialized with PIN 123456 and the default pairing password.
private final class Bench {
    static let pin = Secret(utf8: "123456")
    static let pairingSecret = PairingSecret(password: PairingSecret.defaultPassword)

    let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-login-\(UUID().uuidString)").path
    let session: Session
    let card: SimulatedCard

    init(initialized: Bool = true, pinTries: UInt8? = nil) throws {
        session = Session(
            home: home, environment: ["KCS_VAULT_PASSPHRASE": "pw"], vaultParameters: .insecureForTesting())
        card = SimulatedCard(random: SeededRandom(seed: 41))
        if initialized {
            let commands = KeycardCommandSet(transport: card, random: SeededRandom(seed: 42))
            try commands.select()
            try commands.initialize(
                try InitParameters(
                    pin: Self.pin, puk: Secret(utf8: "987654321098"),
                    pairingSecret: Self.pairingSecret, pinRetries: pinTries))
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: home) }

    /// Connects the session to the card, through a counting (and, with `dropAfter`, failing) transport.
    @discardableResult
    func connect(dropAfter: Int? = nil) throws -> FaultInjectingTransport {
        let wire = FaultInjectingTransport(
            wrapping: card, faults: dropAfter.map { [.dropConnection(afterAPDUs: $0)] } ?? [])
        session.card = try CardLink(
            medium: .simulator(card), name: "sim:t", random: SeededRandom(seed: 43), transport: wire)
        return wire
    }

    func request(ephemeral: Bool = false, force: Bool = false, repair: Bool = false) -> CardLoginRequest {
        var r = CardLoginRequest { Self.pairingSecret }
        r.ephemeral = ephemeral
        r.force = force
        r.repairWithoutAsking = repair
        return r
    }

    func login(_ pin: String = "123456", _ request: CardLoginRequest? = nil) throws -> CardLoginResult {
        try session.login(pin: Secret(utf8: pin), request ?? self.request())
    }

    /// SELECT on a fresh connection: what the card itself says, whatever this session believes.
    func freeSlots() throws -> Int? {
        try KeycardCommandSet(transport: card, random: SeededRandom(seed: 44)).select().freePairingSlots
    }

    /// The pairing kcs stored for the card, if any (nil also when there is no store yet).
    func storedPairing() throws -> PairingRecord? {
        let uid = card.applet.instanceUID
        guard FileManager.default.fileExists(atPath: home + "/" + WalletStore.databaseFileName) else { return nil }
        return try session.unlockedStore().pairing(instanceUID: uid)
    }
}

@Suite("The card walk of the application layer (Session.login on CardSession)")
struct CardLoginTests {
    @Test func firstLogin_pairsAndStoresThePairing_theNextReusesItInFiveAPDUs() throws {
        let bench = try Bench()
        try bench.connect()
        let first = try bench.login()
        #expect(first.paired)
        #expect(first.warnings.isEmpty)
        let link = try #require(bench.session.card)
        #expect(link.known.pinVerified && link.known.pairing == first.pairing)
        #expect(try bench.storedPairing()?.slot == first.pairing?.index)
        #expect(try bench.freeSlots() == 4)

        let wire = try bench.connect()
        let before = wire.count
        let second = try bench.login()
        #expect(!second.paired)
        #expect(second.pairing == first.pairing)
        // SELECT, OPEN SECURE CHANNEL, MUTUALLY AUTHENTICATE, GET STATUS, VERIFY PIN.
        #expect(wire.count - before == 5)
        #expect(try bench.freeSlots() == 4)
    }

    @Test func blankCard_isRefusedAfterSelectAlone_andNoVaultIsMade() throws {
        let bench = try Bench(initialized: false)
        let wire = try bench.connect()
        let before = wire.count
        #expect(throws: CardCommandError.blank) { try bench.login() }
        #expect(wire.count - before == 1)
        #expect(bench.session.existingStore() == nil)
    }

    @Test func badPIN_isRefusedBeforeAnythingIsSent() throws {
        let bench = try Bench()
        let wire = try bench.connect()
        let before = wire.count
        #expect(throws: CardError.self) { try bench.login("12ab56") }
        #expect(wire.count == before)
    }

    @Test func lastTry_isRefusedWithoutSendingThePIN_forceSendsIt_andBlockingIsNamed() throws {
        let bench = try Bench()
        try bench.connect()
        #expect(throws: CardError.wrongPIN(triesLeft: 2)) { try bench.login("000000") }
        #expect(throws: CardError.wrongPIN(triesLeft: 1)) { try bench.login("000000") }
        #expect(throws: CardCommandError.lastTry(credential: "PIN")) { try bench.login("000000") }
        // Nothing was sent: the right PIN with --force still has its try.
        #expect(try bench.login("123456", bench.request(force: true)).pairing?.index == 0)
        #expect(try bench.session.card?.commands.getStatus().pinRetries == 3)
        // Used up: the last try gone is "blocked", not "wrong PIN, 0 left".
        for left in [2, 1] { #expect(throws: CardError.wrongPIN(triesLeft: left)) { try bench.login("000000") } }
        #expect(throws: CardCommandError.pinBlocked(justNow: true)) {
            try bench.login("000000", bench.request(force: true))
        }
        #expect(throws: CardCommandError.pinBlocked(justNow: false)) { try bench.login() }
    }

    @Test func refusedStoredPairing_batchNamesIt_repairForgetsItAndPairsAgain() throws {
        let bench = try Bench()
        try bench.connect()
        let first = try bench.login()
        // Another client (or a lost UNPAIR) freed kcs's slot behind its back.
        try #require(bench.session.card).commands.unpair(index: try #require(first.pairing).index)
        try bench.connect()
        #expect(throws: CardCommandError.pairingRefused(slot: first.pairing!.index)) {
            try bench.login()
        }
        #expect(try bench.storedPairing() != nil)  // nothing forgotten without a yes
        let again = try bench.login("123456", bench.request(repair: true))
        #expect(again.paired)
        #expect(again.warnings == ["forgot the refused pairing (slot \(first.pairing!.index))"])
        #expect(try bench.storedPairing()?.slot == again.pairing!.index)
        #expect(try bench.freeSlots() == 4)
    }

    @Test func refusedStoredPairing_atATerminal_isAsked_noOrCtrlCKeepsIt_yesPairsAgain() throws {
        let bench = try Bench()
        try bench.connect()
        let first = try bench.login()
        try #require(bench.session.card).commands.unpair(index: try #require(first.pairing).index)
        // The vault is unlocked now; only the card's question is asked from here on.
        for answer in ["n", ScriptedPrompts.ctrlC] {
            let person = ScriptedPrompts([answer])
            bench.session.prompts = person
            try bench.connect()
            if answer == "n" {
                #expect(throws: SessionError.cancelled) { try bench.login() }
            } else {
                #expect(throws: PromptInterrupted.self) { try bench.login() }
            }
            #expect(
                person.asked.count == 1 && person.asked[0].hasPrefix("The card refused kcs's stored pairing (slot 0)"))
            #expect(try bench.storedPairing()?.slot == first.pairing!.index, "after \(answer)")
            #expect(try bench.freeSlots() == 5)
        }
        let person = ScriptedPrompts(["y"])
        bench.session.prompts = person
        try bench.connect()
        let again = try bench.login()
        #expect(again.paired && again.warnings == ["forgot the refused pairing (slot 0)"])
        #expect(try bench.storedPairing()?.slot == again.pairing!.index)
        #expect(try bench.freeSlots() == 4)
    }

    @Test func openChannel_isTheSameWalk_withoutThePIN() throws {
        let bench = try Bench()
        try bench.connect()
        #expect(throws: CardCommandError.notPaired) { try bench.session.openChannel() }
        let first = try bench.login()
        let wire = try bench.connect()
        let before = wire.count
        let opened = try bench.session.openChannel()
        // SELECT, OPEN SECURE CHANNEL, MUTUALLY AUTHENTICATE: no PIN sent.
        #expect(opened.slot == first.pairing!.index && wire.count - before == 3)
        let link = try #require(bench.session.card)
        #expect(link.known.pairing == first.pairing && link.commands.isSecureChannelOpen && !link.known.pinVerified)
        try link.commands.verifyPIN(Bench.pin)
        try link.commands.unpair(index: try #require(first.pairing).index)
        try bench.connect()
        #expect(throws: CardCommandError.pairingRefused(slot: first.pairing!.index)) {
            try bench.session.openChannel()
        }
        #expect(try bench.storedPairing() != nil)  // only card.login --yes forgets it
    }

    @Test func ephemeralLogin_storesNothing_andClosingTheSessionFreesTheSlot() throws {
        let bench = try Bench()
        try bench.connect()
        let login = try bench.login("123456", bench.request(ephemeral: true))
        #expect(login.paired)
        #expect(bench.session.card?.known.ephemeralPairing == login.pairing)
        #expect(bench.session.existingStore() == nil)
        #expect(bench.session.card?.known.freePairingSlots == 4)
        bench.session.close()
        #expect(try bench.freeSlots() == 5)
    }

    @Test func fewSlotsLeft_areWarnedAbout_andNoneLeftIsRefusedBeforePAIR() throws {
        let bench = try Bench()
        // Three other clients take three of the five slots.
        for seed in 1...3 {
            let other = KeycardCommandSet(transport: bench.card, random: SeededRandom(seed: UInt64(100 + seed)))
            try other.select()
            _ = try other.pair(secret: Bench.pairingSecret)
        }
        try bench.connect()
        let login = try bench.login()
        #expect(login.warnings == ["one pairing slot is left on the card; free unused ones with card.unpair --others"])
        // The last slot goes to yet another client: an ephemeral login finds none and sends no PAIR.
        let other = KeycardCommandSet(transport: bench.card, random: SeededRandom(seed: 200))
        try other.select()
        _ = try other.pair(secret: Bench.pairingSecret)
        let wire = try bench.connect()
        let before = wire.count
        var askedForAPassword = false
        var request = bench.request(ephemeral: true)
        request.pairingSecret = {
            askedForAPassword = true
            return Bench.pairingSecret
        }
        #expect(throws: CardCommandError.noFreePairingSlots(total: 5)) { try bench.login("123456", request) }
        #expect(wire.count - before == 1)  // SELECT only
        #expect(!askedForAPassword)
    }

    /// The first login takes nine APDUs counting the link's own SELECT: SELECT, SELECT, PAIR ×2,
    /// SELECT, OPEN SECURE CHANNEL, MUTUALLY AUTHENTICATE, GET STATUS, VERIFY PIN. Dropped
    /// after each of them, the login fails as a lost connection and never leaves a slot used on
    /// the card that kcs holds no record of; the next login then gets in with the slots as they are.
    @Test(arguments: 1...8)
    func connectionDroppedAfterEachAPDU_neverLeavesAnUnrecordedSlot(after n: Int) throws {
        let bench = try Bench()
        try bench.connect(dropAfter: n)
        do {
            _ = try bench.login()
            Issue.record("the login went through with the connection dropped after APDU \(n)")
        } catch CardError.transport(.connectionLost) {
        } catch {
            Issue.record("after APDU \(n): \(error)")
        }
        let used = 5 - (try #require(try bench.freeSlots()))
        let recorded = try bench.storedPairing() == nil ? 0 : 1
        #expect(used == recorded, "after APDU \(n): \(used) slot(s) used, \(recorded) recorded")
        try bench.connect()
        let next = try bench.login()
        #expect(next.paired == (recorded == 0))
        #expect(try bench.freeSlots() == 4)
    }

    @Test func connectionDroppedAfterTheWholeWalk_theLoginStands() throws {
        let bench = try Bench()
        let wire = try bench.connect(dropAfter: 9)
        #expect(try bench.login().paired)
        #expect(wire.count == 9)
    }
}
