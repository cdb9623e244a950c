// psbt.sign at a terminal (docs/bitcoin.md, "What psbt.show shows"): the review a person reads
// before the first signature — network, each input and output, CHANGE, the fee and its rate, the
// signer — and `n` leaves nothing signed and nothing recorded; `y` signs.
import Foundation
import KCSTestSupport
import Testing

@Suite("psbt.sign at a terminal")
struct PSBTTerminalTests {
    static let abandon =
        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

    @Test func review_thenNo_signsNothing_thenYes_signs() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let funding = BitcoinOracle.fundingTransaction
        let t = try TerminalSession(environment: home.environment, folder: home.folder)
        try t.answer("kcs> ", with: "import mnemonic \"\(Self.abandon)\" --name btc")
        try t.newVault("vault-pw-1")
        try t.answer("kcs> ", with: "use key btc-0")
        try t.answer(
            "kcs[btc-0]> ",
            with:
                "let p = psbt.create [{\"prevtx\": \"\(funding)\", \"vout\": 0, \"path\": \"m/84'/1'/0'/0/0\"}] [{\"address\": \"tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx\", \"amount\": 80000}, {\"amount\": 19000, \"path\": \"m/84'/1'/0'/1/0\"}] --chain test"
        )
        try t.answer("kcs[btc-0]> ", with: "let s = psbt.sign $p")
        try t.answer("Sign 1 input? [y/N] ", with: "n")
        try t.answer("kcs[btc-0]> ", with: "print \"H\", len((history --kind bitcoin))")
        try t.answer("kcs[btc-0]> ", with: "let s = psbt.sign $p")
        try t.answer("Sign 1 input? [y/N] ", with: "y")
        try t.answer("kcs[btc-0]> ", with: "print \"S\", s.signed, len((history --kind bitcoin))")
        try t.answer("kcs[btc-0]> ", with: ".quit")
        let text = t.finish().text
        for shown in [
            "Bitcoin transaction (PSBT v0, Bitcoin testnet3)", "network         Bitcoin testnet3",
            "amount proof  verified by its previous transaction", "owner         yours at m/84'/1'/0'/0/0",
            "output 0        tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", "change        CHANGE, yours at m/84'/1'/0'/1/0",
            "fee             0.00001 tBTC (1,000 sat)", "signed by", "the software key btc",
            "H 0", "S [0] 1",
        ] {
            #expect(text.contains(shown), "missing \(shown): \(text)")
        }
        #expect(text.contains("cancelled"), "\(text)")
    }
}
