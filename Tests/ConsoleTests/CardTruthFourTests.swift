// The card tells the truth, found on the real 4.0 applet and by a new user (docs/card-console.md,
// "The duress trap" and "Duress logins"; docs/keycard-protocol.md §14), through the real kcs binary
// on the simulator: a Schnorr tweak of n signs as the applet's d + t mod n does; a wrong PIN after an
// UNBLOCK made in a duress session says whose tries the card counts; a card put in the duress trap is
// named when words are loaded; and the 4.0 details — no slot, the 4.0 reason for the master xpub, LEE
// mode in card.info, pairing options refused alike, card.ndef. (A plain answer inside Secure Channel
// V2 is Tests/CardSimulatorTests/PlainAnswerV2Tests.swift and Tests/CardProtocolTests/PlainAnswerV2Tests.swift.)
import Foundation
import KCSTestSupport
import Testing

private let words = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
private let pin = "123456", puk = "987654321098", duress = "654321"

/// A simulated 4.0 card NAME, initialized with a duress PIN, logged in with the PIN and holding `words`.
private func fourZeroCard(_ name: String) -> String {
    """
    card.connect --sim \(name) --profile 4.0
    card.init --pin "\(pin)" --puk "\(puk)" --duress "\(duress)"
    card.login "\(pin)"
    card.load mnemonic "\(words)" --name \(name)

    """
}

/// The PIN tries left on the card file's main PIN, duress PIN and PUK.
private func triesOnDisk(_ home: BatchHome, card: String) throws -> (pin: Int, duress: Int, puk: Int) {
    let data = try Data(contentsOf: URL(fileURLWithPath: home.path("home/cards/\(card).json")))
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    let credentials = try #require((object?["card"] as? [String: Any])?["credentials"] as? [String: Any])
    func remaining(_ key: String) -> Int { (credentials[key] as? [String: Any])?["remaining"] as? Int ?? -1 }
    return (remaining("pin"), remaining("duressPIN"), remaining("puk"))
}

@Suite("The card tells the truth: Keycard 4.0")
struct CardTruthFourTests {
    // MARK: - Schnorr with a tweak of n

