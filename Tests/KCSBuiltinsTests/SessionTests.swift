// The console session over a real store in a temporary home: the vault is created on first
// use, asked again after the idle timeout and before destructive steps, and a batch run is
// never prompted (it reads KCS_VAULT_PASSPHRASE[_FILE] or says how to supply it).
import Foundation
import KCSErrors
import KCSRuntime
import KCSSyntax
import Testing
import WalletCrypto
import WalletSession
import WalletStore

@testable import KCSBuiltins

/// A host that answers prompts from a script and counts them (the interpreter's and the session's).
final class ScriptedHost: ScriptHost, SessionPrompts {
    var isInteractive: Bool
    var secrets: [String]
    var answers: [String]
    var prompts: [String] = []
    var output = ""
    let session: Session
    init(interactive: Bool, secrets: [String] = [], answers: [String] = [], session: Session) {
        isInteractive = interactive
        self.secrets = secrets
        self.answers = answers
        self.session = session
        session.prompts = self
    }
    func write(_ text: String) { output += text }
    func readSecret(prompt: String) throws -> SecretValue? {
        try askSecret(prompt: prompt).map { SecretValue(kind: "input", payload: $0) }
    }
    func askSecret(prompt: String) throws -> Secret? {
        prompts.append(prompt)
        guard !secrets.isEmpty else { return nil }
        return Secret(utf8: secrets.removeFirst())
    }
    func status(_ text: String) {}
    func warn(_ text: String) {}
    func progress(_ text: String?) {}
    func shouldInterrupt() -> Bool { false }
    func ask(prompt: String) -> String? {
        prompts.append(prompt)
        return answers.isEmpty ? nil : answers.removeFirst()
    }
    func loadModule(name: String, relativeTo: String) throws -> Source { throw CocoaError(.fileNoSuchFile) }
    var context: (any BuiltinContext)? { session }
}

/// A clock the test moves.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var time = Date(timeIntervalSince1970: 1_800_000_000)
    var now: Date { lock.withLock { time } }
    func advance(_ seconds: TimeInterval) { lock.withLock { time += seconds } }
}

