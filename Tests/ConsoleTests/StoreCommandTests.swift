// The store commands (docs/store.md) through the real kcs binary in batch mode, where a script
// cannot say it: a wrong vault passphrase in a second run, keystore files' modes and JSON, an
// HD rotation's new mnemonic shown once (keystore.load itself and ECDSA rotations, pending ones
// included: Tests/TranscriptTests/Scripts/keystore and Scripts/store). Each test gets an empty
// kcs home and a vault passphrase in the environment, as a batch user gives them; each runs kcs
// once or twice (a vault unlock costs ~0.3 s of scrypt in a debug build).
import Foundation
import KCSTestSupport
import Testing

/// The kcs binary these tests run (`TestPaths.kcsBinary`).
let storeTestBinary = TestPaths.kcsBinary

/// A digest to sign (the one of the examples).
let testDigest = "0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8"
/// go-ethereum's and web3's test private key; its address is 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23.
let testPrivateKey = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
let testMnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

@Suite("Store commands in batch runs")
struct StoreCommandTests {
    // MARK: - The vault passphrase

    @Test func batchRun_wrongVaultPassphrase_refusesEverySecretAndChangesNothing() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let first = try home.run("import privkey \(testPrivateKey) --name a")
        #expect(first.code == 0, "\(first.err)")
        var wrong = home
        wrong.environment["KCS_VAULT_PASSPHRASE"] = BatchHome.vaultPassphrase + "!"
        let r = try wrong.run(
            """
            try { import privkey 0x\(String(repeating: "42", count: 32)) --name b } catch e { print "E", e.kind }
            try { sign \(testDigest) --key a } catch e { print "E", e.kind }
            try { key.reveal a } catch e { print "E", e.kind }
            print "N", len(key.list()), len(history())
            print "V", vault.status().state
            sign \(testDigest) --key a
            """)
        #expect(tagged("E", in: r.out) == ["store.wrongPassphrase", "store.wrongPassphrase", "store.wrongPassphrase"])
        #expect(tagged("N", in: r.out) == ["1 0"] && tagged("V", in: r.out) == ["locked"], "\(r.out)")
        // Uncaught, the error ends the batch run with the runtime error status and says why.
        #expect(r.code == 70)
        #expect(r.err.contains("the vault passphrase is wrong; nothing was changed"), "\(r.err)")
    }

    // MARK: - JSON exports

    @Test func keyListAndHistory_json_useTheFieldNamesOfTheirText() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            import mnemonic "\(testMnemonic)" --name m
            sign \(testDigest) --key m-0
            print (key.list --json)
            print (history --json)
            print history()[0]
            """)
        #expect(r.code == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        let keys = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [[String: Any]])
        #expect(keys.map { $0["name"] as? String } == ["m", "m-0"])
        #expect(keys[1]["path"] as? String == "m/44'/60'/0'/0/0" && keys[1]["retired"] as? Bool == false)
        #expect(keys[1]["created"] != nil && keys[1]["createdAt"] == nil)
        #expect(!lines[0].contains("\\/"), "no escaped slashes: \(lines[0])")
        let history = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [[String: Any]])
        #expect(history.count == 1 && history[0]["key"] as? String == "m-0" && history[0]["time"] != nil)
        #expect(history[0]["timestamp"] == nil && (history[0]["signature"] as? String)?.count == 132)
        #expect(lines.dropFirst(2).contains { $0.hasPrefix("time ") }, "the text's field is time too: \(r.out)")
    }

    // MARK: - keystore.save (keystore.load: Tests/TranscriptTests/Scripts/keystore)

    @Test func keystoreSave_thenLoad_roundTripsTheAddressAndMarksTheKeyRevealed() throws {
        let home = try BatchHome()
        defer { home.remove() }
        var h = home
        h.environment["KS_NEW"] = "a new keystore password"
        let out = home.path("raw.json"), child = home.path("child.json")
        let r = try h.run(
            """
            import privkey \(testPrivateKey) --name raw
            let s = keystore save raw "\(out)" (env "KS_NEW" --secret password)
            print "S", s.address, s.kdf
            try { keystore save raw "\(out)" (env "KS_NEW" --secret password) } catch e { print "E", e.kind }
            let back = keystore load "\(out)" (env "KS_NEW" --secret password) --name back
            print "L", back.address, back.source
            import mnemonic "\(testMnemonic)" --name m
            try { keystore save m "\(child)" (env "KS_NEW" --secret password) } catch e { print "E", e.kind }
            keystore save m-0 "\(child)" (env "KS_NEW" --secret password) --light
            print "C", (keystore load "\(child)" (env "KS_NEW" --secret password) --name child).address
            let due = keys.rotation
            for k in due { print "R", k.name, join(k.reasons, "; ") }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("S", in: r.out) == ["0x2c7536E3605D9C16a7a3D7b1898e529396a65c23 scrypt n=262144, r=8, p=1"])
        #expect(tagged("E", in: r.out) == ["keystore.fileExists", "keystore.notExportable"])
        #expect(tagged("L", in: r.out) == ["0x2c7536E3605D9C16a7a3D7b1898e529396a65c23 keystore"])
        #expect(tagged("C", in: r.out) == ["0x9858EfFD232B4033E47d90003D41EC34EcaEda94"])
        let reasons = tagged("R", in: r.out)
        #expect(
            reasons.contains { $0.hasPrefix("raw imported from a raw private key; secret revealed on ") }, "\(reasons)")
        #expect(reasons.contains { $0.hasPrefix("m-0 secret revealed on ") }, "\(reasons)")
        for file in [out, child] {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
            let json =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
            let crypto = json?["crypto"] as? [String: Any]
            #expect(json?["version"] as? Int == 3 && crypto?["kdf"] as? String == "scrypt")
            let n = (crypto?["kdfparams"] as? [String: Any])?["n"] as? Int
            #expect(n == (file == out ? 262_144 : 4096))
        }
    }

    // MARK: - Rotation

    // An ECDSA rotation and a pending one (resume, rollback): Tests/TranscriptTests/Scripts/store.

    @Test func keyRotate_hdMaster_newMnemonicShownOnce_childrenAtTheSamePaths() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            import mnemonic "\(testMnemonic)" --accounts 2 --name seed
            try { key rotate seed --yes } catch e { print "E", e.kind }
            let rot = key rotate seed --yes --skip-confirm --successor seed2
            print "ROT", rot.state, rot.new
            for k in key.list() { print "K", k.name, k.kind }
            print "PATH", (key show seed2-0).path, (key show seed2-1).path
            print "SAME", (key show seed2-0).address == (key show seed-0).address
            use key seed2-1
            print "SIGN", (sign \(testDigest)).key
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("E", in: r.out) == ["key.backupNeedsTerminal"])
        #expect(tagged("ROT", in: r.out) == ["completed seed2"])
        let words = r.out.split(separator: "\n").filter {
            $0.range(of: #"^ *\d+\. [a-z]+$"#, options: .regularExpression) != nil
        }
        #expect(words.count == 12, "\(r.out)")
        #expect(r.out.contains("The successor of seed is a new mnemonic."))
        #expect(
            tagged("K", in: r.out) == [
                "seed HD-MASTER (retired)", "seed-0 HD-CHILD (retired)", "seed-1 HD-CHILD (retired)",
                "seed2 HD-MASTER", "seed2-0 HD-CHILD", "seed2-1 HD-CHILD",
            ])
        #expect(tagged("PATH", in: r.out) == ["m/44'/60'/0'/0/0 m/44'/60'/0'/0/1"])
        #expect(tagged("SAME", in: r.out) == ["false"])
        #expect(tagged("SIGN", in: r.out) == ["seed2-1"])
    }
}
