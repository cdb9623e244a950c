// The store commands of issue 5 through the real kcs binary in batch mode: keystore files in
// and out (published vectors, wrong passwords, bad files), and key rotation end to end,
// including a declined backup confirmation that leaves the rotation pending until
// `rotation resume`. Each test gets an empty kcs home and a vault passphrase in the
// environment, as a batch user gives them; each runs kcs once or twice (a vault unlock
// costs ~0.3 s of scrypt in a debug build).
import Foundation
import KCSTestSupport
import Testing

/// The kcs binary these tests run (`TestPaths.kcsBinary`).
let storeTestBinary = TestPaths.kcsBinary

/// One case of `Tests/WalletCoreTests/Vectors/keystore-v3.json`, as the file's JSON text.
func keystoreVector(_ name: String) throws -> String {
    let url = root.appendingPathComponent("Tests/WalletCoreTests/Vectors/keystore-v3.json")
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
    let cases = object?["cases"] as? [[String: Any]] ?? []
    let row = try #require(cases.first { $0["name"] as? String == name }, "no keystore vector \(name)")
    let json = try JSONSerialization.data(withJSONObject: try #require(row["json"]), options: [.sortedKeys])
    return String(decoding: json, as: UTF8.self)
}

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
        let r = try wrong.run("""
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

    // MARK: - keystore.load

    /// ethereum/tests KeyStoreTests `mycrypto` (scrypt n=8192, with `address`) and `test1`
    /// (pbkdf2 c=262144, key 7a28b5…fe9d); see Vectors/keystore-v3.json.
    @Test func keystoreLoad_scryptAndPBKDF2Vectors_storeKeystoreKeysAtTheirAddresses() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let scrypt = try home.write(try keystoreVector("ethereum_tests_mycrypto"), to: "mycrypto.json")
        let pbkdf2 = try home.write(try keystoreVector("ethereum_tests_test1"), to: "test1.json")
        var h = home
        h.environment["KS_SCRYPT_PW"] = "foobartest121"
        h.environment["KS_PBKDF2_PW"] = "testpassword"
        let r = try h.run("""
            let a = keystore load "\(scrypt)" (env "KS_SCRYPT_PW" --secret password) --name mycrypto
            print "A", a.name, a.kind, a.source, a.address
            let b = keystore load "\(pbkdf2)" (env "KS_PBKDF2_PW" --secret password)
            print "B", b.name, b.kind, b.source, b.address
            let ks = keys.rotation
            for k in ks { print "R", k.name, k.reasons[0] }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("A", in: r.out) == ["mycrypto ECDSA keystore 0x460121576Cc7DF020759730751f92bd62FD78dD6"])
        #expect(tagged("B", in: r.out) == ["ecdsa-008a-786b ECDSA keystore 0x008AeEda4D805471dF9b2A5B0f38A0C3bCBA786b"])
        #expect(tagged("R", in: r.out) == ["mycrypto imported from a keystore file",
                                           "ecdsa-008a-786b imported from a keystore file"])
    }

    @Test func keystoreLoad_wrongPasswordOrBadFile_clearErrorAndNothingStored() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let good = try keystoreVector("ethereum_tests_mycrypto")
        let file = try home.write(good, to: "good.json")
        let noMAC = try home.write(good.replacingOccurrences(of: "\"mac\"", with: "\"mac-gone\""), to: "nomac.json")
        let argon = try home.write(good.replacingOccurrences(of: "\"kdf\":\"scrypt\"", with: "\"kdf\":\"argon2id\""),
                                   to: "argon.json")
        let cbc = try home.write(good.replacingOccurrences(of: "aes-128-ctr", with: "aes-128-cbc"), to: "cbc.json")
        let text = try home.write("this is not json", to: "text.json")
        var h = home
        h.environment["KS_PW"] = "foobartest121"
        h.environment["KS_WRONG"] = "foobartest122"
        let r = try h.run("""
            let files = [["\(file)", "KS_WRONG"], ["\(noMAC)", "KS_PW"], ["\(argon)", "KS_PW"], ["\(cbc)", "KS_PW"],
                         ["\(text)", "KS_PW"], ["\(home.path("missing.json"))", "KS_PW"]]
            for f in files {
              try { keystore load (f[0]) (env (f[1]) --secret password) } catch e { print "E", e.kind, "|", e.message }
            }
            print "N", len(key.list())
            print "V", vault.status().state
            """)
        #expect(r.code == 0, "\(r.err)")
        let errors = tagged("E", in: r.out)
        try #require(errors.count == 6, "\(r.out)")
        #expect(Array(errors[0..<4]) == [
            "keystore.macMismatch | wrong password: MAC mismatch",
            "keystore.missingField | keystore field crypto.mac is missing",
            "keystore.unsupportedKDF | keystore field crypto.kdf must be \"scrypt\" or \"pbkdf2\", got \"argon2id\"",
            "keystore.unsupportedCipher | keystore field crypto.cipher must be \"aes-128-ctr\", got \"aes-128-cbc\"",
        ])
        // The parser's own explanation in parentheses differs between Foundation versions.
        #expect(errors[4].hasPrefix("keystore.notJSON | keystore file must be a JSON object, got text that does not parse as JSON ("))
        #expect(errors[5] == "keystore.unreadable | keystore file \(home.path("missing.json")) cannot be read: no such file")
        // Nothing was stored, and the vault was not even created: decryption comes first.
        #expect(tagged("N", in: r.out) == ["0"] && tagged("V", in: r.out) == ["missing"], "\(r.out)")
    }

    // MARK: - keystore.save

    @Test func keystoreSave_thenLoad_roundTripsTheAddressAndMarksTheKeyRevealed() throws {
        let home = try BatchHome()
        defer { home.remove() }
        var h = home
        h.environment["KS_NEW"] = "a new keystore password"
        let out = home.path("raw.json"), child = home.path("child.json")
        let r = try h.run("""
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
        #expect(reasons.contains { $0.hasPrefix("raw imported from a raw private key; secret revealed on ") }, "\(reasons)")
        #expect(reasons.contains { $0.hasPrefix("m-0 secret revealed on ") }, "\(reasons)")
        for file in [out, child] {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
            let crypto = json?["crypto"] as? [String: Any]
            #expect(json?["version"] as? Int == 3 && crypto?["kdf"] as? String == "scrypt")
            let n = (crypto?["kdfparams"] as? [String: Any])?["n"] as? Int
            #expect(n == (file == out ? 262_144 : 4096))
        }
    }

    // MARK: - Rotation

    @Test func keyRotate_ecdsa_retiresTheOldKeyLinksTheSuccessorAndSignsWithIt() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run("""
            import privkey \(testPrivateKey) --name hot
            key flag hot
            let rot = key rotate hot --yes --successor hot2
            print "ROT", rot.state, rot.old, rot.new
            let chain = key lineage hot2
            print "LEN", len(chain)
            for k in chain { print "K", k.name, k.retired, k.storage, k.rotation }
            print "SUCC", chain[0].successor
            use key hot2
            let s = sign \(testDigest)
            print "SIGN", s.key, s.signer == chain[1].address
            try { sign \(testDigest) --key hot } catch e { print "OLD", e.kind }
            print "PENDING", len(rotation.pending())
            print "DUE", len(keys.rotation())
            let c = store.check
            print "CHECK", c.ok, c.integrity
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("ROT", in: r.out) == ["completed hot hot2"])
        #expect(tagged("LEN", in: r.out) == ["2"])
        #expect(tagged("K", in: r.out) == ["hot true watch retired", "hot2 false software ok"])
        #expect(tagged("SUCC", in: r.out) == ["hot2"])
        #expect(tagged("SIGN", in: r.out) == ["hot2 true"])
        #expect(tagged("OLD", in: r.out) == ["store.secretMissing"])
        #expect(tagged("PENDING", in: r.out) == ["0"] && tagged("DUE", in: r.out) == ["0"])
        #expect(tagged("CHECK", in: r.out) == ["true ok"])
    }

    @Test func keyRotate_backupNotConfirmed_staysPendingUntilResumedOrRolledBack() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run("""
            import privkey \(testPrivateKey) --name hot
            try { key rotate hot --successor next } catch e { print "E", e.kind; print "MSG", e.message }
            let p = rotation pending
            print "P", len(p), p[0].state, p[0].old, p[0].new
            print "OLD-SIGNS", (sign \(testDigest) --key hot).key
            try { key rotate hot } catch e { print "AGAIN", e.kind }
            let done = rotation resume (p[0].id) --yes
            print "D", done.state, done.new
            print "Q", len(rotation.pending())
            print "CHAIN", len(key.lineage("hot"))
            try { rotation resume (p[0].id) --yes } catch e { print "F", e.kind }
            try { key rotate next } catch e { print "E2", e.kind }
            let p2 = rotation pending
            let rb = rotation rollback (p2[0].id) --yes
            print "RB", rb.state, len(rotation.pending()), len(key.list())
            print "NEXT-SIGNS", (sign \(testDigest) --key next).key
            print "CHECK", (store.check).ok
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("E", in: r.out) == ["rotation.backupNotConfirmed"])
        #expect(tagged("MSG", in: r.out) == ["""
            key.rotate: next is stored, but confirming its backup needs a terminal or --yes; rotation 1 stays pending \
            (successor-created) and hot keeps its secret. Once next is backed up run `rotation resume 1 --yes`, or undo \
            it with `rotation rollback 1`
            """])
        #expect(tagged("P", in: r.out) == ["1 successor-created hot next"])
        #expect(tagged("OLD-SIGNS", in: r.out) == ["hot"])
        #expect(tagged("AGAIN", in: r.out) == ["store.rotationInProgress"])
        #expect(tagged("D", in: r.out) == ["completed next"])
        #expect(tagged("Q", in: r.out) == ["0"] && tagged("CHAIN", in: r.out) == ["2"])
        #expect(tagged("F", in: r.out) == ["rotation.finished"])
        #expect(tagged("E2", in: r.out) == ["rotation.backupNotConfirmed"])
        // The rolled-back successor is gone; `next` is untouched and still signs.
        #expect(tagged("RB", in: r.out) == ["rolled-back 0 2"])
        #expect(tagged("NEXT-SIGNS", in: r.out) == ["next"])
        #expect(tagged("CHECK", in: r.out) == ["true"])
    }

    @Test func keyRotate_hdMaster_newMnemonicShownOnce_childrenAtTheSamePaths() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run("""
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
        let words = r.out.split(separator: "\n").filter { $0.range(of: #"^ *\d+\. [a-z]+$"#, options: .regularExpression) != nil }
        #expect(words.count == 12, "\(r.out)")
        #expect(r.out.contains("The successor of seed is a new mnemonic."))
        #expect(tagged("K", in: r.out) == [
            "seed HD-MASTER (retired)", "seed-0 HD-CHILD (retired)", "seed-1 HD-CHILD (retired)",
            "seed2 HD-MASTER", "seed2-0 HD-CHILD", "seed2-1 HD-CHILD",
        ])
        #expect(tagged("PATH", in: r.out) == ["m/44'/60'/0'/0/0 m/44'/60'/0'/0/1"])
        #expect(tagged("SAME", in: r.out) == ["false"])
        #expect(tagged("SIGN", in: r.out) == ["seed2-1"])
    }
}
