// Ctrl-C at every kind of prompt inside a command (docs/language.md §10): the vault passphrase,
// a new PIN, a word of a backup check, a `[y/N]` confirmation. The command is cancelled with
// one line, nothing is changed (a rotation already under way stays pending, and says so), the
// console goes on at `kcs>`; in a script run at a terminal the script stops with status 130.
// Driven through a real pseudo-terminal (`TerminalSession`), as a person would type.
import Foundation
import KCSTestSupport
import Testing

extension TerminalSession {
    /// Types `line` at `prompt`, waits for `question`, types Ctrl-C there, and waits for the
    /// one line that says `command` was cancelled (`note` when something stays changed).
    func cancel(
        _ line: String, at prompt: String = "kcs> ", question: String, command: String,
        note: String = "nothing was changed"
    ) throws {
        try answer(prompt, with: line)
        try expect(question)
        type("\u{03}")
        try expect("\(command) cancelled at its prompt (Ctrl-C); \(note)")
    }
}

@Suite("Ctrl-C at a prompt")
struct PromptCancelTests {
    @Test func ctrlC_atEachPromptKind_cancelsTheCommandAndTheConsoleGoesOn() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let t = try TerminalSession(environment: home.environment, folder: home.folder)
        // The vault passphrase of a first import: nothing is stored, no vault is made.
        try t.cancel(
            "import privkey \(testPrivateKey) --name hot", question: "new vault passphrase: ", command: "import.privkey"
        )
        try t.answer("kcs> ", with: "print \"keys\", len(key.list()), vault.status().state")
        try t.expect("keys 0 missing")
        // The same import goes through afterwards: the prompt reads again.
        try t.answer("kcs> ", with: "import privkey \(testPrivateKey) --name hot")
        try t.newVault("vault-pw-1")
        try t.expect("0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
        // A word of the backup check of a new mnemonic: the key is not made.
        try t.cancel("key.generate --name fresh", question: "word #", command: "key.generate")
        // A [y/N] confirmation: the key is not deleted.
        try t.cancel("key.delete hot", question: "[y/N] ", command: "key.delete")
        // The rotation's confirmation comes after its successor was made: that stays, pending.
        try t.answer("kcs> ", with: "key.rotate hot --successor next")
        try t.answer("key.rotate needs the vault passphrase again: ", with: "vault-pw-1")
        try t.expect("[y/N] ")
        t.type("\u{03}")
        try t.expect("key.rotate cancelled at its prompt (Ctrl-C); rotation 1 stays pending")
        try t.answer("kcs> ", with: "for k in key.list() { print \"K\", k.name }")
        try t.expect("K hot")
        try t.answer("kcs> ", with: "print \"R\", rotation.pending()[0].state")
        try t.expect("R successor-created")
        // A new PIN on the simulated card: the card stays blank.
        try t.answer("kcs> ", with: "card.connect")
        try t.cancel("card.init", at: "> ", question: "new PIN: ", command: "card.init")
        try t.answer("> ", with: "print \"I\", card.info().initialized")
        try t.expect("I false")
        try t.answer("> ", with: "print \"alive\"")
        try t.expect("\nalive")
        let (text, status) = t.finish()
        #expect(status == 0, "\(text)")
        #expect(!text.contains("K fresh") && !text.contains("vault-pw-1"), "\(text)")
        #expect(text.components(separatedBy: "K ").count == 3, "hot and next, nothing else: \(text)")
    }

    @Test func ctrlC_atAPromptOfAScript_stopsItWithStatus130() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let script = try home.write(
            """
            print "start"
            import privkey \(testPrivateKey) --name hot
            print "unreached"
            """, to: "prompt.kcs")
        var env = home.environment
        env["KCS_VAULT_PASSPHRASE"] = nil
        let t = try TerminalSession(environment: env, folder: home.folder, arguments: [script])
        try t.expect("new vault passphrase: ")
        t.type("\u{03}")
        let (text, status) = t.finish()
        #expect(status == 130, "\(text)")
        #expect(
            text.contains(
                "prompt.kcs:2:1: error: import.privkey cancelled at its prompt (Ctrl-C); nothing was changed"),
            "\(text)")
        #expect(!text.contains("unreached"), "\(text)")
        let after = try home.run("print \"N\", len(key.list())")
        #expect(tagged("N", in: after.out) == ["0"], "no key was stored: \(after.out) \(after.err)")
    }
}
