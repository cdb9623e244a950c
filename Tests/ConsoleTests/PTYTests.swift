// The console under a pseudo-terminal (util-linux `script` gives kcs a real TTY): the REPL
// prompt appears, a mnemonic typed as an argument works, and the history file written by
// libedit holds `<secret>` instead of the words. The binary is `$KCS_BINARY` or the debug
// build (`storeTestBinary`).
import Foundation
import Testing

@Suite("Console on a terminal")
struct PTYTests {
    @Test func mnemonicTypedAtThePrompt_neverReachesTheHistoryFile() throws {
        let state = try newState()
        defer { try? FileManager.default.removeItem(at: state) }
        let phrase = "legal winner thank year wave sausage worth useful legal winner thank yellow"
        let readable = state.appendingPathComponent("more.kcs")
        try "print \"read {twice(5)}\"\n".write(to: readable, atomically: true, encoding: .utf8)
        let lines = [
            "let r = mnemonic.check \"\(phrase)\"", "print r.valid", "print mnemonic.explain(\"\(phrase)\").words",
            "def twice(x) {", "return x * 2 }", "print twice(21)", ".read \(readable.path)", ".quit",
        ]
        let t = try terminal(state: state)
        for line in lines.dropLast() {
            try t.answer(line.hasPrefix("return") ? "...> " : "kcs> ", with: line)
        }
        let text = try t.quit()
        #expect(text.contains("kcs> "), "the REPL prompts on a terminal: \(text)")
        #expect(text.contains("true") && text.contains("42"), "\(text)")
        #expect(text.contains("words × 11 bits = 132 bits = ENT + CS"), "mnemonic.explain written as a call: \(text)")
        #expect(text.contains("...> "), "an unfinished def continues on a second prompt: \(text)")
        #expect(text.contains("read 10"), ".read runs a file in the same session: \(text)")
        let historyPath = state.appendingPathComponent("kcs/history").path
        let history = try String(contentsOfFile: historyPath, encoding: .utf8)
        #expect(history.contains("mnemonic.check") && history.contains("<secret>"), "\(history)")
        #expect(
            history.contains("mnemonic.explain(<secret>)"), "a secret argument of a call is redacted too: \(history)")
        #expect(!history.contains("sausage") && !history.contains("legal"), "the mnemonic leaked into \(history)")
        let mode = try FileManager.default.attributesOfItem(atPath: historyPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// The console under a pseudo-terminal (`TerminalSession`), with `state` as its XDG state
    /// and config folder and the variables of `setting` set (nil: unset); each line is typed
    /// only once its prompt has appeared.
    private func terminal(state: URL, setting: [String: String?] = [:]) throws -> TerminalSession {
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = state.path
        env["KCS_HOME"] = state.appendingPathComponent("home").path
        for (name, value) in setting { env[name] = value }
        return try TerminalSession(environment: env, folder: state)
    }

    private func newState() throws -> URL {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        return state
    }

    @Test func nonASCIITypedAtThePrompt_isKept_whateverTheLocale() throws {
        // A process starts in the "C" locale, where libedit's decoding dropped every non-ASCII
        // character typed: the prompt takes a UTF-8 character type (docs/language.md §10).
        for locale in [nil, "C", "C.UTF-8"] {
            let state = try newState()
            defer { try? FileManager.default.removeItem(at: state) }
            let t = try terminal(state: state, setting: ["LANG": nil, "LC_ALL": locale])
            try t.answer("kcs> ", with: "print \"héllo ✓ 鍵\", len(\"héllo ✓ 鍵\")")
            try t.expect("\nhéllo ✓ 鍵 9")
            // A byte that is no UTF-8 is dropped, as libedit drops it; the rest of the line stays.
            try t.expect("kcs> ")
            t.type(bytes: Array("print \"a".utf8) + [0xFF] + Array("b ✓\"\n".utf8))
            try t.expect("\nab ✓\r\n")
            let text = try t.quit()
            #expect(t.status == 0, "\(locale ?? "no locale"): \(text)")
        }
    }

    @Test func tab_completesCommandNamesAndVariables() throws {
        let state = try newState()
        defer { try? FileManager.default.removeItem(at: state) }
        let t = try terminal(state: state)
        try t.answer("kcs> ", with: "let wallet_name = \"a\"")
        try t.expect("kcs> ")
        t.type("mnemonic.ch\t\"abandon\"\n")
        try t.expect("got 1")
        try t.expect("kcs> ")
        t.type("print wallet_n\t\n")
        let text = try t.quit()
        #expect(text.contains("kcs> mnemonic.check \"abandon\""), "Tab completes the unique command: \(text)")
        #expect(text.contains("mnemonic must have 12, 15, 18, 21 or 24 words, got 1"), "\(text)")
        #expect(text.contains("kcs> print wallet_name"), "Tab completes a variable: \(text)")
    }

    @Test func ctrlD_atThePrompt_endsItsLine_andExitsZero() throws {
        let state = try newState()
        defer { try? FileManager.default.removeItem(at: state) }
        let t = try terminal(state: state)
        try t.answer("kcs> ", with: "print \"before\"")
        try t.expect("before")
        try t.expect("kcs> ")
        #expect(t.waitUntilTheLineEditorReads())
        t.type("\u{04}")
        // kcs ends by itself on Ctrl-D: its input is closed only after that, not raced with it.
        #expect(t.waitForEnd(), "kcs did not end on Ctrl-D: \(t.text.debugDescription.suffix(60))")
        let (text, status) = t.finish()
        #expect(status == 0)
        // The shell's next prompt starts on a line of its own, not after `kcs> ` (the terminal
        // may echo the Ctrl-D as ^D first).
        #expect(
            text.hasSuffix("kcs> \r\n") || text.hasSuffix("kcs> ^D\r\n") || text.hasSuffix("kcs> \n"),
            "\(text.debugDescription.suffix(40))")
    }

