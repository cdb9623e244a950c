// Bad input to the Bitcoin commands gets a clear error that names the argument and what was
// expected, and changes nothing (docs/bitcoin.md); a wrong PIN in hwi.json is an error object,
// and the card's PIN counter is not run down by repeated calls past kcs's guard.
import Foundation
import KCSTestSupport
import Testing

@Suite("Bad input to the Bitcoin commands")
struct PSBTBadInputTests {
    @Test func errorsNameTheArgument_andNothingIsSigned() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            try { psbt.read "missing.psbt" } catch e { print "A", e.kind }
            try { psbt.read "cHNidP8BAA==" } catch e { print "B", e.kind }
            try { psbt.create [{"txid": "11", "vout": 0, "amount": 1}] [] } catch e { print "C", e.message }
            try { psbt.create [{"txid": "\(String(repeating: "11", count: 32))", "vout": -1, "amount": 1}] [] } catch e { print "D", e.message }
            try { psbt.create [] [{"address": "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "amount": 1}] --chain test } catch e { print "E", e.kind }
            try { descriptor.addresses "wpkh(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)" --range "5..1" } catch e { print "F", e.message }
            try { bitcoin.verify-message "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l" "m" "not base64!" } catch e { print "G", e.kind }
            try { psbt.sign "cHNidP8BAA==" } catch e { print "H", e.kind }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("A", in: r.out) == ["psbt.unreadableFile"])
        #expect(tagged("B", in: r.out).first?.hasPrefix("psbt.") == true)
        #expect(tagged("C", in: r.out).first?.contains("inputs[0].txid") == true)
        #expect(tagged("D", in: r.out).first?.contains("inputs[0].vout") == true)
        #expect(tagged("E", in: r.out) == ["bitcoin.address.otherNetwork"])
        #expect(tagged("F", in: r.out).first?.contains("--range") == true)
        #expect(tagged("G", in: r.out) == ["bitcoin.message.signature"])
        #expect(tagged("H", in: r.out).first?.hasPrefix("psbt.") == true)
    }

    @Test func wrongPINFile_isAnErrorObject_andKcsStopsBeforeTheLastTry() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let setup = try home.run(
            """
            card.connect --sim pin --profile 4.0
            card.init --pin "123456" --puk "987654321098" --duress "654321"
            card.login "123456"
            card.load mnemonic "\(testMnemonic)" --name kc
            """)
        #expect(setup.code == 0, "\(setup.err)")
        let pin = try home.write("111111\n", to: "pin")
        chmod(pin, 0o600)
        try home.write(#"{"card": "sim:pin", "pin-file": "\#(pin)"}"#, to: "home/hwi.json")
        // Bitcoin Core calls enumerate again and again: each answer is an error object, and kcs
        // refuses to send the PIN once a single try is left, so the card is never blocked by it:
        // the right PIN (sent knowingly, --force) still opens it.
        for _ in 0..<4 {
            let e = try home.run(arguments: ["hwi", "enumerate"])
            let devices = try JSONSerialization.jsonObject(with: Data(e.out.utf8)) as? [[String: Any]]
            #expect(devices?.first?["code"] as? Int == -3, "\(e.out)")
            #expect(devices?.first?["error"] is String)
        }
        let after = try home.run(
            """
            card.connect --sim pin --profile 4.0
            card.login "123456" --force
            print "OK", card.info().initialized
            """)
        #expect(tagged("OK", in: after.out) == ["true"], "\(after.err)")
    }
}
