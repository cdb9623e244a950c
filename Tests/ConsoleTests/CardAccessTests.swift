// The card access commands (docs/card-console.md) through the real kcs binary
// on the simulator (`card.connect` opens `$KCS_HOME/cards/default.json`, created blank): INIT,
// pairing stored in the vault and reused, the secure channel, PIN safety, ephemeral pairings
// freed on every way out, pairing-slot exhaustion and its way out, factory reset, exit codes.
// Each test gets an empty kcs home and a vault passphrase in the environment (BatchHome). What a
// script can say lives in Tests/TranscriptTests/Scripts/card (INIT, pairing, login, PIN and PUK
// safety); these are the runs with several processes, faults or a terminal.
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
private func kcs(_ home: BatchHome, _ code: String, name: String = "run.kcs") throws -> (code: Int32, out: String, err: String) {
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
            r.out.split(separator: "\n").first { $0.hasPrefix("  \(label): ") }.map { String($0.dropFirst(label.count + 4)) }
        }
        let pin = try #require(value("PIN"), "\(r.out)"), puk = try #require(value("PUK"))
        let pairing = try #require(value("pairing password"))
        #expect(pin.count == 6 && puk.count == 12 && pairing.count == 19)
        #expect(!puk.hasPrefix(pin))
        let login = try kcs(home, "card.connect\nlet l = card.login \"\(pin)\" --password \"\(pairing)\"\nprint \"LOGIN\", l.slot\n",
                            name: "login.kcs")
        #expect(login.code == 0, "\(login.err)")
        #expect(tagged("LOGIN", in: login.out) == ["0"])
    }

    // MARK: - Needing a card, a channel

    @Test func commandsWithoutACardOrChannel_sayWhatToRun() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let noCard = try kcs(home, "card.status\n", name: "nocard.kcs")
        #expect(noCard.code == 69, "no card: exit 69, got \(noCard.code): \(noCard.err)")
        #expect(noCard.err.contains("no card connected; run card.connect"))
        let noChannel = try kcs(home, "\(setUp)\ntry { card.status } catch e { print \"S\", e.kind, e.message }\n"
                                + "try { card.verify \"\(pin)\" } catch e { print \"V\", e.kind }\n"
                                + "try { card.unpair } catch e { print \"U\", e.kind }\n"
                                + "try { card.change pin \"654321\" } catch e { print \"C\", e.kind }\n"
                                + "card.open\n", name: "nochannel.kcs")
        #expect(tagged("S", in: noChannel.out) == ["card.notOpen card.status: no secure channel is open; run card.login (or card.pair and card.open)"])
        #expect(tagged("V", in: noChannel.out) == ["card.notOpen"])
        #expect(tagged("U", in: noChannel.out) == ["card.notOpen"])
        #expect(tagged("C", in: noChannel.out) == ["card.notOpen"])
        // card.open without a stored pairing: a card error, exit 76.
        #expect(noChannel.code == 76, "\(noChannel.err)")
        #expect(noChannel.err.contains("kcs holds no pairing for this card"))
    }

    // MARK: - Changing credentials

    @Test func changePINPUKAndPairingPassword() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try kcs(home, """
            \(setUp)
            card.login "\(pin)" --password "\(password)"
            print "PIN", card.change("pin", "222222").changed
            print "PUK", card.change("puk", "333344445555").changed
            print "PAIRING", card.change("pairing", "new pairing password").changed
            try { card.change pin } catch e { print "NOVALUE", e.kind }
            try { card.change colour "1" } catch e { print "CHOICE", e.kind }
            try { card.change pin "12" } catch e { print "FORMAT", e.kind }
            card.logout
            try { card.login "\(pin)" } catch e { print "OLD", e.kind }
            card.logout
            print "NEW", card.login("222222").slot
            try { card.pair --password "\(password)" --force } catch e { print "OLDPAIRING", e.kind }
            let np = card.pair --password "new pairing password" --force
            print "NEWPAIRING", np.slot
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("PIN", in: r.out) == ["pin"])
        #expect(tagged("PUK", in: r.out) == ["puk"])
        #expect(tagged("PAIRING", in: r.out) == ["pairing"])
        #expect(tagged("NOVALUE", in: r.out) == ["card.valueNeeded"])
        #expect(tagged("CHOICE", in: r.out) == ["builtin.badChoice"])
        #expect(tagged("FORMAT", in: r.out) == ["card.invalidInput"])
        #expect(tagged("OLD", in: r.out) == ["card.wrongPIN"])
        #expect(tagged("NEW", in: r.out) == ["0"])
        #expect(tagged("OLDPAIRING", in: r.out) == ["card.cardCryptogramMismatch"])
        #expect(tagged("NEWPAIRING", in: r.out) == ["1"])
    }

    // MARK: - Pairing slots

    @Test func slotsRunOut_warningsThenTheTwoWaysOut_thenUnpairOthersFreesThem() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try kcs(home, """
            \(setUp)
            for i in range(5) {
              let p = card.pair --password "\(password)" --force
              let w = "-"
              if contains(p, "warning") { w = p.warning }
              print "PAIR", p.slot, p.freePairingSlots, w
            }
            try { card.pair --password "\(password)" --force } catch e { print "FULL", e.kind; print e.message }
            try { card.login "\(pin)" --ephemeral --password "\(password)" } catch e { print "EPH", e.kind }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("PAIR", in: r.out) == [
            "0 4 -", "1 3 -", "2 2 -", "3 1 one pairing slot is left on the card; free unused ones with card.unpair --others",
            "4 0 that was the card's last free pairing slot; free unused ones with card.unpair --others",
        ])
        #expect(tagged("FULL", in: r.out) == ["card.noFreePairingSlot"])
        #expect(r.out.contains("\nThe card has no free pairing slots (5 of 5 used). From a paired session run "
                               + "`card.unpair --others`, or factory-reset the card with `card.reset`.\n"), "\(r.out)")
        #expect(tagged("EPH", in: r.out) == ["card.noFreePairingSlot"])

        // Uncaught: a card error, exit 76, with the same sentence.
        let full = try kcs(home, "card.connect\ncard.pair --password \"\(password)\" --force\n", name: "full.kcs")
        #expect(full.code == 76, "\(full.err)")
        #expect(full.err.contains("The card has no free pairing slots (5 of 5 used)."))

        // The way out from the paired session kcs kept (slot 4): free every other slot.
        let out = try kcs(home, """
            card.connect
            card.login "\(pin)"
            try { card.unpair --others } catch e { print "CONFIRM", e.kind }
            try { card.unpair 1 --all } catch e { print "CHOICE", e.kind }
            try { card.unpair 7 } catch e { print "RANGE", e.kind }
            let u = card.unpair --others --yes
            print "OTHERS", u.unpaired, u.loggedOut, u.freePairingSlots
            let own = card.unpair
            print "OWN", own.unpaired, own.loggedOut, own.freePairingSlots
            let ps = card.pairings
            print "PAIRINGS", ps.freePairingSlots, ps.stored
            """, name: "out.kcs")
        #expect(out.code == 0, "\(out.err)")
        #expect(tagged("CONFIRM", in: out.out) == ["session.needsConfirmation"])
        #expect(tagged("CHOICE", in: out.out) == ["card.unpairChoice"])
        #expect(tagged("RANGE", in: out.out) == ["builtin.outOfRange"])
        #expect(tagged("OTHERS", in: out.out) == ["[0, 1, 2, 3] false 4"])
        #expect(tagged("OWN", in: out.out) == ["[4] true 5"])
        #expect(tagged("PAIRINGS", in: out.out) == ["5 nil"])
    }

    @Test func unpairOneSlot_andAll() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try kcs(home, """
            \(setUp)
            card.pair --password "\(password)"
            card.pair --password "\(password)" --force
            card.login "\(pin)"
            let one = card.unpair 0
            print "ONE", one.unpaired, one.loggedOut
            let all = card.unpair --all --yes
            print "ALL", all.unpaired, all.loggedOut, all.freePairingSlots
            print "STORED", card.pairings().stored
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("ONE", in: r.out) == ["[0] false"])
        #expect(tagged("ALL", in: r.out) == ["[0, 2, 3, 4, 1] true 5"])
        #expect(tagged("STORED", in: r.out) == ["nil"])
    }

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
        let elsewhere = try kcs(other, """
            card.connect
            card.login "\(pin)" --password "\(password)"
            let u = card.unpair --others --yes
            print "OTHER", u.unpaired
            """, name: "b.kcs")
        #expect(elsewhere.code == 0, "\(elsewhere.err)")
        #expect(tagged("OTHER", in: elsewhere.out).first?.hasPrefix("[0") == true, "\(elsewhere.out)")
        try FileManager.default.removeItem(atPath: home.path(card))
        try FileManager.default.copyItem(atPath: other.path(card), toPath: home.path(card))

        let refused = try kcs(home, "card.connect\ntry { card.open } catch e { print \"OPEN\", e.kind }\ncard.login \"\(pin)\"\n",
                              name: "c.kcs")
        #expect(refused.code == 76, "\(refused.err)")
        #expect(tagged("OPEN", in: refused.out) == ["card.pairingRefused"])
        #expect(refused.err.contains("the card refused kcs's stored pairing (slot 0)"))
        #expect(refused.err.contains("card.login --yes"))
        let again = try kcs(home, """
            card.connect
            let l = card.login "\(pin)" --password "\(password)" --yes
            print "AGAIN", l.slot, l.paired, l.warning
            """, name: "d.kcs")
        #expect(again.code == 0, "\(again.err)")
        #expect(tagged("AGAIN", in: again.out) == ["0 true forgot the refused pairing (slot 0)"])
    }

    // MARK: - Ephemeral pairings

    @Test func ephemeralLogin_isUnpairedOnLogout_andWhenTheScriptFails() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try kcs(home, """
            \(setUp)
            let l = card.login "\(pin)" --ephemeral --password "\(password)"
            print "LOGIN", l.slot, l.ephemeral, l.freePairingSlots
            let ps = card.pairings
            print "HELD", ps.stored, ps.session, ps.ephemeral
            let o = card.logout
            print "LOGOUT", o.unpaired
            print "FREE", card.pairings().freePairingSlots
            card.login "\(pin)" --ephemeral --password "\(password)"
            print "AGAIN", card.pairings().freePairingSlots
            print 1 / 0
            """, name: "eph.kcs")
        #expect(r.code == 70, "\(r.err)")
        #expect(tagged("LOGIN", in: r.out) == ["0 true 4"])
        #expect(tagged("HELD", in: r.out) == ["nil 0 true"])
        #expect(tagged("LOGOUT", in: r.out) == ["0"])
        #expect(tagged("FREE", in: r.out) == ["5"])
        #expect(!r.err.contains("warning"), "\(r.err)")
        // The error ended the run; kcs unpaired on its way out.
        let after = try kcs(home, "card.connect\nlet p = card.pairings\nprint \"AFTER\", p.freePairingSlots, p.stored\n",
                            name: "after.kcs")
        #expect(tagged("AFTER", in: after.out) == ["5 nil"], "\(after.out) \(after.err)")
    }

    @Test func ephemeralLogin_wrongPIN_keepsTheSlotReachable() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try kcs(home, "\(setUp)\ncard.login \"000000\" --ephemeral --password \"\(password)\"\n", name: "eph.kcs")
        #expect(r.code == 77, "\(r.err)")
        #expect(r.err.contains("wrong PIN: 2 tries left"))
        #expect(r.err.contains("kcs: warning: could not free this session's pairing (slot 0): the PIN was not verified"),
                "\(r.err)")
        #expect(r.err.contains("kcs stored it instead"))
        let after = try kcs(home, """
            card.connect
            print "HELD", card.pairings().stored
            let l = card.login "\(pin)"
            print "LOGIN", l.slot, l.paired, l.freePairingSlots
            card.unpair
            print "FREE", card.pairings().freePairingSlots
            """, name: "after.kcs")
        #expect(after.code == 0, "\(after.err)")
        #expect(tagged("HELD", in: after.out) == ["0"])
        #expect(tagged("LOGIN", in: after.out) == ["0 false 4"])
        #expect(tagged("FREE", in: after.out) == ["5"])
    }

    @Test func droppedConnection_isNotAWrongPIN_andTheEphemeralSlotIsKept() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let setup = try kcs(home, setUp, name: "setup.kcs")
        #expect(setup.code == 0, "\(setup.err)")
        // connect: SELECT (1); login: SELECT, PAIR ×2, SELECT, OPEN, MUTUALLY AUTHENTICATE, GET STATUS, VERIFY (9).
        var dropping = home
        dropping.environment["KCS_SIM_DROP_AFTER"] = "9"
        let r = try kcs(dropping, """
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
        let after = try kcs(home, """
            card.connect
            let l = card.login "\(pin)"
            print "LOGIN", l.slot, l.paired, card.status().pinTriesLeft
            """, name: "after.kcs")
        #expect(after.code == 0, "\(after.err)")
        #expect(tagged("LOGIN", in: after.out) == ["0 false 3"])
    }

    // MARK: - Factory reset and exit codes

    @Test func reset_needsTheShortUID_forgetsThePairing() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try kcs(home, """
            \(setUp)
            card.login "\(pin)" --password "\(password)"
            try { card.reset } catch e { print "NONE", e.kind, e.message }
            print "HELD", card.pairings().stored
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("NONE", in: r.out) == ["card.resetNotConfirmed card.reset: erasing the card needs its short instance UID; add --confirm UID (the shortUID of card.info)"])
        #expect(tagged("HELD", in: r.out) == ["0"])
        let wrong = try kcs(home, "card.connect\ncard.reset --confirm 00000000\n", name: "wrong.kcs")
        #expect(wrong.code == 75, "a declined reset: exit 75, got \(wrong.code): \(wrong.err)")
        #expect(wrong.err.contains("\"00000000\" is not this card's short instance UID; nothing was erased"))
        let reset = try kcs(home, """
            let i = card.connect
            let r = card.reset --confirm $i.shortUID
            print "RESET", r.reset, r.initialized, r.forgotPairing
            print "INFO", card.info().initialized
            try { card.reset --confirm "x" } catch e { print "BLANK", e.kind }
            \(setUp.split(separator: "\n").dropFirst().joined())
            let n = card.login "\(pin)" --password "\(password)"
            print "NEW", n.slot
            """, name: "reset.kcs")
        #expect(reset.code == 0, "\(reset.err)")
        #expect(tagged("RESET", in: reset.out) == ["true false true"])
        #expect(tagged("INFO", in: reset.out) == ["false"])
        #expect(tagged("BLANK", in: reset.out) == ["card.blank"])
        #expect(tagged("NEW", in: reset.out) == ["0"])
    }

    @Test func exitCodes_usageErrorsStay70() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try kcs(home, "card.connect\ncard.init\n")
        #expect(r.code == 70, "\(r.err)")
        #expect(r.err.contains("card.init: the PIN is needed and standard input is not a terminal to ask for it; pass --pin or --generate"),
                "\(r.err)")
        let missing = try kcs(home, "\(setUp)\ncard.login\n", name: "missing.kcs")
        #expect(missing.code == 70, "\(missing.err)")
        #expect(missing.err.contains("is a secret and was not given"))
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
        for (prompt, value) in [("new PIN: ", pin), ("the same PIN again: ", pin), ("new PUK: ", puk),
                                ("the same PUK again: ", puk), ("new pairing password: ", password),
                                ("the same pairing password again: ", password)] {
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
        let prompt = try #require(text.range(of: #"kcs\[sim:default [0-9a-f]{8}\]> "#, options: .regularExpression), "\(text)")
        #expect(!text[prompt].isEmpty)
        #expect(text.contains("Type its short instance UID"), "\(text)")
        #expect(text.contains("\"nope\" is not this card's short instance UID"), "\(text)")
        #expect(!text.contains(puk) && !text.contains(password), "a secret was echoed: \(text)")
        // .quit freed the ephemeral slot.
        let after = try kcs(home, "card.connect\nprint \"AFTER\", card.pairings().freePairingSlots\n", name: "after.kcs")
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
