// The card access commands (docs/card-console.md) through the real kcs binary
// on the simulator (`card.connect` opens `$KCS_HOME/cards/default.json`, created blank): INIT,
// pairing stored in the vault and reused, the secure channel, PIN safety, ephemeral pairings
// freed on every way out, pairing-slot exhaustion and its way out, factory reset, exit codes.
// Each test gets an empty kcs home and a vault passphrase in the environment (BatchHome). What a
// script can say lives in Tests/TranscriptTests/Scripts/card (INIT, pairing, login, PIN and PUK
// safety, changing credentials, slots running out, unpairing, ephemeral pairings, reset, exit
// codes); these are the runs that need two homes, generated values, faults or a terminal.
import Foundation
import KCSTestSupport
import Testing

/// The values every test initializes its card with (the PUK does not start with the PIN).
private let pin = "123456", puk = "111122223333", password = "card test pairing"
private let setUp = """
    card.connect
    card.init --pin "\(pin)" --puk "\(puk)" --pairing "\(password)"
    """

/// Runs `code` in `home` as script `name`; returns exit status, stdout and stderr.
private func kcs(
    _ home: BatchHome, _ code: String, name: String = "run.kcs"
) throws -> (code: Int32, out: String, err: String) {
    try home.run(code, name: name)
}

@Suite("Card access commands")
struct CardAccessTests {
    // MARK: - Setting up, pairing, opening

