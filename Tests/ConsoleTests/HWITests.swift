// `kcs hwi` as Bitcoin Core's external signer calls it: the argument and standard-input shapes of
// bitcoin/bitcoin src/external_signer.cpp and of its functional tests' mock signer
// (test/functional/mocks/signer.py) — `enumerate`; `--fingerprint F --chain C getdescriptors
// --account N`; `--fingerprint F --chain C displayaddress --desc D`; `--stdin --fingerprint F
// --chain C` with `signtx PSBT` (older Core: `signtx "PSBT"`) on standard input — for every chain
// name; one JSON document on standard output, HWI's error objects, exit status 0. The signed PSBT
// is finalized by bdkpython and verified by Bitcoin Core's interpreter (py-bitcoinkernel).
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private let abandon = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

/// A home with "abandon … about" stored as `w` and hwi.json naming it.
private func configuredHome() throws -> BatchHome {
    let home = try BatchHome()
    let r = try home.run("import mnemonic \"\(abandon)\" --name w")
    #expect(r.code == 0, "\(r.err)")
    try home.write(#"{"key": "w"}"#, to: "home/hwi.json")
    return home
}

private func json(_ text: String) throws -> Any {
    let lines = text.split(separator: "\n")
    #expect(lines.count == 1, "one JSON document on standard output: \(text)")
    return try JSONSerialization.jsonObject(with: Data(text.utf8))
}

@Suite("kcs hwi: Bitcoin Core's external signer")
struct HWITests {
    @Test func enumerate_getdescriptors_andDisplayaddress_forEveryChain() throws {
        let home = try configuredHome()
        defer { home.remove() }
        let e = try home.run(arguments: ["hwi", "enumerate"])
        #expect(e.code == 0)
        let devices = try #require(try json(e.out) as? [[String: Any]])
        #expect(devices.count == 1)
        #expect(devices[0]["fingerprint"] as? String == "73c5da0a")
        #expect(devices[0]["model"] as? String == "kcs software key")
        for chain in ["main", "test", "testnet4", "signet", "regtest"] {
            let r = try home.run(arguments: [
                "hwi", "--fingerprint", "73c5da0a", "--chain", chain, "getdescriptors", "--account", "0",
            ])
            #expect(r.code == 0)
            let d = try #require(try json(r.out) as? [String: [String]])
            let coin = chain == "main" ? "0h" : "1h"
            #expect(d["receive"]?.count == 4 && d["internal"]?.count == 4)
            #expect(
                d["receive"]?[2].hasPrefix("wpkh([73c5da0a/84h/\(coin)/0h]\(chain == "main" ? "xpub" : "tpub")")
                    == true, "\(chain)")
            #expect(d["internal"]?.allSatisfy { $0.contains("/1/*)") } == true)
            for text in d["receive"]! + d["internal"]! { #expect(DescriptorChecksum.verify(text)) }
        }
        // BIP-84's first mainnet receive address of "abandon … about" (bitcoin/bips bip-0084).
        let root = try ExtendedKey.master(seed: try Mnemonic(phrase: abandon).seed())
        let key = try root.derive(try DerivationPath("m/84'/0'/0'/0/0")).publicKey
        let desc = DescriptorChecksum.adding(to: "wpkh([73c5da0a/84h/0h/0h/0/0]\(Hex.encode(key.compressed)))")
        let a = try home.run(arguments: [
            "hwi", "--fingerprint", "73c5da0a", "--chain", "main", "displayaddress", "--desc", desc,
        ])
        #expect(try json(a.out) as? [String: String] == ["address": "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"])
        // A key with this fingerprint that is not this wallet's key at the path is refused.
        let other = try root.derive(try DerivationPath("m/84'/0'/0'/0/1")).publicKey
        let wrong = "wpkh([73c5da0a/84h/0h/0h/0/0]\(Hex.encode(other.compressed)))"
        let w = try json(
            try home.run(arguments: ["hwi", "--fingerprint", "73c5da0a", "displayaddress", "--desc", wrong]).out)
        #expect((w as? [String: Any])?["code"] as? Int == -13)
    }

    @Test func signtx_throughStdin_asCoreSendsIt_isVerifiedByCore() throws {
        let home = try configuredHome()
        defer { home.remove() }
        let funding = BitcoinOracle.fundingTransaction
        let r = try home.run(
            """
            let m = hd.master "\(abandon)"
            let p = psbt.create [{"prevtx": "\(funding)", "vout": 0, "path": "m/84'/1'/0'/0/0"}, {"prevtx": "\(funding)", "vout": 1, "path": "m/86'/1'/0'/0/0"}] [{"address": "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", "amount": 149000}] --key $m --chain test
            print "P", p.psbt
            """)
        let unsigned = try #require(tagged("P", in: r.out).first)
        for stdin in ["signtx \(unsigned)\n", "signtx \"\(unsigned)\"\n\n"] {
            let s = try home.run(
                arguments: ["hwi", "--stdin", "--fingerprint", "73c5da0a", "--chain", "test"], stdin: stdin)
            #expect(s.code == 0)
            let answer = try #require(try json(s.out) as? [String: Any])
            #expect(answer["signed"] as? Bool == true)
            let signed = try #require(answer["psbt"] as? String)
            let oracle = try BitcoinOracle.run("finalize_verify", ["psbt": signed])
            #expect(oracle["could_finalize"] as? Bool == true)
            #expect(oracle["inputs"] as? [Bool] == [true, true])
        }
        // signmessage: the legacy recoverable signature of the key at the path.
        let m = try home.run(arguments: ["hwi", "--fingerprint", "73c5da0a", "signmessage", "hello", "m/44h/0h/0h/0/0"])
        let sig = try #require((try json(m.out) as? [String: String])?["signature"])
        #expect(
            try BitcoinMessage.verify(
                address: "1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA", message: Array("hello".utf8), signature: sig,
                network: .bitcoin))
        // On mainnet the same PSBT (testnet keys) is signed by no input: its keys' coin type is 1'.
        let main = try home.run(
            arguments: ["hwi", "--stdin", "--fingerprint", "73c5da0a", "--chain", "main"], stdin: "signtx \(unsigned)\n"
        )
        #expect((try json(main.out) as? [String: Any])?["signed"] as? Bool == false)
    }

    @Test func errors_areHWIObjects_onStandardOutput_withExitZero() throws {
        let home = try configuredHome()
        defer { home.remove() }
        let cases: [([String], Int)] = [
            (["hwi", "--chain", "test", "getdescriptors"], -1),
            (["hwi", "--fingerprint", "00000001", "getdescriptors"], -3),
            (["hwi", "--fingerprint", "73c5da0a", "--chain", "bogus", "getdescriptors"], -7),
            (["hwi", "--fingerprint", "73c5da0a", "signtx", "not a psbt"], -5),
            (["hwi", "--fingerprint", "73c5da0a", "wipe"], -9),
            (["hwi", "--fingerprint", "73c5da0a", "frobnicate"], -7),
        ]
        for (args, code) in cases {
            let r = try home.run(arguments: args)
            #expect(r.code == 0)
            let answer = try json(r.out) as? [String: Any]
            #expect(answer?["code"] as? Int == code, "\(args)")
            #expect(answer?["error"] is String)
        }
        // Not configured: no device, not an error.
        let empty = try BatchHome()
        defer { empty.remove() }
        #expect(try json(try empty.run(arguments: ["hwi", "enumerate"]).out) as? [Any] != nil)
        #expect((try json(try empty.run(arguments: ["hwi", "enumerate"]).out) as? [Any])?.isEmpty == true)
    }
}