@Suite struct SessionTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-session-\(UUID().uuidString)").path
    let clock = TestClock()

    func session(_ env: [String: String] = [:]) -> Session {
        let c = clock
        return Session(
            home: home, environment: ProcessEnvironment(env), clock: { c.now }, vaultParameters: .insecureForTesting())
    }

    func run(_ code: String, _ host: ScriptedHost) throws(RuntimeError) -> Value {
        let interpreter = Interpreter(registry: Builtins.registry(), host: host)
        let source = Source(name: "t", text: code)
        let (program, diagnostics) = interpreter.parse(source)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        return try interpreter.run(program, source: source)
    }

    @Test func firstUse_createsTheVault_askingThePassphraseTwice() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let host = ScriptedHost(interactive: true, secrets: ["pw", "pw"], session: session())
        _ = try run("import privkey 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318 --name a", host)
        #expect(host.prompts == ["new vault passphrase: ", "the same passphrase again: "])
        let mode = try FileManager.default.attributesOfItem(atPath: home + "/kcs.db")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func differentPassphrases_createNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let host = ScriptedHost(interactive: true, secrets: ["pw", "other"], session: session())
        _ = try run("import address 0x9858EfFD232B4033E47d90003D41EC34EcaEda94", host)
        #expect(throws: RuntimeError.self) {
            try run("import privkey 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318", host)
        }
        #expect(try host.session.store().vaultStatus() == .missing)
        #expect(try host.session.store().keyCount() == 1, "the watch-only import needs no vault")
    }

    @Test func idleTimeout_asksAgain_andReconfirmAsksBeforeReveal() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let host = ScriptedHost(interactive: true, secrets: ["pw", "pw", "pw", "pw"], session: session())
        let key = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
        _ = try run("import privkey \(key) --name a", host)
        _ = try run("use key a\nsign 0x" + String(repeating: "11", count: 32), host)
        #expect(host.prompts.count == 2, "within the idle timeout nothing is asked: \(host.prompts)")
        clock.advance(15 * 60 + 1)
        _ = try run("sign 0x" + String(repeating: "22", count: 32), host)
        #expect(host.prompts.count == 3 && host.prompts[2].contains("idle"), "\(host.prompts)")
        let revealed = try run("reveal(key.reveal(\"a\"))", host)
        #expect(revealed == .string(key))
        #expect(host.prompts.count == 4 && host.prompts[3].contains("key.reveal"), "\(host.prompts)")
        #expect(try host.session.store().key(named: "a").revealedAt != nil)
    }

    @Test func wrongPassphrase_changesNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let host = ScriptedHost(interactive: true, secrets: ["pw", "pw", "wrong"], session: session())
        _ = try run("import privkey 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318 --name a", host)
        host.session.lockVault()
        do {
            _ = try run("import privkey 0x" + String(repeating: "42", count: 32) + " --name b", host)
            Issue.record("a wrong passphrase must fail")
        } catch {
            #expect(error.id.hasPrefix("store."), "\(error.id): \(error.message)")
        }
        #expect(try host.session.store().keyCount() == 1)
    }

    @Test func batch_neverPrompts_andSaysHowToSupplyThePassphrase() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let host = ScriptedHost(interactive: false, secrets: ["pw"], session: session())
        do {
            _ = try run("import privkey 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318", host)
            Issue.record("batch without a passphrase must fail")
        } catch {
            #expect(error.id == "session.passphraseNeeded")
            #expect(error.message.contains("KCS_VAULT_PASSPHRASE_FILE"))
        }
        #expect(host.prompts.isEmpty)
        let file = home + ".pw"
        try "from a file\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let batch = ScriptedHost(interactive: false, session: session(["KCS_VAULT_PASSPHRASE_FILE": file]))
        _ = try run("import privkey 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318 --name a", batch)
        try batch.session.store().lock()
        try batch.session.store().unlock(passphrase: Secret(utf8: "from a file"))
        #expect(throws: RuntimeError.self) { try run("key.delete a", batch) }
        #expect(try batch.session.store().keyCount() == 1, "a delete without --yes in batch changes nothing")
    }

    // MARK: - Paths a user reaches by answering wrongly or not at all

    /// The id and message of the error `code` ends with, or nil when it succeeds.
    func failure(_ code: String, _ host: ScriptedHost) -> (id: String, message: String)? {
        do {
            _ = try run(code, host)
            return nil
        } catch {
            return (error.id, error.message)
        }
    }

    static let privateKey = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
    static let mnemonic =
        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

    @Test func passphrasePromptEnded_cancelsAndCreatesNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        // Ctrl-D at the hidden prompt: the host reads no secret.
        let host = ScriptedHost(interactive: true, secrets: [], session: session())
        let error = failure("import privkey \(Self.privateKey) --name a", host)
        #expect(error?.id == "session.cancelled")
        #expect(error?.message == "import.privkey: cancelled; nothing changed")
        #expect(host.prompts == ["new vault passphrase: "])
        #expect(try host.session.store().vaultStatus() == .missing)
        #expect(try host.session.store().keyCount() == 0)
    }

    @Test func batch_passphraseFileMissing_namesTheFileAndStoresNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let file = home + ".missing-passphrase"
        let host = ScriptedHost(interactive: false, session: session(["KCS_VAULT_PASSPHRASE_FILE": file]))
        let error = failure("import privkey \(Self.privateKey)", host)
        #expect(error?.id == "session.passphraseFileUnreadable")
        #expect(
            error?.message
                == "import.privkey: cannot read the passphrase file \(file) named by KCS_VAULT_PASSPHRASE_FILE")
        #expect(try host.session.store().keyCount() == 0)
    }

    @Test func changePassphrase_wrongOldOrDifferingNew_keepsTheOldPassphrase() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let host = ScriptedHost(
            interactive: true, secrets: ["pw", "pw", "wrong", "new", "new", "pw", "new", "other"],
            session: session())
        _ = try run("import privkey \(Self.privateKey) --name a", host)
        #expect(failure("vault.change-passphrase", host)?.id == "store.wrongPassphrase")
        #expect(failure("vault.change-passphrase", host)?.id == "session.passphrasesDiffer")
        #expect(
            Array(host.prompts.suffix(6)) == [
                "current vault passphrase: ", "new vault passphrase: ", "the new passphrase again: ",
                "current vault passphrase: ", "new vault passphrase: ", "the new passphrase again: ",
            ])
        let store = try host.session.store()
        store.lock()
        try store.unlock(passphrase: Secret(utf8: "pw"))
        #expect(try store.openSecret(named: "a").kind == .privkey)
    }

    @Test func generateHD_wrongBackupWord_storesNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let host = ScriptedHost(interactive: true, secrets: ["pw", "pw"], answers: ["nope"], session: session())
        let error = failure("key.generate --type hd --name w", host)
        #expect(error?.id == "key.backupWordWrong")
        #expect(
            error.map {
                $0.message.hasPrefix("key.generate: word #")
                    && $0.message.hasSuffix(" does not match; nothing was stored, write the words down and try again")
            } == true,
            "\(String(describing: error))")
        #expect(host.output.contains("Write these 12 words down, in order; they are shown only now:"))
        #expect(host.prompts.last?.hasPrefix("word #") == true, "\(host.prompts)")
        #expect(try host.session.store().keyCount() == 0)
    }

    @Test func rotateHD_wrongBackupWord_rollsTheRotationBack() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let host = ScriptedHost(interactive: true, secrets: ["pw", "pw", "pw"], answers: ["nope"], session: session())
        _ = try run("import mnemonic \"\(Self.mnemonic)\" --name m\nuse key m-0", host)
        let error = failure("key.rotate m --yes --successor m2", host)
        #expect(error?.id == "key.backupWordWrong")
        #expect(host.output.contains("The successor of m is a new mnemonic."))
        let store = try host.session.store()
        #expect(try store.pendingRotations().isEmpty)
        #expect(try store.rotations(ofKeyNamed: "m").map(\.state) == [.rolledBack])
        #expect(try store.keys().map { "\($0.name) \($0.retired)" } == ["m false", "m-0 false"])
        #expect(try store.openSecret(named: "m").kind == .mnemonic)
        #expect(host.session.activeKey == "m-0")
        #expect(try store.consistencyProblems().isEmpty)
    }

    @Test func badOptionsAndMissingSigner_areRefusedWithoutChanges() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let host = ScriptedHost(interactive: false, session: session())
        _ = try run(
            """
            import address 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 --name a
            import address 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23 --name b
            """, host)
        #expect(failure("key.move a", host)?.message == "key.move: give exactly one of --to N, --up, --down, got 0")
        #expect(failure("key.move a --up --to 2", host)?.id == "key.moveNeedsOneOption")
        _ = try run("key.move b --up", host)
        #expect(try host.session.store().keys().map(\.name) == ["b", "a"])
        let xprv =
            "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi"
        #expect(failure("import xpub \"\(xprv)\"", host)?.id == "key.privateWhereWatchOnly")
        #expect(
            failure("sign 0x" + String(repeating: "11", count: 32), host)?.message
                == "sign: no active key; choose one with `use key NAME` or `use card` (a logged-in Keycard), or pass --key NAME (a stored key) or --key VALUE (an HD key, a private key as 0x…, a WIF or an xprv)"
        )
        #expect(failure("history --kind bogus", host)?.id == "builtin.badChoice")
        #expect(try host.session.store().keyCount() == 2)
    }

    @Test func dates_showAsISO8601UTCInWholeSeconds() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        #expect(Builtins.isoDate(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(Builtins.isoDate(Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58Z")
        // Store times are whole milliseconds; the fraction is dropped, not rounded.
        #expect(Builtins.isoDate(Date(timeIntervalSince1970: 1_800_000_000.999)) == "2027-01-15T08:00:00Z")
        let host = ScriptedHost(interactive: false, session: session())
        clock.advance(0.75)
        _ = try run("import address 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 --name a", host)
        #expect(try run("(key.show a).created", host) == .string("2027-01-15T08:00:00Z"))
    }

    @Test func deleteMasterWithChildren_needsChildren_andForgetsTheActiveChild() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let host = ScriptedHost(interactive: false, session: session(["KCS_VAULT_PASSPHRASE": "pw"]))
        _ = try run("import mnemonic \"\(Self.mnemonic)\" --accounts 2 --name m\nuse key m-1", host)
        #expect(failure("key.delete m --yes", host)?.id == "store.keyHasChildren")
        #expect(host.session.activeKey == "m-1")
        let deleted = try run("key.delete m --yes --children", host)
        #expect(deleted == .list([.string("m-0"), .string("m-1"), .string("m")]))
        #expect(host.session.activeKey == nil)
        #expect(try host.session.store().keyCount() == 0)
    }

    @Test func startupNotice_listsInterruptedRotationsAndKeysDue() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        #expect(session().startupNotice() == nil, "no store yet: nothing is opened or said")
        let host = ScriptedHost(interactive: false, session: session(["KCS_VAULT_PASSPHRASE": "pw"]))
        _ = try run("import address 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 --name cold", host)
        #expect(session().startupNotice() == nil, "nothing to say")
        _ = try run(
            """
            import privkey \(Self.privateKey) --name hot
            try { key.rotate hot --successor next } catch e { }
            key.flag cold --exposed
            """, host)
        try host.session.store().setSetting(Session.maxAgeSetting, to: "1")
        clock.advance(2 * 86_400)
        #expect(
            session().startupNotice() == """
                1 key rotation was interrupted:
                  #1 hot (successor-created): rotation.resume 1 or rotation.rollback 1
                3 keys need rotation (key.rotate NAME):
                  cold: flagged as exposed
                  hot: older than 1 day; imported from a raw private key
                  next: older than 1 day
                """)
    }
}
