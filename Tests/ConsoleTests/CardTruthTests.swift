// The card tells the truth about what happened (docs/card.md, "Duress logins" and "Pairing
// slots"), through the real kcs binary on the simulator (the duress login itself is
// Tests/TranscriptTests/Scripts/card/duress_login.kcs): a key another client loaded is named;
// used pairing slots kcs has no record of are
// named after a reconnect, with the way out; the duress question at a terminal comes before
// INIT (a real pseudo-terminal, `TerminalSession`).
import Foundation
import KCSTestSupport
import Testing

/// PIN 123456, PUK 111122223333: applet 3.1 makes 111122 the duress PIN (docs/keycard-protocol.md §7.2).
private let pin = "123456", duressPIN = "111122", puk = "111122223333", password = "truth test pairing"
/// BIP-39's all-`abandon` mnemonic: m/44'/60'/0'/0/0 is 0x9858EfFD232B4033E47d90003D41EC34EcaEda94.
private let words = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

@Suite("The card tells the truth")
struct CardTruthTests {
    @Test func aKeyLoadedByAnotherClient_isNamedAtLogin() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let first = try home.run(
            """
            card.connect
            card.init --pin "\(pin)" --puk "\(puk)" --pairing "\(password)"
            card.login "\(pin)" --password "\(password)"
            card.load mnemonic "\(words)"
            """, name: "first.kcs")
        #expect(first.code == 0, "\(first.err)")
        // Another kcs home is another client of the same card (its file, copied there and back):
        // it pairs, makes another key, and keeps no record here.
        var other = home
        other.environment["KCS_HOME"] = home.path("other")
        try FileManager.default.createDirectory(atPath: home.path("other/cards"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: home.path("home/cards/default.json"),
            toPath: home.path("other/cards/default.json"))
        let loaded = try other.run(
            """
            card.connect
            card.login "\(pin)" --password "\(password)"
            card.generate --force
            """, name: "other.kcs")
        #expect(loaded.code == 0, "\(loaded.err)")
        try FileManager.default.removeItem(atPath: home.path("home/cards/default.json"))
        try FileManager.default.copyItem(
            atPath: home.path("other/cards/default.json"),
            toPath: home.path("home/cards/default.json"))
        let later = try home.run(
            """
            card.connect
            print "LOGIN", card.login("\(pin)").warning
            """, name: "later.kcs")
        #expect(later.code == 0, "\(later.err)")
        let warning = try #require(tagged("LOGIN", in: later.out).first, "\(later.out)\(later.err)")
        #expect(
            warning.hasPrefix("the card's key (key UID ")
                && warning.contains("is not the one kcs recorded for this card"),
            "\(warning)")
    }

    // MARK: - Pairing slots

    @Test func slotsUsedWithoutARecord_areNamedAfterAReconnect_withTheWayOut() throws {
        let home = try BatchHome()
        defer { home.remove() }
        // kcs stores slot 0, then pairs again with --force: slot 0 stays used on the card, and
        // kcs's record now says slot 1 (the leak of a client that forgets its pairings).
        let leak = try home.run(
            """
            card.connect
            card.init --pin "\(pin)" --puk "\(puk)" --pairing "\(password)"
            card.login "\(pin)" --password "\(password)"
            card.pair --password "\(password)" --force
            """, name: "leak.kcs")
        #expect(leak.code == 0, "\(leak.err)")
        let later = try home.run(
            """
            let c = card.connect
            print "CONNECT", c.freePairingSlots, c.warning
            let p = card.pairings
            print "PAIRINGS", p.pairingSlots, p.freePairingSlots, p.stored, p.unexplained
            card.login "\(pin)"
            let u = card.unpair --others --yes
            print "UNPAIR", u.unpaired, u.freePairingSlots
            let after = card.pairings
            print "AFTER", after.freePairingSlots, after.unexplained, contains(after, "warning")
            card.logout
            let again = card.connect
            print "AGAIN", again.freePairingSlots, contains(again, "warning")
            """, name: "later.kcs")
        #expect(later.code == 0, "\(later.err)")
        let expected =
            "1 of the card's 5 pairing slots is used by pairings kcs holds no record of (another client's, or lost to "
            + "an interrupted pair or unpair); if they are not yours, free them from a logged-in session with "
            + "card.unpair --others"
        #expect(tagged("CONNECT", in: later.out) == ["3 " + expected], "\(later.out)")
        #expect(tagged("PAIRINGS", in: later.out) == ["5 3 1 1"])
        #expect(tagged("UNPAIR", in: later.out) == ["[0, 2, 3, 4] 4"])
        #expect(tagged("AFTER", in: later.out) == ["4 0 false"])
        #expect(tagged("AGAIN", in: later.out) == ["4 false"])
    }

    @Test func noSlotWarning_whenKcsRecordsExplainEveryUsedSlot() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            card.connect
            card.init --pin "\(pin)" --puk "\(puk)" --pairing "\(password)"
            card.login "\(pin)" --password "\(password)"
            card.logout
            let c = card.connect
            print "CONNECT", c.freePairingSlots, contains(c, "warning")
            card.login "\(pin)" --ephemeral --password "\(password)"
            let p = card.pairings
            print "PAIRINGS", p.freePairingSlots, p.unexplained, contains(p, "warning")
            """, name: "fine.kcs")
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("CONNECT", in: r.out) == ["4 false"])
        #expect(tagged("PAIRINGS", in: r.out) == ["3 0 false"])
        #expect(!r.err.contains("warning"), "\(r.err)")
    }

    // MARK: - The duress question at a terminal

    @Test func duressTrap_atATerminal_isExplainedAndAskedBeforeINIT() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let t = try TerminalSession(environment: home.environment, folder: home.folder)
        try t.answer("kcs> ", with: "card.connect")
        let initLine = "card.init --pin \"\(duressPIN)\" --puk \"\(puk)\" --pairing \"\(password)\""
        // No: nothing is written, the card stays blank.
        try t.answer("> ", with: initLine)
        try t.expect(
            "the PUK's first 6 digits equal the PIN; applet 3.1+ makes them the duress PIN, so every login "
                + "would run in duress mode (other keys): the words you load would give other keys than you "
                + "expect, and signing would still say verified.")
        try t.answer("Initialize the card anyway? [y/N] ", with: "n")
        try t.expect("card.init: cancelled; nothing changed")
        try t.answer("> ", with: "print \"BLANK\", card.info().initialized")
        try t.expect("BLANK false")
        // Yes: INIT, and the result keeps the warning.
        try t.answer("> ", with: "let i = " + initLine)
        try t.answer("Initialize the card anyway? [y/N] ", with: "y")
        try t.answer("> ", with: "print \"INIT\", i.initialized, contains(i, \"warning\")")
        try t.expect("INIT true true")
        let (text, status) = t.finish()
        #expect(status == 0, "\(text)")
        // Asked once each time, before anything reached the card.
        #expect(text.components(separatedBy: "Initialize the card anyway? [y/N] ").count == 3, "\(text)")
    }
}
