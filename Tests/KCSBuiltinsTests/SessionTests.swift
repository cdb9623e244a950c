// The console session over a real store in a temporary home: the vault is created on first
// use, asked again after the idle timeout and before destructive steps, and a batch run is
// never prompted (it reads KCS_VAULT_PASSPHRASE[_FILE] or says how to supply it).
import Foundation
import KCSRuntime
import KCSSyntax
import Testing
import WalletCrypto
import WalletStore

@testable import KCSBuiltins

/// A host that answers prompts from a script and counts them.
final class ScriptedHost: ScriptHost {
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
        session.host = self
    }
    func write(_ text: String) { output += text }
    func readSecret(prompt: String) throws -> SecretValue? {
        prompts.append(prompt)
        guard !secrets.isEmpty else { return nil }
        return Builtins.secret(kind: "input", text: secrets.removeFirst())
    }
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
        return Session(home: home, environment: env, clock: { c.now }, vaultParameters: .insecureForTesting())
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
        #expect(try host.session.store(for: "t").vaultStatus() == .missing)
        #expect(try host.session.store(for: "t").keyCount() == 1, "the watch-only import needs no vault")
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
        #expect(try host.session.store(for: "t").key(named: "a").revealedAt != nil)
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
        #expect(try host.session.store(for: "t").keyCount() == 1)
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
        try batch.session.store(for: "t").lock()
        try batch.session.store(for: "t").unlock(passphrase: Secret(utf8: "from a file"))
        #expect(throws: RuntimeError.self) { try run("key.delete a", batch) }
        #expect(try batch.session.store(for: "t").keyCount() == 1, "a delete without --yes in batch changes nothing")
    }
}
