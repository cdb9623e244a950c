// The card trace at the session (docs/card-explained.md): `card.step` shows each command before it
// leaves and stops it on `abort` or Ctrl-C with nothing sent; a saved trace replays to the lines the
// live trace showed; a file that is not a trace is refused with its line named; with the trace off
// no tracer is installed at all.
import CardProtocol
import CardSimulator
import Foundation
import KCSErrors
import Testing
import WalletCore
import WalletCrypto

@testable import WalletSession

/// A person at a terminal who also sees the trace.
private final class TracePrompts: SessionPrompts {
    var answers: [String]
    var traced: [String] = []
    var asked: [String] = []
    init(_ answers: [String] = []) { self.answers = answers }
    var isInteractive: Bool { true }
    func write(_ text: String) {}
    func askSecret(prompt: String) throws -> Secret? { nil }
    func ask(prompt: String) throws -> String? {
        asked.append(prompt)
        guard !answers.isEmpty else { return nil }
        let answer = answers.removeFirst()
        if answer == "<ctrl-c>" { throw PromptInterrupted() }
        return answer
    }
    func status(_ text: String) {}
    func warn(_ text: String) {}
    func progress(_ text: String?) {}
    func shouldInterrupt() -> Bool { false }
    func trace(_ text: String) { traced.append(text) }
}

private final class TraceHome {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-trace-\(UUID().uuidString)").path
    let session: Session
    let prompts: TracePrompts

    init(_ answers: [String] = []) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        session = Session(home: path, environment: [:], random: SeededRandom(seed: 3))
        prompts = TracePrompts(answers)
        session.prompts = prompts
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// An initialized 3.1 simulated card, connected, with nothing traced yet.
    func card() throws -> CardLink {
        _ = try session.connectCard(.simulator(name: "t", profile: nil))
        let link = try session.requireCard()
        try link.commands.initialize(
            InitParameters(
                pin: Secret(utf8: "123456"), puk: Secret(utf8: "987654321098"),
                pairingSecret: PairingSecret(password: "pw")))
        try link.select()
        return link
    }
}

@Suite("Card trace at the session")
struct CardTraceTests {
    @Test("off: no tracer on the card; explain: every exchange shown and kept")
    func offCostsNothing_explainShowsAndKeeps() throws {
        let home = try TraceHome()
        let card = try home.card()
        #expect(card.commands.tracer == nil && home.prompts.traced.isEmpty)
        _ = try home.session.setCardTrace(.explain)
        try card.select()
        #expect(card.commands.tracer != nil && home.session.cardTraceCount == 1)
        #expect(home.prompts.traced.count == 1 && home.prompts.traced[0].contains("A4 application template"))
        _ = try home.session.setCardTrace(.off)
        try card.select()
        #expect(card.commands.tracer == nil && home.session.cardTraceCount == 1, "off keeps what was traced")
    }

    @Test("card.step: abort and Ctrl-C stop the command before anything is sent; Enter sends")
    func stepping() throws {
        let home = try TraceHome(["abort", "<ctrl-c>", ""])
        let card = try home.card()
        _ = home.session.setCardStep(true)
        guard case .simulator(let sim) = card.medium else { throw CardError.notInitialized }
        let log = APDULog()
        sim.log = log
        let before = log.exchanges.count
        #expect(throws: CardError.stopped(command: .select, interrupted: false)) { try card.select() }
        #expect(throws: CardError.stopped(command: .select, interrupted: true)) { try card.select() }
        #expect(log.exchanges.count == before, "nothing reached the card")
        try card.select()
        #expect(log.exchanges.count == before + 1)
        #expect(home.prompts.asked.count == 3 && home.prompts.asked[0].hasPrefix("card.step: send it?"))
        #expect(home.prompts.traced[0].contains("about to send  00 A4 04 00 09"))
        #expect(home.prompts.traced[0].contains("AID A0 00 00 08 04 00 01 01 01 = Keycard applet instance (default)"))
        #expect(CardError.stopped(command: .select, interrupted: true).exitClass == .interrupted)
    }

    @Test("a saved trace replays to the lines the live trace showed, at every level")
    func saveAndReplay() throws {
        let home = try TraceHome()
        let card = try home.card()
        _ = try home.session.setCardTrace(.channel, diffable: true)
        try card.select()
        let pairing = try card.commands.pair(secret: PairingSecret(password: "pw"))
        try card.commands.openSecureChannel(pairing: pairing)
        try card.commands.verifyPIN(Secret(utf8: "123456"))
        _ = try card.commands.getStatus()
        let file = home.path + "/session.trace"
        #expect(try home.session.saveCardTrace(to: file) == 7)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let saved = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!saved.contains("313233343536") && saved.split(separator: "\n").count == 7)
        let live = home.prompts.traced.joined(separator: "\n")
        let replayed = try home.session.explainCardTrace(
            file, level: .channel, view: TraceView(diffable: true), step: false)
        #expect(replayed == live)
        let explained = try home.session.explainCardTrace(file, level: .explain, view: TraceView(), step: false)
        #expect(explained.contains("card: PIN verified until SELECT or reset; its try counter is full again"))
        #expect(explained.contains("card: pairing slot 0 now used · free pairing slots 5 → 4"))
    }

