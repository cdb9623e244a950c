// The simulated card's EEPROM commits as a chip's do (docs/card.md, "What a simulated card is"): a
// PIN or PUK try counter is written and synced before the PIN is compared and never restored when a
// later write fails; a write that fails stops the command there, as a card torn from the reader; and
// a writer killed before its rename leaves no temporary copy of the card behind once the cards
// directory is opened again. Write failures are injected through `KeycardApplet.persist`.
import CardProtocol
import Foundation
import Testing
import WalletCore
import WalletCrypto

@testable import CardSimulator

/// Lets the first `allowed` writes of the card file through, then fails every write.
private final class FailingWrites {
    var allowed: Int
    private(set) var refused = 0
    init(allowed: Int) { self.allowed = allowed }

    func install(on card: SimulatedCard) {
        let path = card.statePath!
        card.applet.persist = { [self] (state: CardState) throws(SimulatorError) in
            guard allowed > 0 else {
                refused += 1
                throw .stateWriteFailed(path: path, reason: "injected: No space left on device")
            }
            allowed -= 1
            try CardStore.write(state, profile: card.applet.profile, to: path)
        }
    }
}

@Suite("SimulatedCard: PIN counters and commits are durable")
struct DurabilityTests {
    /// A persisted card, initialized (PIN 123456, PUK 111111111111, 3 and 5 tries), paired, channel open,
    /// PIN not verified.
    static func openCard(_ dir: TempDirectory) throws -> TestSession {
        let s = TestSession(card: try SimulatedCard.open(named: "chip", in: dir.path, random: SeededRandom(seed: 5)))
        #expect(s.initialize() == 0x9000)
        s.select()
        #expect(sw(s.pair()) == 0x9000)
        s.openChannel()
        return s
    }

    /// VERIFY PIN `pin` over the open channel: the inner status word, or nil when the transport failed.
    static func verify(_ s: TestSession, _ pin: String) -> UInt16? {
        guard var ch = s.channel else { return nil }
        guard let r = try? s.card.transmit(ch.wrap(0x80, 0x20, 0, 0, Array(pin.utf8))) else { return nil }
        defer { s.channel = ch }
        return ch.unwrap(r)?.sw ?? sw(r)
    }

    /// The PIN and PUK tries left in the card's file.
    static func triesOnDisk(_ s: TestSession) throws -> (pin: UInt8, puk: UInt8) {
        let c = try #require(try CardStore.read(s.card.statePath!).1.credentials)
        return (c.pin.remaining, c.puk.remaining)
    }

