// The card's wallet commands (docs/card-console.md) through the real kcs binary in batch runs, on a
// simulated card in the kcs home: each test logs in with `card.login` (the stored pairing in
// later runs), so what a batch user sees is what is checked — across separate processes for
// the card key in the store, the stored pairing and the PIN-less key kcs remembers. What a script
// can say is in Tests/TranscriptTests/Scripts/card (card_key_two_runs, pinless_next_run,
// key_refusals, info_follows_key); these need generated words or a dropped connection.
import Foundation
import KCSTestSupport
import Testing

/// The lines a card session starts with: a blank simulated card initialised and logged in.
private let setUp = """
    card.connect
    card.init --pin "123456" --puk "987654321098" --pairing "test pairing"
    card.login "123456" --password "test pairing"
    """
private let words = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
/// m/44'/60'/0'/0/0 of `words`.
private let firstAddress = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"

@Suite("Card keys in batch runs")
struct CardKeysConsoleTests {
    @Test func cardMnemonicLoad_showsTheWordsOnce_onStandardOutput() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            \(setUp)
            let k = card.mnemonic --words 12 --load --name fresh
            print "K", k.name, k.kind, k.source
            """)
        #expect(r.code == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        let shown = lines.firstIndex { $0.hasPrefix("Write these 12 words down") }
        #expect(shown != nil, "\(r.out)")
        if let shown {
            #expect(
                lines[(shown + 1)...].prefix(12).allSatisfy {
                    $0.range(of: #"^ *\d+\. [a-z]+$"#, options: .regularExpression) != nil
                })
        }
        #expect(tagged("K", in: r.out) == ["fresh CARD generated"])
    }

    @Test func connectionLostAfterLoadKey_theKeyOnTheCardIsRecordedByUseCardLater() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let setup = try home.run(setUp, name: "setup.kcs")
        #expect(setup.code == 0, "\(setup.err)")
        // connect: SELECT (1); login with the stored pairing: SELECT, OPEN, MUTUALLY AUTHENTICATE,
        // GET STATUS, VERIFY (6); card.load: GET STATUS, LOAD KEY (8); the EXPORT KEY that
        // records the key is lost with the connection.
        var dropping = home
        dropping.environment["KCS_SIM_DROP_AFTER"] = "8"
        let lost = try dropping.run(
            "card.connect\ncard.login \"123456\"\ncard.load mnemonic \"\(words)\" --name kc\n",
            name: "lost.kcs")
        #expect(lost.code == 69, "a lost connection: exit 69, got \(lost.code): \(lost.err)")
        #expect(lost.err.contains("the connection to the card was lost"), "\(lost.err)")
        let after = try home.run(
            """
            card.connect
            card.login "123456"
            print "N", len(key.list())
            try { card.load mnemonic "\(words)" } catch e { print "E", e.kind }
            use card
            let k = key.list()[0]
            print "K", len(key.list()), k.kind
            let s = sign \(testDigest) --path "m/44'/60'/0'/0/0"
            print "S", s.verified, s.signer
            """, name: "after.kcs")
        #expect(after.code == 0, "\(after.err)")
        #expect(tagged("N", in: after.out) == ["0"], "nothing was recorded: \(after.out)")
        #expect(tagged("E", in: after.out) == ["cardKey.keyPresent"])
        #expect(tagged("K", in: after.out) == ["1 CARD"])
        #expect(tagged("S", in: after.out) == ["true \(firstAddress)"])
    }
}