extension HWITests {
    /// The card as Core's signer: hwi.json names the simulated 4.0 card and a PIN file; the
    /// descriptors are the card's own (exported), and the PSBT is signed on the card.
    @Test func card_asTheConfiguredSigner_exportsDescriptors_andSignsTaproot() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let setup = try home.run(
            """
            card.connect --sim hw --profile 4.0
            card.init --pin "123456" --puk "987654321098" --duress "654321"
            card.login "123456"
            card.load mnemonic "\(abandon)" --name kc
            let m = hd.master "\(abandon)"
            let funding = "\(BitcoinOracle.fundingTransaction)"
            let p = psbt.create [{"prevtx": funding, "vout": 1, "path": "m/86'/1'/0'/0/0"}] [{"address": "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", "amount": 49000}] --key $m --chain test
            print "P", p.psbt
            """)
        #expect(setup.code == 0, "\(setup.err)")
        let pin = try home.write("123456\n", to: "pin")
        chmod(pin, 0o600)
        try home.write(#"{"card": "sim:hw", "pin-file": "\#(pin)"}"#, to: "home/hwi.json")
        let e = try json(try home.run(arguments: ["hwi", "enumerate"]).out) as? [[String: Any]]
        #expect(e?.first?["fingerprint"] as? String == "73c5da0a")
        #expect(e?.first?["model"] as? String == "keycard")
        let d = try json(
            try home.run(arguments: ["hwi", "--fingerprint", "73c5da0a", "--chain", "test", "getdescriptors"]).out)
        #expect(
            (d as? [String: [String]])?["receive"]?.last?.hasPrefix(
                "tr([73c5da0a/86h/1h/0h]tpubDDfvzhdVV4unsoKt5aE6dcsNsfeWbTgmLZPi8LQDYU2xixrYemMfWJ3BaVneH3u7DBQePdTwhpybaKRU95pi6PMUtLPBJLVQRpzEnjfjZzX/0/*)"
            ) == true)
        let unsigned = try #require(tagged("P", in: setup.out).first)
        let s = try home.run(
            arguments: ["hwi", "--stdin", "--fingerprint", "73c5da0a", "--chain", "test"], stdin: "signtx \(unsigned)\n"
        )
        let signed = try #require((try json(s.out) as? [String: Any])?["psbt"] as? String, "\(s.out) \(s.err)")
        let oracle = try BitcoinOracle.run("finalize_verify", ["psbt": signed])
        #expect(oracle["inputs"] as? [Bool] == [true])
    }
}