    @Test("replay, stepping: back goes one exchange back")
    func replayStepping() throws {
        let home = try TraceHome()
        let card = try home.card()
        _ = try home.session.setCardTrace(.wire)
        try card.select()
        _ = try card.commands.getData()
        let file = home.path + "/two.trace"
        _ = try home.session.saveCardTrace(to: file)
        let shown = TraceHome.Shown()
        let stepper = try TraceHome(["", "back", "", "", ""])
        stepper.session.prompts = shown.with(stepper.prompts)
        _ = try stepper.session.explainCardTrace(file, level: .wire, view: TraceView(diffable: true), step: true)
        #expect(shown.rules == ["── 1 SELECT", "── 2 GET", "── 1 SELECT", "── 2 GET"])
    }

    @Test("a card pulled during a traced session: the failed exchange is shown and saved with its error")
    func cardPulled() throws {
        let home = try TraceHome()
        let pulled = Session(home: home.path, environment: ["KCS_SIM_DROP_AFTER": "2"], random: SeededRandom(seed: 4))
        pulled.prompts = home.prompts
        _ = try pulled.setCardTrace(.explain)
        _ = try pulled.connectCard(.simulator(name: "pulled", profile: nil))
        let card = try pulled.requireCard()
        try card.select()
        #expect(throws: CardError.transport(.connectionLost(detail: "fault injected: connection dropped after APDU 2")))
        {
            try card.select()
        }
        #expect(pulled.cardTraceCount == 3)
        let last = try #require(home.prompts.traced.last)
        #expect(last.hasPrefix("── 3 SELECT"))
        #expect(
            last.contains("   ✗ the connection to the card was lost (fault injected: connection dropped after APDU 2)"))
        #expect(!last.contains("<<"), "no answer came")
        let file = home.path + "/pulled.trace"
        #expect(try pulled.saveCardTrace(to: file) == 3)
        let replayed = try pulled.readCardTrace(file)
        #expect(
            replayed.last?.answer == nil && replayed.last?.error?.contains("connection to the card was lost") == true)
    }

    @Test("a file that is not a trace is refused with the file and line named")
    func badFiles() throws {
        let home = try TraceHome()
        let missing = home.path + "/none.trace"
        #expect(throws: CardTraceError.badTraceFile(path: missing, line: 0, reason: "no such file or not readable")) {
            try home.session.readCardTrace(missing)
        }
        let bad = home.path + "/bad.trace"
        try "{\"number\":1}\nnot json\n".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(
            throws: CardTraceError.badTraceFile(
                path: bad, line: 1, reason: "not a trace record (field \"generation\" missing)")
        ) {
            try home.session.readCardTrace(bad)
        }
        let big = home.path + "/big.trace"
        try String(repeating: "x", count: 2048).write(toFile: big, atomically: true, encoding: .utf8)
        #expect(throws: CardTraceError.self) { try home.session.readCardTrace(big, maximumBytes: 1024) }
    }

    @Test("--reveal: refused on a card in a reader, allowed on a simulated card")
    func revealRule() throws {
        let home = try TraceHome()
        _ = try home.card()
        #expect(try home.session.setCardTrace(.explain, reveal: true).view.reveal)
        #expect(
            CardTraceError.revealOnRealCard(reader: "ACS ACR1252").description.contains(
                "allowed only on a simulated card"))
    }
}

extension TraceHome {
    /// Collects what `explainCardTrace` writes when stepping, by its rules.
    final class Shown: SessionPrompts {
        var rules: [String] = []
        private var inner: TracePrompts?
        func with(_ prompts: TracePrompts) -> Shown {
            inner = prompts
            return self
        }
        var isInteractive: Bool { true }
        func write(_ text: String) {
            if let rule = text.split(separator: "\n").first, rule.hasPrefix("──") {
                rules.append(rule.split(separator: " ").prefix(3).joined(separator: " "))
            }
        }
        func askSecret(prompt: String) throws -> Secret? { nil }
        func ask(prompt: String) throws -> String? { try inner?.ask(prompt: prompt) }
        func status(_ text: String) {}
        func warn(_ text: String) {}
        func progress(_ text: String?) {}
        func shouldInterrupt() -> Bool { false }
    }
}
