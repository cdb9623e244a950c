// INIT with the duress check, freeing pairing slots and the factory reset, as the application
// layer does them, against the simulated applet 3.1.0 (5 pairing slots) and a real store.
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

private let secret = PairingSecret(password: PairingSecret.defaultPassword)

private final class Bench {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-admin-\(UUID().uuidString)").path
    let session: Session
    let card = SimulatedCard(random: SeededRandom(seed: 61))

    init() throws {
        session = Session(
            home: home, environment: ["KCS_VAULT_PASSPHRASE": "pw"], vaultParameters: .insecureForTesting())
        session.card = try CardLink(medium: .simulator(card), name: "sim:t", random: SeededRandom(seed: 62))
    }
    deinit { try? FileManager.default.removeItem(atPath: home) }

    func request(pin: String, puk: String, force: Bool = false) throws -> CardInitRequest {
        CardInitRequest(
            parameters: try InitParameters(pin: Secret(utf8: pin), puk: Secret(utf8: puk), pairingSecret: secret),
            force: force)
    }

    /// What the card itself says, on a connection of its own.
    func select() throws -> ApplicationInfo {
        try KeycardCommandSet(transport: card, random: SeededRandom(seed: 63)).select()
    }

    func login() throws {
        _ = try session.login(pin: Secret(utf8: "123456"), CardLoginRequest { secret })
    }
}

@Suite("Card administration in the application layer")
struct CardAdministrationTests {
    @Test func initialize_duressTrapInABatchRun_isRefusedBeforeINIT_forceInitializesWithTheWarning() throws {
        let bench = try Bench()
        // The PUK starts with the PIN: applet 3.1 would make every login a duress login.
        #expect(throws: CardCommandError.self) {
            try bench.session.initializeCard { try bench.request(pin: "123456", puk: "123456789012") }
        }
        #expect(try !bench.select().isInitialized)
        let warnings = try bench.session.initializeCard {
            try bench.request(pin: "123456", puk: "123456789012", force: true)
        }
        #expect(warnings.count == 1 && warnings[0].hasPrefix("the PUK's first 6 digits equal the PIN"))
        #expect(try bench.select().isInitialized)
        #expect(throws: CardCommandError.alreadyInitialized(shortUID: bench.session.card!.shortUID)) {
            try bench.session.initializeCard {
                Issue.record("values asked of an initialized card")
                return try bench.request(pin: "123456", puk: "987654321098")
            }
        }
    }

    @Test func unpair_others_freesEveryOtherSlot_learnsTheTotal_thenAllLogsOut() throws {
        let bench = try Bench()
        _ = try bench.session.initializeCard { try bench.request(pin: "123456", puk: "987654321098") }
        try bench.login()
        for seed in 1...3 {
            let other = KeycardCommandSet(transport: bench.card, random: SeededRandom(seed: UInt64(70 + seed)))
            try other.select()
            _ = try other.pair(secret: secret)
        }
        try bench.login()  // the stored pairing again, after the others' SELECTs closed the channel
        #expect(throws: SessionError.needsConfirmation) {
            try bench.session.unpair(.others, yes: false)
        }
        let others = try bench.session.unpair(.others, yes: true)
        #expect(others.unpaired == [1, 2, 3, 4] && !others.loggedOut && others.freePairingSlots == 4)
        #expect(try bench.select().freePairingSlots == 4)
        try bench.login()
        let all = try bench.session.unpair(.all, yes: true)
        #expect(all.loggedOut && all.unpaired.last == 0 && all.freePairingSlots == 5)
        #expect(try bench.session.unlockedStore().pairings().isEmpty)  // the stored pairing went with its slot
    }

    @Test func factoryReset_wrongUIDChangesNothing_rightUIDErasesAndForgets() throws {
        let bench = try Bench()
        _ = try bench.session.initializeCard { try bench.request(pin: "123456", puk: "987654321098") }
        try bench.login()
        let short = try #require(bench.session.card?.shortUID)
        #expect(throws: CardCommandError.resetNotConfirmed(typed: "00000000")) {
            try bench.session.factoryReset(typed: "00000000")
        }
        #expect(try bench.select().isInitialized)
        #expect(throws: CardCommandError.resetNotConfirmed(typed: nil)) {
            try bench.session.factoryReset(typed: nil)  // a batch run is not asked
        }
        // At a terminal the UID is asked: a wrong one or Ctrl-C erases nothing.
        for answer in ["1a2b3c4d", ScriptedPrompts.ctrlC] {
            let person = ScriptedPrompts([answer])
            bench.session.prompts = person
            if answer == ScriptedPrompts.ctrlC {
                #expect(throws: PromptInterrupted.self) { try bench.session.factoryReset(typed: nil) }
            } else {
                #expect(throws: CardCommandError.resetNotConfirmed(typed: answer)) {
                    try bench.session.factoryReset(typed: nil)
                }
            }
            #expect(person.asked.count == 1 && person.asked[0].hasPrefix("card.reset erases this card's keys"))
            #expect(try bench.select().isInitialized, "after \(answer)")
        }
        bench.session.prompts = nil
        let reset = try bench.session.factoryReset(typed: " \(short.uppercased()) ")
        #expect(!reset.initialized && reset.forgotPairing)
        #expect(try !bench.select().isInitialized)
    }
}
