// A PSBT signed by a card in a reader (docs/bitcoin.md): a simulated 4.0 card served through vpcd
// and pcscd (`kcs sim attach --profile 4.0`) signs a P2WPKH input (ECDSA) and a Taproot one (its
// Schnorr SIGN with the BIP-341 tweak) over the real PC/SC stack; bdkpython finalizes and Bitcoin
// Core's interpreter (py-bitcoinkernel) verifies both inputs.
import Foundation
import KCSTestSupport
import Testing

extension RealPCSCD {
    @Suite("A PSBT signed by a card in a reader")
    struct PSBTReaderTests {
        @Test func p2wpkhAndTaproot_signedOverPCSC_verifiedByCore() throws {
            try withAttachedSimulator(card: "btc-reader", profile: "4.0") { _, reader, _ in
                let home = try BatchHome()
                defer { home.remove() }
                let words =
                    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
                let funding = BitcoinOracle.fundingTransaction
                let r = try home.run(
                    """
                    let c = card.connect pcsc "\(reader)"
                    card.trust "{c.identity}"
                    card.init --pin "123456" --puk "987654321098" --duress "654321"
                    card.login "123456"
                    card.load mnemonic "\(words)" --name kc
                    use card
                    let p = psbt.create [{"prevtx": "\(funding)", "vout": 0, "path": "m/84'/1'/0'/0/0"}, {"prevtx": "\(funding)", "vout": 1, "path": "m/86'/1'/0'/0/0"}] [{"address": "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", "amount": 149000}] --chain test
                    let s = psbt.sign $p --chain test
                    print "N", s.signed
                    print "S", s.psbt
                    """)
                #expect(r.code == 0, "\(r.err)")
                #expect(tagged("N", in: r.out) == ["[0, 1]"])
                let signed = try #require(tagged("S", in: r.out).first)
                let oracle = try BitcoinOracle.run("finalize_verify", ["psbt": signed])
                #expect(oracle["could_finalize"] as? Bool == true)
                #expect(oracle["inputs"] as? [Bool] == [true, true])
            }
        }
    }
}