    @Test func ctrlC_stopsARunningLoopAndTheSessionGoesOn() throws {
        let state = try newState()
        defer { try? FileManager.default.removeItem(at: state) }
        let t = try terminal(state: state)
        try t.answer("kcs> ", with: "let i = 0")
        // Ctrl-C is typed only once the loop has said it runs: earlier, it would cancel the line
        // before kcs read it, or stop the loop before its first step.
        try t.answer("kcs> ", with: "while true { i = i + 1; if i == 1000 { print \"running {i}\" } }")
        try t.expect("running 1000")  // the output, not the echo of the typed line
        t.type("\u{03}")
        try t.expect("error: interrupted")
        try t.answer("kcs> ", with: "print \"after {i > 0}\"")
        try t.expect("after ")
        try t.expect("kcs> ")
        t.type("let half = \"unfinished")
        try t.expect("unfinished")  // echoed, so the line editor holds it when Ctrl-C comes
        t.type("\u{03}")
        try t.answer("kcs> ", with: "print \"clean\"")
        try t.expect("clean")
        try t.answer("kcs> ", with: "if true {")
        try t.expect("...> ")
        t.type("\u{03}")
        try t.answer("kcs> ", with: "print \"fresh\"")
        try t.expect("fresh")
        let text = try t.quit()
        let status = t.status
        #expect(text.contains("error: interrupted"), "Ctrl-C stops the loop: \(text)")
        #expect(text.contains("after true"), "the session goes on with its variables: \(text)")
        #expect(
            text.contains("\nclean") && !text.contains("unfinishedprint"), "Ctrl-C drops the line being typed: \(text)")
        #expect(
            text.contains("kcs> print \"fresh\"") && text.contains("\nfresh"),
            "Ctrl-C at a continuation prompt drops the unfinished block: \(text)")
        #expect(status == 0)
    }

    @Test func bailOn_endsTheSessionAtTheFirstErrorWithItsCode() throws {
        let state = try newState()
        defer { try? FileManager.default.removeItem(at: state) }
        let t = try terminal(state: state)
        try t.answer("kcs> ", with: ".bail")
        try t.answer("kcs> ", with: ".bail on")
        try t.answer("kcs> ", with: "nope()")
        try t.expect("`nope`")
        t.type("print \"unreached\"\n")
        let (text, status) = t.finish()
        #expect(text.contains("bail is off"), "\(text)")
        #expect(text.contains("no function or builtin named `nope`"), "\(text)")
        #expect(!text.contains("\nunreached"), "\(text)")
        #expect(status == 70)
    }

    /// The prompt is the same loop as a script (docs/language.md §10): the init file's `.bail`
    /// holds at the prompt, a `.read` file's error names that file's line, and `--json` applies.
    @Test func prompt_initFileSettings_readErrorPositions_andJSON() throws {
        let state = try newState()
        defer { try? FileManager.default.removeItem(at: state) }
        let initFile = state.appendingPathComponent("init.kcs")
        try "let greeting = \"hi\"\n.bail off\n".write(to: initFile, atomically: true, encoding: .utf8)
        let inner = state.appendingPathComponent("inner.kcs")
        try "let a = 1\nprint nope\n".write(to: inner, atomically: true, encoding: .utf8)
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = state.path
        env["KCS_HOME"] = state.appendingPathComponent("home").path
        env["NO_COLOR"] = "1"
        let t = try TerminalSession(environment: env, folder: state, arguments: ["--json", "--init", initFile.path])
        try t.answer("kcs> ", with: ".bail")
        try t.expect("bail is off")
        try t.answer("kcs> ", with: ".read \(inner.path)")
        try t.expect("\"line\":2")
        try t.answer("kcs> ", with: "print greeting")
        let text = try t.quit()
        #expect(
            text.contains(
                "{\"error\":\"runtime.undefinedVariable\",\"message\":\"undefined variable `nope`\",\"file\":\"\(inner.path)\",\"line\":2,\"column\":7,\"hint\":\"declare it first with `let`\"}"
            ),
            "\(text)")
        #expect(text.contains("\n\"hi\""), "the init file ran in the session (--json prints JSON): \(text)")
    }
}
