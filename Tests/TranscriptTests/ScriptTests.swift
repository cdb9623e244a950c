// Behaviour tests written as `.kcs` scripts with their expectations beside the lines that
// produce them (`# expect:`, `# expect error:`; `ExpectationScript` in KCSTestSupport), run
// through the real kcs binary in a batch run with an empty kcs home. Every script under
// Tests/TranscriptTests/Scripts/<area>/ runs; fixtures they read sit beside them.
import Foundation
import KCSTestSupport
import Testing

extension ExpectationScript: CustomTestStringConvertible {}

@Suite("Behaviour scripts")
struct ScriptTests {
    @Test(arguments: ExpectationScript.all(in: "Tests/TranscriptTests/Scripts"))
    func script_behavesAsItsCommentsSay(_ script: ExpectationScript) throws {
        for problem in try script.failures() { Issue.record(Comment(rawValue: problem)) }
    }

    /// The runner itself fails a script whose output, error or exit differs from its comments.
    @Test func aScriptThatDiffersFromItsComments_fails() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-expect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func problems(_ text: String) throws -> [String] {
            let file = folder.appendingPathComponent("t.kcs").path
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            return try ExpectationScript(path: file).failures()
        }
        #expect(try problems("print 1 + 1   # expect: 2\nprint \"a\"   # expect: a\n").isEmpty)
        #expect(
            try problems("print 1 + 1   # expect: 3\n").first?.contains("printed line 1 is \"2\", expected \"3\"")
                == true)
        #expect(try problems("print 1\nprint 2   # expect: 2\n").count == 1)
        #expect(try problems("let x = card.info   # expect error: card.notConnected\n").isEmpty)
        #expect(try problems("print 1\nlet x = card.info   # expect error: card.notConnected\n").count == 1)
        #expect(
            try problems("let x = card.info   # expect error: card.blank\n").first?.contains("got card.notConnected")
                == true)
        #expect(
            try problems("print 1   # expect: 1\nlet y = 1   # expect error: card.notConnected\n").first?
                .contains("the script ran to the end") == true)
        #expect(try problems("let x = card.info\n").first?.contains("unexpected error card.notConnected") == true)
        // Runs share the home: the second run sees the key the first one stored, not its variables.
        let twoRuns =
            "import privkey 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318 --name k\n"
            + "let x = 1\n# run\nprint len(key.list())   # expect: 1\nprint x   # expect error: runtime.undefinedVariable\n"
        // Standard error is held to the # expect warning: lines.
        let passphraseFile = folder.appendingPathComponent("pw").path
        try "store test vault passphrase\n".write(toFile: passphraseFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: passphraseFile)
        let importing =
            "# env: KCS_VAULT_PASSPHRASE_FILE=\(passphraseFile)\n"
            + "import privkey 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318 --name k\n"
        let warning =
            "kcs: warning: KCS_VAULT_PASSPHRASE_FILE \(passphraseFile) is open to other users (mode 644); "
            + "anyone who can read it can unlock the vault: chmod 600 \(passphraseFile)"
        let warned = try problems(importing + "# expect warning: \(warning)\n")
        #expect(warned.isEmpty, "\(warned)")
        #expect(try problems(importing).first?.contains("standard error has [\"\(warning)\"], expected []") == true)
        let shared = try problems(twoRuns)
        #expect(shared.isEmpty, "\(shared)")
    }

    @Test func expectations_areReadFromTheComments() {
        let e = ExpectationScript.expectations(
            of: "# env: A=b c\nprint \"# x\"  # expect: # x\nboom   # expect error: runtime.x\n# expect exit: 3\n")
        #expect(e.output.map(\.text) == ["# x"] && e.output.first?.line == 2)
        #expect(e.error?.id == "runtime.x" && e.error?.line == 3)
        #expect(e.exit == 3 && e.environment == ["A": "b c"])
    }
}