    @Test func initGenerate_showsTheValuesOnce_andTheyWork() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try kcs(home, "card.connect\nlet i = card.init --generate\nprint \"INIT\", i.initialized\n")
        #expect(r.code == 0, "\(r.err)")
        func value(_ label: String) -> String? {
            r.out.split(separator: "\n").first { $0.hasPrefix("  \(label): ") }.map {
                String($0.dropFirst(label.count + 4))
            }
        }
        let pin = try #require(value("PIN"), "\(r.out)"), puk = try #require(value("PUK"))
        let pairing = try #require(value("pairing password"))
        #expect(pin.count == 6 && puk.count == 12 && pairing.count == 19)
        #expect(!puk.hasPrefix(pin))
        let login = try kcs(
            home, "card.connect\nlet l = card.login \"\(pin)\" --password \"\(pairing)\"\nprint \"LOGIN\", l.slot\n",
            name: "login.kcs")
        #expect(login.code == 0, "\(login.err)")
        #expect(tagged("LOGIN", in: login.out) == ["0"])
    }

    // MARK: - Pairing slots

    @Test func storedPairingRefused_batchNeedsYes_thenForgetsItAndPairsAgain() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let other = try BatchHome()
        defer { other.remove() }
        // kcs in `home` pairs (slot 0); the same card, taken to another kcs home, frees every
        // other slot: the stored pairing of `home` is now refused.
        let first = try kcs(home, "\(setUp)\ncard.login \"\(pin)\" --password \"\(password)\"\n", name: "a.kcs")
        #expect(first.code == 0, "\(first.err)")
        let card = "home/cards/default.json"
        try FileManager.default.createDirectory(atPath: other.path("home/cards"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: home.path(card), toPath: other.path(card))
        let elsewhere = try kcs(
            other,
            """
            card.connect
            card.login "\(pin)" --password "\(password)"
            let u = card.unpair --others --yes
            print "OTHER", u.unpaired
            """, name: "b.kcs")
        #expect(elsewhere.code == 0, "\(elsewhere.err)")
        #expect(tagged("OTHER", in: elsewhere.out).first?.hasPrefix("[0") == true, "\(elsewhere.out)")
        try FileManager.default.removeItem(atPath: home.path(card))
        try FileManager.default.copyItem(atPath: other.path(card), toPath: home.path(card))

        let refused = try kcs(
            home, "card.connect\ntry { card.open } catch e { print \"OPEN\", e.kind }\ncard.login \"\(pin)\"\n",
            name: "c.kcs")
        #expect(refused.code == 76, "\(refused.err)")
        #expect(tagged("OPEN", in: refused.out) == ["card.pairingRefused"])
        #expect(refused.err.contains("the card refused kcs's stored pairing (slot 0)"))
        #expect(refused.err.contains("card.login --yes"))
        let again = try kcs(
            home,
            """
            card.connect
            let l = card.login "\(pin)" --password "\(password)" --yes
            print "AGAIN", l.slot, l.paired, l.warning
            """, name: "d.kcs")
        #expect(again.code == 0, "\(again.err)")
        #expect(tagged("AGAIN", in: again.out) == ["0 true forgot the refused pairing (slot 0)"])
    }

    // MARK: - Ephemeral pairings

    @Test func droppedConnection_isNotAWrongPIN_andTheEphemeralSlotIsKept() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let setup = try kcs(home, setUp, name: "setup.kcs")
        #expect(setup.code == 0, "\(setup.err)")
        // connect: SELECT (1); login: SELECT, PAIR ×2, SELECT, OPEN, MUTUALLY AUTHENTICATE, GET STATUS, VERIFY (9).
        var dropping = home
        dropping.environment["KCS_SIM_DROP_AFTER"] = "9"
        let r = try kcs(
            dropping,
            """
            card.connect
            card.login "\(pin)" --ephemeral --password "\(password)"
            print "IN"
            card.status
            """, name: "drop.kcs")
        #expect(tagged("IN", in: r.out) == [""] || r.out.contains("IN\n"), "\(r.out)")
        #expect(r.code == 69, "a lost connection: exit 69, got \(r.code): \(r.err)")
        #expect(r.err.contains("the connection to the card was lost"))
        #expect(!r.err.contains("wrong PIN"))
        #expect(r.err.contains("kcs stored it instead"), "\(r.err)")

        // During VERIFY PIN (the stored pairing now: SELECT, SELECT, OPEN, MUTUALLY AUTHENTICATE,
        // GET STATUS, then VERIFY is the 6th): a lost connection, never a wrong PIN, no try used.
        dropping.environment["KCS_SIM_DROP_AFTER"] = "5"
        let during = try kcs(dropping, "card.connect\ncard.login \"\(pin)\"\n", name: "during.kcs")
        #expect(during.code == 69, "\(during.err)")
        #expect(!during.err.contains("wrong PIN"), "\(during.err)")
        let after = try kcs(
            home,
            """
            card.connect
            let l = card.login "\(pin)"
            print "LOGIN", l.slot, l.paired, card.status().pinTriesLeft
            """, name: "after.kcs")
        #expect(after.code == 0, "\(after.err)")
        #expect(tagged("LOGIN", in: after.out) == ["0 false 3"])
    }

    // MARK: - At a terminal

    @Test func terminal_promptShowsTheCard_valuesAskedTwice_ephemeralFreedAtQuit() throws {
        let home = try BatchHome()
        defer { home.remove() }
        var env = home.environment
        env["XDG_CONFIG_HOME"] = home.path("state")
        // Each line is typed once its prompt shows (a secret typed earlier would be echoed).
        let t = try TerminalSession(environment: env, folder: URL(fileURLWithPath: home.path("state")))
        try t.answer("kcs> ", with: "card.connect")
        try t.answer("kcs[sim:default blank]> ", with: "card.init")
        for (prompt, value) in [
            ("new PIN: ", pin), ("the same PIN again: ", pin), ("new PUK: ", puk),
            ("the same PUK again: ", puk), ("new pairing password: ", password),
            ("the same pairing password again: ", password),
        ] {
            try t.answer(prompt, with: value)
        }
        try t.answer("]> ", with: "card.login --ephemeral")
        try t.answer("pin: ", with: pin)
        try t.answer("pairing password: ", with: password)
        try t.answer("]> ", with: "print card.pairings().session")
        try t.answer("]> ", with: "card.reset")
        try t.answer("to confirm: ", with: "nope")
        let text = try t.quitAtCardPrompt()
        #expect(text.contains("kcs[sim:default blank]> "), "\(text)")
        #expect(text.contains("new PIN: ") && text.contains("the same PIN again: "), "\(text)")
        #expect(text.contains("new PUK: ") && text.contains("new pairing password: "), "\(text)")
        #expect(text.contains("pin: ") && text.contains("pairing password: "), "\(text)")
        let prompt = try #require(
            text.range(of: #"kcs\[sim:default [0-9a-f]{8}\]> "#, options: .regularExpression), "\(text)")
        #expect(!text[prompt].isEmpty)
        #expect(text.contains("Type its short instance UID"), "\(text)")
        #expect(text.contains("\"nope\" is not this card's short instance UID"), "\(text)")
        #expect(!text.contains(puk) && !text.contains(password), "a secret was echoed: \(text)")
        // .quit freed the ephemeral slot.
        let after = try kcs(
            home, "card.connect\nprint \"AFTER\", card.pairings().freePairingSlots\n", name: "after.kcs")
        #expect(tagged("AFTER", in: after.out) == ["5"], "\(after.out) \(after.err)")
    }
}

extension TerminalSession {
    /// Types `.quit` at the card prompt (`kcs[sim:… …]> `) and waits (up to 30 s, then it is
    /// killed) for kcs to end with status 0; returns the whole transcript.
    func quitAtCardPrompt() throws -> String {
        try answer("]> ", with: ".quit")
        let (text, status) = finish()
        #expect(status == 0, "kcs did not end well after .quit: \(text)")
        return text
    }
}