    @Test func schnorrTweakOfTheCurveOrder_signsWithTheKeyItself_andVerifies() throws {
        let home = try BatchHome()
        defer { home.remove() }
        // BIP-86's first receive key of `words`: internal key cc8a…c115 (docs/keycard-protocol.md §14.6:
        // d + t mod n, so t = n adds nothing).
        let r = try home.run(
            fourZeroCard("tweak-n") + """
                use card
                let digest = sha256("kcs schnorr test")
                let s = sign $digest --schnorr --tweak 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141 --path "m/86'/0'/0'/0/0"
                print "N", s.verified, hex(s.outputKey), len(s.signature)
                let one = sign $digest --schnorr --tweak 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364142 --path "m/86'/0'/0'/0/0"
                let plusOne = sign $digest --schnorr --tweak 0x0000000000000000000000000000000000000000000000000000000000000001 --path "m/86'/0'/0'/0/0"
                print "N+1", one.verified, one.outputKey == plusOne.outputKey
                """, name: "tweak.kcs")
        #expect(r.code == 0, "\(r.err)")
        #expect(
            tagged("N", in: r.out) == ["true 0xcc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115 64"],
            "\(r.out)")
        #expect(tagged("N+1", in: r.out) == ["true true"], "\(r.out)")
    }

    // MARK: - UNBLOCK in a duress session

    @Test func afterAnUnblockInADuressSession_theMainPINsWrongPINAnswer_saysWhoseTriesTheyAre() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let setup = try home.run(
            fourZeroCard("duress-unblock") + """
                card.logout
                print "DURESS", contains(card.login("\(duress)").warning, "duress login")
                card.logout
                card.open
                for n in range(2) { try { card.verify "000000" } catch e { } }
                try { card.verify "000000" --force } catch e { print "BLOCKED", e.kind }
                card.unblock "\(puk)" "222222"
                """, name: "setup.kcs")
        #expect(setup.code == 0, "\(setup.err)")
        #expect(
            tagged("DURESS", in: setup.out) == ["true"] && tagged("BLOCKED", in: setup.out) == ["card.pinBlocked"],
            "\(setup.out)")
        // What the card now holds (docs/keycard-protocol.md §14.5): UNBLOCK set the duress PIN, the main PIN is blocked.
        #expect(try triesOnDisk(home, card: "duress-unblock") == (0, 3, 5))

        // A new process: the right main PIN is answered with the duress PIN's tries, and kcs says so.
        let later = try home.run(
            """
            card.connect --sim duress-unblock
            card.login "\(pin)"
            """, name: "later.kcs")
        #expect(later.code == 77, "a wrong PIN's exit: \(later.err)")
        #expect(
            later.err.contains(
                "card.login: wrong PIN: 2 tries left — and they are the duress PIN's tries: the PIN was "
                    + "unblocked in a duress session, so the PIN now set is the one given to card.unblock, which opens the duress "
                    + "wallet, and the main PIN stays blocked"), "\(later.err)")
        #expect(try triesOnDisk(home, card: "duress-unblock") == (0, 2, 5), "the try spent was the duress PIN's")

        // The PIN card.unblock set opens the duress wallet (its keys are not the words'), as the error says.
        let duressLogin = try home.run(
            """
            card.connect --sim duress-unblock
            print "NEW", contains(card.login("222222").warning, "duress login")
            print "ADDRESS", card.export("m/44'/60'/0'/0/0").address != "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
            """, name: "duress.kcs")
        #expect(duressLogin.code == 0, "\(duressLogin.err)")
        #expect(
            tagged("NEW", in: duressLogin.out) == ["true"] && tagged("ADDRESS", in: duressLogin.out) == ["true"],
            "\(duressLogin.out)")
    }

    @Test func aWrongPINWithoutADuressUnblock_staysTheCardsPlainAnswer() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            fourZeroCard("plain-wrong") + """
                card.logout
                try { card.login "000000" } catch e { print "WRONG", e.kind, e.message }
                """, name: "wrong.kcs")
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("WRONG", in: r.out) == ["card.wrongPIN wrong PIN: 2 tries left"], "\(r.out)")
    }

    // MARK: - The duress trap

    @Test func aCardInitializedIntoTheDuressTrap_isNamedWhenWordsAreLoaded_andAtEveryLaterLogin() throws {
        let home = try BatchHome()
        defer { home.remove() }
        // Applet 3.1 makes the PUK's first six digits the duress PIN: PUK 123456… with PIN 123456 is the
        // trap; --force is a batch run's "y" to "Initialize the card anyway?".
        let r = try home.run(
            """
            card.connect --sim trap
            card.init --pin "123456" --puk "123456789012" --pairing "trap pairing" --force
            card.login "123456" --password "trap pairing"
            let k = card.load mnemonic "\(words)" --name trapped
            print "LOAD", k.warning
            print "ADDRESS", card.export("m/44'/60'/0'/0/0").address
            """, name: "trap.kcs")
        #expect(r.code == 0, "\(r.err)")
        let warning = try #require(tagged("LOAD", in: r.out).first, "\(r.out)")
        #expect(
            warning.hasPrefix(
                "every login on this card is a duress login: the card derives other keys from these words "
                    + "than any other wallet would"), "\(warning)")
        #expect(
            warning.hasSuffix(
                "because the card was initialized with the duress PIN equal to the PIN; reset it (card.reset) and "
                    + "initialize it with a duress PIN of its own (card.init --duress), then load the words again"),
            "\(warning)")
        // Why: the card's address is not the one the words give (0x9858…da94 at m/44'/60'/0'/0/0).
        #expect(
            tagged("ADDRESS", in: r.out).first.map { $0 != "0x9858EfFD232B4033E47d90003D41EC34EcaEda94" } == true,
            "\(r.out)")

        let later = try home.run(
            """
            card.connect --sim trap
            print "LOGIN", card.login("123456").warning
            """, name: "later.kcs")
        #expect(later.code == 0, "\(later.err)")
        #expect(
            tagged("LOGIN", in: later.out).first?.hasPrefix("every login on this card is a duress login") == true,
            "\(later.out)")
    }

    @Test func wordsLoadedInADuressSessionOfACardNotInTheTrap_nameTheSession_andTheTrapAsAPossibleCause() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            card.connect --sim duress-load --profile 4.0
            card.init --pin "\(pin)" --puk "\(puk)" --duress "\(duress)"
            card.login "\(duress)"
            print "LOAD", (card.load mnemonic "\(words)").warning
            card.logout
            print "MAIN", contains(card.login("\(pin)"), "warning")
            card.logout
            print "AGAIN", contains(card.login("\(duress)").warning, "duress login")
            """, name: "load.kcs")
        #expect(r.code == 0, "\(r.err)")
        let warning = try #require(tagged("LOAD", in: r.out).first, "\(r.out)")
        #expect(
            warning.hasPrefix("this session is a duress login: the card derives other keys from these words"),
            "\(warning)")
        #expect(
            warning.contains(
                "If you logged in with your PIN and not the duress PIN, every login on this card is a duress login"),
            "\(warning)")
        // The words' keys are what later logins compare with: the main PIN is quiet, the duress PIN named.
        #expect(tagged("MAIN", in: r.out) == ["false"] && tagged("AGAIN", in: r.out) == ["true"], "\(r.out)")
    }

    @Test func wordsLoadedWithTheMainPIN_warnNothing() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            fourZeroCard("main-load") + """
                print "LOAD", contains((card.load mnemonic "\(words)" --force), "warning")
                """, name: "main.kcs")
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("LOAD", in: r.out) == ["false"], "\(r.out)")
    }

    // MARK: - 4.0 details

    @Test func openShowsNoSlotOnAFourZeroCard_andTheSlotOnAThreeOneCard() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            fourZeroCard("open-four") + """
                card.logout
                let o = card.open
                print "FOUR", contains(o, "slot"), o.secureChannel, o.open
                card.connect --sim open-three
                card.init --pin "\(pin)" --puk "111122223333" --pairing "open pairing"
                card.pair --password "open pairing"
                let t = card.open
                print "THREE", t.slot, t.open, contains(t, "secureChannel")
                """, name: "open.kcs")
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("FOUR", in: r.out) == ["false V2 (a 4.0 card: no pairing) true"], "\(r.out)")
        #expect(tagged("THREE", in: r.out) == ["0 true false"], "\(r.out)")
    }

    @Test func theMasterXpubRefusal_givesTheReasonOfTheCardsGeneration() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            fourZeroCard("xpub-four") + """
                try { card.export "m" --xpub } catch e { print "FOUR", e.message }
                card.connect --sim xpub-three
                card.init --pin "\(pin)" --puk "111122223333" --pairing "xpub pairing"
                card.login "\(pin)" --password "xpub pairing"
                card.load mnemonic "\(words)"
                try { card.export "m" --xpub } catch e { print "THREE", e.message }
                """, name: "xpub.kcs")
        #expect(r.code == 0, "\(r.err)")
        #expect(
            tagged("FOUR", in: r.out) == [
                "card.export: a 4.0 card does not export the master's extended public key (it "
                    + "refuses EXPORT KEY of the master's chain code, SW 6985); export an account instead, e.g. card.export "
                    + "\"m/44'/60'/0'\" --xpub"
            ], "\(r.out)")
        #expect(
            tagged("THREE", in: r.out).first?.contains("applet 3.1/3.2 answer from a scratch buffer") == true,
            "\(r.out)")
    }

    @Test func cardInfo_givesLEEModeOnAFourZeroCard() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            fourZeroCard("lee-info") + """
                print "BEFORE", card.info().leeMode
                card.load mnemonic "\(words)" --lee --force
                print "AFTER", card.info().leeMode
                card.connect --sim lee-three
                print "THREE", contains(card.info(), "leeMode")
                """, name: "lee.kcs")
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("BEFORE", in: r.out) == ["false"] && tagged("AFTER", in: r.out) == ["true"], "\(r.out)")
        #expect(tagged("THREE", in: r.out) == ["false"], "a 3.x card has no LEE mode byte: \(r.out)")
    }

    @Test func pairingOptionsOnAFourZeroCard_areRefusedWithInitsSentence() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            card.connect --sim pairing-four --profile 4.0
            try { card.init --pin "\(pin)" --puk "\(puk)" --duress "\(duress)" --pairing "p" } catch e { print "INIT", e.kind, e.message }
            card.init --pin "\(pin)" --puk "\(puk)" --duress "\(duress)"
            try { card.login "\(pin)" --password "p" } catch e { print "PASSWORD", e.kind, e.message }
            try { card.login "\(pin)" --default } catch e { print "DEFAULT", e.kind }
            try { card.login "\(pin)" --ephemeral } catch e { print "EPHEMERAL", e.kind }
            print "LOGIN", card.login("\(pin)").secureChannel
            """, name: "pairing.kcs")
        #expect(r.code == 0, "\(r.err)")
        let sentence =
            "a 4.0 card needs no pairing and has no pairing slots: card.login opens its secure channel, "
            + "checked against the card's certificate"
        #expect(tagged("INIT", in: r.out) == ["card.noPairing card.init: " + sentence], "\(r.out)")
        #expect(tagged("PASSWORD", in: r.out) == ["card.noPairing card.login: " + sentence], "\(r.out)")
        #expect(
            tagged("DEFAULT", in: r.out) == ["card.noPairing"] && tagged("EPHEMERAL", in: r.out) == ["card.noPairing"],
            "\(r.out)")
        #expect(tagged("LOGIN", in: r.out) == ["V2 (a 4.0 card: no pairing)"], "\(r.out)")
    }

    @Test func ndef_readsWritesAndClears_onBothGenerations_andKeepsAcrossProcesses() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let long = String(repeating: "ab", count: 300)  // 300 bytes: two STORE DATA chunks on a 4.0 card
        let r = try home.run(
            fourZeroCard("ndef-four") + """
                let empty = card.ndef
                print "EMPTY", empty.message, empty.length, empty.capacity, empty.uri
                let w = card.ndef write --uri "https://keycard.tech/ndef"
                print "URI", w.message, w.length, w.uri
                print "LONG", (card.ndef write 0x\(long)).length
                card.connect --sim ndef-three
                card.init --pin "\(pin)" --puk "111122223333" --pairing "ndef pairing"
                card.login "\(pin)" --password "ndef pairing"
                print "THREE", (card.ndef).length, (card.ndef).capacity
                try { card.ndef write 0x\(long) } catch e { print "TOO-LONG", e.message }
                print "THREE-URI", (card.ndef write --uri "https://keycard.tech").uri
                try { card.ndef write } catch e { print "NO-MESSAGE", e.kind }
                try { card.ndef read --uri "https://x" } catch e { print "READ-URI", e.kind }
                """, name: "ndef.kcs")
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("EMPTY", in: r.out) == ["0x 0 510 nil"], "\(r.out)")
        // One short URI record: D1 01 LEN 'U', prefix code 04 (https://), then the rest.
        #expect(
            tagged("URI", in: r.out) == [
                "0xd101125504" + Data("keycard.tech/ndef".utf8).map { String(format: "%02x", $0) }.joined()
                    + " 22 https://keycard.tech/ndef"
            ], "\(r.out)")
        #expect(tagged("LONG", in: r.out) == ["300"], "\(r.out)")
        #expect(tagged("THREE", in: r.out) == ["0 221"], "\(r.out)")
        #expect(
            tagged("TOO-LONG", in: r.out) == [
                "STORE DATA: this card holds an NDEF message of at most 221 bytes, got 300"
            ], "\(r.out)")
        #expect(tagged("THREE-URI", in: r.out) == ["https://keycard.tech"], "\(r.out)")
        #expect(tagged("NO-MESSAGE", in: r.out) == ["call.missingArgument"], "\(r.out)")
        #expect(tagged("READ-URI", in: r.out) == ["builtin.optionNotApplicable"], "\(r.out)")

        // A new process reads what the cards keep; clear empties the file.
        let later = try home.run(
            """
            card.connect --sim ndef-four
            card.login "\(pin)"
            print "KEPT", (card.ndef).message == 0x\(long)
            print "CLEARED", (card.ndef clear).length, (card.ndef).length
            card.connect --sim ndef-three
            card.login "\(pin)"
            print "KEPT-THREE", (card.ndef).uri
            """, name: "later.kcs")
        #expect(later.code == 0, "\(later.err)")
        #expect(
            tagged("KEPT", in: later.out) == ["true"] && tagged("CLEARED", in: later.out) == ["0 0"], "\(later.out)")
        #expect(tagged("KEPT-THREE", in: later.out) == ["https://keycard.tech"], "\(later.out)")
    }
}
