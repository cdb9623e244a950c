// The card trace on a card in a reader (docs/card-explained.md): the ATR decoded at the connection,
// every exchange explained as the console makes it through pcscd, and `--reveal` refused — a card in
// a reader is real as far as kcs can tell (here a simulated card behind vpcd, which kcs cannot tell apart).
import CardProtocol
import Foundation
import KCSTestSupport
import Testing

extension RealPCSCD {
    @Suite("The card trace on a card in a reader")
    struct TraceOnReaderTests {
        @Test func atrExplained_revealRefused_sessionExplained() throws {
            try withAttachedSimulator(card: "trace-reader") { _, reader, _ in
                let home = try BatchHome()
                defer { home.remove() }
                let r = try home.run(
                    """
                    card.trace explain --reveal
                    card.connect pcsc "\(reader)"
                    print "reveal after connecting:", card.trace().reveal
                    try { card.trace explain --reveal } catch e { print e.kind }
                    card.init --pin "123456" --puk "987654321098" --pairing "reader pairing"
                    card.login "123456" --password "reader pairing"
                    print card.status().pinTriesLeft
                    """, name: "reader.kcs")
                #expect(r.code == 0, "\(r.err)")
                #expect(r.out == "reveal after connecting: false\ncard.revealRefused\n3\n", "\(r.out)\(r.err)")
                #expect(r.err.contains("card.trace: --reveal is off: it is allowed only on a simulated card"))
                // The ATR, byte by byte, before the first exchange.
                #expect(r.err.contains("── ATR of the card in \(reader)"))
                #expect(r.err.contains("TS 3B direct convention"))
                #expect(r.err.contains("historical bytes 4B 65 79 63 61 72 64 53 69 6D \"KeycardSim\""))
                #expect(r.err.contains("TCK 1F check byte: XOR of T0 … TCK is 00 → correct"))
                // The session, explained: the secure channel from the inside, what changed, no secret.
                #expect(r.err.contains("M = CBC-MAC(macKey, 80 20 00 00 20 ‖ 00×11 ‖ C)"))
                #expect(r.err.contains("PIN •••••• (never shown)"))
                #expect(
                    r.err.contains("card: secure channel open: the card's MAC shows it holds the same session keys"))
                #expect(!r.err.contains(KeycardExplainer.unknown), "\(r.err)")
                // The PIN as a word of its own (random hex shown at this level holds any six digits now and then).
                let words = Set(r.err.split { !$0.isLetter && !$0.isNumber }.map(String.init))
                #expect(!words.contains("123456"))
                for secret in ["987654321098", "313233343536"] { #expect(!r.err.contains(secret)) }
                #expect(r.err.contains("encKey = K[0..32] (AES-256-CBC of every command and answer): <masked 32 B>"))
            }
        }
    }
}
