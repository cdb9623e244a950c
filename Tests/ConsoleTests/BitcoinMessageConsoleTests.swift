// Messages signed by the simulated card (docs/bitcoin.md, "Messages"): BIP-322 simple signatures
// for P2WPKH (ECDSA) and P2TR (the 4.0 card's Schnorr SIGN with the tweak) — their virtual
// transaction `to_sign`, with the signature as its witness, verified by Bitcoin Core's own
// interpreter (py-bitcoinkernel) against `to_spend`'s output — and the legacy form.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

@Suite("Bitcoin messages signed by the card")
struct BitcoinMessageConsoleTests {
    @Test func card4_signsBIP322AndLegacy_verifiedByCore() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            card.connect --sim msg --profile 4.0
            card.init --pin "123456" --puk "987654321098" --duress "654321"
            card.login "123456"
            card.load mnemonic "\(testMnemonic)" --name kc
            use card
            for p in ["m/84'/0'/0'/0/0", "m/86'/0'/0'/0/0", "m/44'/0'/0'/0/0"] {
              let s = bitcoin.sign-message "kcs on a card" --path $p
              print "S", s.form, s.address, s.signature
              print "V", (bitcoin.verify-message $s.address "kcs on a card" $s.signature)
            }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("V", in: r.out) == ["true", "true", "true"])
        let signed = tagged("S", in: r.out).map { $0.split(separator: " ").map(String.init) }
        // BIP-44/84/86 addresses of the mnemonic (bitcoin/bips bip-0084, bip-0086 test vectors).
        #expect(
            signed.map { $0.last(where: { $0.hasPrefix("bc1") || $0.hasPrefix("1") }) } == [
                "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
                "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr",
                "1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA",
            ])
        for fields in signed.prefix(2) {
            let address = fields[fields.count - 2], signature = fields[fields.count - 1]
            let script = try BitcoinNetwork.bitcoin.script(of: address)
            let spend = BitcoinMessage.toSpend(Array("kcs on a card".utf8), script: script)
            let witness = try PSBTFields.witness(Array(try #require(Data(base64Encoded: signature))))
            let toSign = BitcoinMessage.toSign(spend, witness: witness)
            let verdict = try BitcoinOracle.run(
                "verify",
                ["tx": Hex.encode(toSign.serialized), "spent": [["script": Hex.encode(script), "amount": 0]]])
            #expect(verdict["inputs"] as? [Bool] == [true], "\(address)")
        }
    }
}