    @Test func fullDisk_noVerifyIsAnswered_theRightPINIsNotFound() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        let s = try Self.openCard(dir)
        let faults = FailingWrites(allowed: 0)
        faults.install(on: s.card)
        // 20 wrong PINs and the right one on a 3-try card: none is compared, none answered.
        var answers: [UInt16?] = []
        for guess in (0..<20).map({ String(format: "%06d", $0) }) + ["123456"] {
            // The channel needs no write; VERIFY needs the counter's, which fails.
            s.card.reset()
            s.select()
            s.openChannel()
            answers.append(Self.verify(s, guess))
        }
        #expect(answers.allSatisfy { $0 == nil }, "\(answers)")
        #expect(faults.refused == 21)
        #expect(try Self.triesOnDisk(s).pin == 3)
        #expect(s.card.applet.state == s.card.applet.committed)
        #expect(s.card.applet.state.credentials?.pin.remaining == 3)
    }

    @Test func verify_counterIsCommittedBeforeTheCompare_andNotRolledBack() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        let s = try Self.openCard(dir)
        // The main PIN's decrement is written; the duress PIN's write fails: the command stops there.
        let faults = FailingWrites(allowed: 1)
        faults.install(on: s.card)
        #expect(Self.verify(s, "000000") == nil)
        #expect(try Self.triesOnDisk(s).pin == 2, "the try is paid even though the command failed")
        #expect(s.card.applet.state.credentials?.pin.remaining == 2)
        let reopened = try SimulatedCard.open(named: "chip", in: dir.path)
        #expect(reopened.applet.state.credentials?.pin.remaining == 2)
    }

    @Test func verify_rightPIN_laterCommitFails_counterStaysDecremented() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        let s = try Self.openCard(dir)
        // The PIN's decrement is written, the next write (the duress PIN's decrement, which carries
        // the PIN's restored counter) fails: the right PIN is not confirmed and its try stays paid.
        let faults = FailingWrites(allowed: 1)
        faults.install(on: s.card)
        #expect(Self.verify(s, "123456") == nil)
        #expect(try Self.triesOnDisk(s).pin == 2)
        #expect(!s.card.applet.isPINValidated)
    }

    @Test func unblock_pukCounterIsCommittedBeforeTheCompare() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        let s = try Self.openCard(dir)
        #expect((0..<3).map { _ in Self.verify(s, "000000") } == [0x63C2, 0x63C1, 0x63C0])
        #expect(try Self.triesOnDisk(s).pin == 0)
        let faults = FailingWrites(allowed: 1)
        faults.install(on: s.card)
        var ch = try #require(s.channel)
        // UNBLOCK PIN with the right PUK: the PUK decrement is written, the rest is refused.
        let r = try? s.card.transmit(ch.wrap(0x80, 0x22, 0, 0, Array("111111111111654321".utf8)))
        #expect(r == nil)
        #expect(try Self.triesOnDisk(s) == (pin: 0, puk: 4))
    }

    @Test func allWritesFail_nothingChanges_andTheCardAnswersAgainAfterwards() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        let s = try Self.openCard(dir)
        #expect(Self.verify(s, "123456") == 0x9000)
        let faults = FailingWrites(allowed: 0)
        faults.install(on: s.card)
        // LOAD KEY: all or nothing.
        var ch = try #require(s.channel)
        #expect((try? s.card.transmit(ch.wrap(0x80, 0xD0, 0x03, 0x00, Vectors162.seed))) == nil)
        #expect(!s.card.applet.hasKey)
        #expect(try CardStore.read(s.card.statePath!).1.masterKey == nil)
        faults.allowed = .max
        s.card.reset()
        s.select()
        s.openChannel()
        #expect(Self.verify(s, "123456") == 0x9000)
        #expect(s.loadV7Seed().sw == 0x9000)
        #expect(try CardStore.read(s.card.statePath!).1.masterKey != nil)
    }

    // MARK: - Temporary files

    @Test func openingTheCardsDirectory_removesWhatAKilledWriterLeft() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        _ = try SimulatedCard.open(named: "chip", in: dir.path)
        // What a writer killed between its fsync and its rename leaves: the card, secrets and all.
        let stale = dir.path + "/.chip.json.tmp-0123456789ab"
        try FileManager.default.copyItem(atPath: dir.path + "/chip.json", toPath: stale)
        let other = dir.path + "/.chip.json.tmp-notours"
        FileManager.default.createFile(atPath: other, contents: Data())
        _ = try SimulatedCard.open(named: "chip", in: dir.path)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: other), "only AtomicFile's own names are removed")
        #expect(SimulatedCard.cardNames(in: dir.path) == ["chip"])
    }

    @Test func aLiveWritersTemporaryFile_isKept() throws {
        let dir = TempDirectory()
        defer { dir.cleanup() }
        _ = try SimulatedCard.open(named: "chip", in: dir.path)
        let live = dir.path + "/.chip.json.tmp-00000000beef"
        let fd = open(live, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(fd >= 0)
        #expect(flock(fd, LOCK_EX) == 0)
        // flock locks belong to the open file description: another one (the sweep's) cannot take it.
        _ = try SimulatedCard.open(named: "chip", in: dir.path)
        #expect(FileManager.default.fileExists(atPath: live))
        close(fd)
        _ = try SimulatedCard.open(named: "chip", in: dir.path)
        #expect(!FileManager.default.fileExists(atPath: live))
    }
}
