// Secrets stay out of the history file, out of error excerpts and messages, out of a crash
// report; a -e program holding a secret and a passphrase file others can read are warned
// about; an address typed unquoted gets the EIP-55 check the quoted form gets; a script that is
// not UTF-8 is refused with its position (docs/language.md §1, §8).
import Foundation
import KCSBuiltins
import KCSConsole
import KCSTestSupport
import Testing

/// A phrase with one word mistyped (`yelow`): still a secret.
private let typoPhrase = "legal winner thank year wave sausage worth useful legal winner thank yelow"
/// `testPrivateKey` two digits short.
private let shortKey = String(testPrivateKey.dropLast(2))
/// The MetaMask address of the `abandon … about` phrase, and the same with its last digit changed
/// (mixed case, so its EIP-55 checksum no longer matches).
private let goodAddress = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
private let mistypedAddress = "0x9858EfFD232B4033E47d90003D41EC34EcaEda95"

@Suite("Secrets on screen and typed addresses")
struct SecretsOnScreenTests {
    private func redact(_ line: String) -> String? {
        let registry = Builtins.registry()
        let runner = ScriptRunner(host: ConsoleHost(interactive: false))
        return HistoryRedaction.redact(line, registry: registry, commands: runner.interpreter.commandTable)
    }

    @Test func history_keepsWhatASecretIsNotAndHidesWhatItIs() {
        // Literals that are secrets, whatever command (or none) they are written for.
        #expect(
            redact("let m = \"legal winner thank year wave sausage worth useful legal winner thank yellow\"")
                == "let m = <secret>")
        #expect(redact("let m = \"\(typoPhrase)\"") == "let m = <secret>", "a phrase with a typo is still a phrase")
        #expect(redact("let pk = \(testPrivateKey)") == "let pk = <secret>")
        #expect(redact("let pk = \(shortKey)") == "let pk = <secret>", "a private key two digits short")
        #expect(
            redact(
                "let x = \"xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi\""
            )
                == "let x = <secret>")
        #expect(redact("let w = \"5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ\"") == "let w = <secret>")
        // Variable references name a secret without holding one: the recalled line must work.
        #expect(redact("derive \"m/44h/60h/0h/0/0\" --from $k") == "derive \"m/44h/60h/0h/0/0\" --from $k")
        #expect(redact("mnemonic.check $m") == "mnemonic.check $m")
        #expect(redact("sign $digest --key hot") == "sign $digest --key hot")
        // 32 bytes of hex may be a digest or a private key: nothing tells them apart, so it goes.
        #expect(redact("sign \(testDigest) --key hot") == "sign <secret> --key hot")
        // Public values stay: an address, a public key, a derivation path.
        #expect(redact("print \(goodAddress)") == "print \(goodAddress)")
        #expect(
            redact("print 0x024e3b81af9c2234cad09d679ce6035ed1392347ce64ce405f5dcd36228a25de6e")
                == "print 0x024e3b81af9c2234cad09d679ce6035ed1392347ce64ce405f5dcd36228a25de6e")
        // A literal typed for a secret argument is hidden whatever its shape.
        #expect(
            redact("card.init --pin 937113 --puk 111122223333 --pairing \"open sesame\"")
                == "card.init --pin <secret> --puk <secret> --pairing <secret>")
    }

    @Test func errorExcerptsAndMessages_showSecretsAsSecret() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let phrase = try home.run("let k = hd.master \"\(typoPhrase)\"\n", name: "phrase.kcs")
        #expect(phrase.code == 70)
        #expect(
            phrase.err.contains("phrase.kcs:1:9: error: mnemonic word 12 must be in the english BIP-39 word list"),
            "\(phrase.err)")
        #expect(phrase.err.contains("  1 | let k = hd.master <secret>\n"), "\(phrase.err)")
        #expect(!phrase.err.contains("sausage"), "the other words leaked: \(phrase.err)")

        let key = try home.run("import privkey \(shortKey) --name a\n", name: "key.kcs")
        #expect(key.code != 0)
        #expect(!key.err.contains(String(shortKey.dropFirst(2).prefix(40))), "the key leaked: \(key.err)")
        #expect(key.err.contains("<secret>"), "\(key.err)")

        let pin = try home.run(
            "card.connect\ncard.init --pin \"9371\" --puk \"111122223333\" --pairing \"open sesame\"\n", name: "pin.kcs"
        )
        #expect(pin.code != 0 && pin.err.contains("PIN"), "\(pin.err)")
        #expect(
            !pin.err.contains("9371") && !pin.err.contains("open sesame") && !pin.err.contains("111122223333"),
            "the PIN line leaked: \(pin.err)")

        let p = try home.write("let k = hd.master \"\(typoPhrase)\"\n", to: "json.kcs")
        let r = try kcsIn(home, ["--json", p])
        #expect(r.code == 70 && !r.err.contains("sausage") && r.err.contains("\"error\""), "\(r.err)")
    }

    @Test func dashE_withASecret_warnsOnce_andWithoutOne_saysNothing() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let secret = try kcsIn(
            home,
            ["-e", "let k = hd.master \"\(testMnemonic)\"\nprint k.xpub\nprint (hd.master \"\(testMnemonic)\").xpub"])
        #expect(secret.code == 0, "\(secret.err)")
        #expect(
            secret.err.components(separatedBy: "warning: this -e program holds a secret").count == 2, "\(secret.err)")
        #expect(secret.err.contains("/proc/PID/cmdline") && secret.err.contains("file.read PATH --secret KIND"))
        let plain = try kcsIn(home, ["-e", "let a = \(goodAddress)\nlet k = \"m/44h/60h/0h/0/0\"\nprint len(a)"])
        #expect(plain.err.isEmpty && plain.out == "20\n", "an address and a path are no secrets: \(plain.err)")
        let ref = try kcsIn(home, ["-e", "print 6 * 7"])
        #expect(ref.err.isEmpty && ref.out == "42\n")
    }

    @Test func passphraseFileOpenToOthers_isWarnedAbout() throws {
        var home = try BatchHome()
        defer { home.remove() }
        let file = try home.write(BatchHome.vaultPassphrase + "\n", to: "pass")
        home.environment["KCS_VAULT_PASSPHRASE"] = nil
        home.environment["KCS_VAULT_PASSPHRASE_FILE"] = file
        chmod(file, 0o644)
        let open = try home.run("import privkey \(testPrivateKey) --name a\nprint \"ok\"\n")
        #expect(open.code == 0 && open.out == "ok\n", "\(open.err)")
        #expect(
            open.err.contains("kcs: warning: KCS_VAULT_PASSPHRASE_FILE \(file) is open to other users (mode 644)"),
            "\(open.err)")
        #expect(open.err.contains("chmod 600 \(file)"))
        chmod(file, 0o600)
        let closed = try home.run("print len(key.list())\nsign \(testDigest) --key a\n")
        #expect(closed.code == 0 && closed.err.isEmpty, "\(closed.err)")
    }

    @Test func crash_printsTheStackButNoMemory() throws {
        let home = try BatchHome()
        defer { home.remove() }
        // It spins until the signal comes: nothing it waits on can end it first.
        let script = try home.write("print \"ready\"\nlet i = 0\nwhile true { i = i + 1 }\n", to: "wait.kcs")
        let p = Process()
        p.executableURL = TestPaths.kcsBinary
        p.arguments = [script]
        p.environment = home.environment
        let out = Pipe(), err = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        try p.runWithSignalsUnblocked()
        // Once "ready" is out, main has long installed its handlers.
        var shown = Data()
        while !String(decoding: shown, as: UTF8.self).contains("ready") {
            let d = out.fileHandleForReading.availableData
            if d.isEmpty { break }
            shown += d
        }
        kill(p.processIdentifier, SIGSEGV)
        let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGSEGV, "\(p.terminationStatus)")
        #expect(e.contains("kcs crashed (signal 11); no memory is shown"), "\(e)")
        #expect(!e.contains("Registers") && !e.contains("rsp 0x") && !e.contains("Images"), "memory was printed: \(e)")
    }

    @Test func unquotedAddress_getsTheChecksumCheckOfTheQuotedOne() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let quoted = try home.run("import address \"\(mistypedAddress)\" --name q\n", name: "q.kcs")
        let bare = try home.run("import address \(mistypedAddress) --name b\n", name: "b.kcs")
        #expect(quoted.code == 70 && bare.code == 70, "\(bare.err)")
        let message = "error: Ethereum address \(mistypedAddress) has a wrong EIP-55 checksum (mixed case)"
        #expect(quoted.err.contains(message) && bare.err.contains(message), "\(bare.err)")
        #expect(bare.err.contains("b.kcs:1:16: "), "the literal is pointed at: \(bare.err)")
        // Everywhere an address is taken: a transaction's `to`, path.find, wallet.select.
        let tx = try home.run(
            """
            let k = hd.master "\(testMnemonic)"
            try { sign tx {"to": \(mistypedAddress), "value": 1, "nonce": 0, "gas": 21000, "gasPrice": 1, "chainId": 1} --from $k } catch e { print "E", e.kind }
            try { path.find \(mistypedAddress) --mnemonic "\(testMnemonic)" } catch e { print "E", e.kind }
            try { wallet.select \(mistypedAddress) } catch e { print "E", e.kind }
            print "L", 0x9858effd232b4033e47d90003d41ec34ecaeda95, 0x9858EFFD232B4033E47D90003D41EC34ECAEDA95
            print "N", len(key.list())
            """, name: "tx.kcs")
        #expect(
            tagged("E", in: tx.out) == [
                "address.ethereum.badChecksum", "address.ethereum.badChecksum",
                "address.ethereum.badChecksum",
            ], "\(tx.out) \(tx.err)")
        #expect(
            tagged("L", in: tx.out) == [
                "0x9858effd232b4033e47d90003d41ec34ecaeda95 0x9858effd232b4033e47d90003d41ec34ecaeda95"
            ],
            "all-lower and all-upper carry no checksum and are taken: \(tx.out)")
        #expect(tagged("N", in: tx.out) == ["0"], "nothing was imported: \(tx.out)")
    }

    @Test func scriptThatIsNotUTF8_isRefusedWithItsPosition_andABOMIsSkipped() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let bad = home.path("latin1.kcs")
        try Data("print \"ran\"\nprint \"caf".utf8 + [0xE9] + "\"\n".utf8).write(to: URL(fileURLWithPath: bad))
        let r = try kcsIn(home, [bad])
        #expect(r.code == 65 && r.out.isEmpty, "nothing runs: \(r.out)")
        #expect(
            r.err.contains("latin1.kcs:2:11: error: the text is not valid UTF-8 (byte 0xE9 here); nothing was run"),
            "\(r.err)")
        let bom = home.path("bom.kcs")
        try Data([0xEF, 0xBB, 0xBF] + "print \"bom\"\nprint nope\n".utf8).write(to: URL(fileURLWithPath: bom))
        let b = try kcsIn(home, [bom])
        #expect(
            b.out == "bom\n" && b.err.contains("bom.kcs:2:7: error:"),
            "the mark is skipped, columns count from it: \(b.err)")
    }
}

/// Runs kcs with `arguments` in `home`'s environment, standard input empty.
func kcsIn(_ home: BatchHome, _ arguments: [String]) throws -> (code: Int32, out: String, err: String) {
    let out = home.path("kcs-\(UUID().uuidString).out"), err = home.path("kcs-\(UUID().uuidString).err")
    let p = try home.start(arguments: arguments, stdout: out, stderr: err)
    p.waitUntilExit()
    return (
        p.terminationStatus, try String(contentsOfFile: out, encoding: .utf8),
        try String(contentsOfFile: err, encoding: .utf8)
    )
}
