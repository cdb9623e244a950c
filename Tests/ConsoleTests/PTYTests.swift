// The console under a pseudo-terminal (util-linux `script` gives kcs a real TTY): the REPL
// prompt appears, a mnemonic typed as an argument works, and the history file written by
// libedit holds `<secret>` instead of the words. The binary is `$KCS_BINARY` or the debug
// build (`storeTestBinary`).
import Foundation
import Testing

@Suite("Console on a terminal")
struct PTYTests {
    @Test func mnemonicTypedAtThePrompt_neverReachesTheHistoryFile() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: state) }
        let phrase = "legal winner thank year wave sausage worth useful legal winner thank yellow"
        let readable = state.appendingPathComponent("more.kcs")
        try "print \"read {twice(5)}\"\n".write(to: readable, atomically: true, encoding: .utf8)
        let lines = ["let r = mnemonic.check \"\(phrase)\"", "print r.valid", "print mnemonic.explain(\"\(phrase)\").words",
                     "def twice(x) {", "return x * 2 }", "print twice(21)", ".read \(readable.path)", ".quit"]
        let (text, _) = try session(lines.map { $0 + "\n" }, state: state)
        #expect(text.contains("kcs> "), "the REPL prompts on a terminal: \(text)")
        #expect(text.contains("true") && text.contains("42"), "\(text)")
        #expect(text.contains("words × 11 bits = 132 bits = ENT + CS"), "mnemonic.explain written as a call: \(text)")
        #expect(text.contains("...> "), "an unfinished def continues on a second prompt: \(text)")
        #expect(text.contains("read 10"), ".read runs a file in the same session: \(text)")
        let historyPath = state.appendingPathComponent("kcs/history").path
        let history = try String(contentsOfFile: historyPath, encoding: .utf8)
        #expect(history.contains("mnemonic.check") && history.contains("<secret>"), "\(history)")
        #expect(history.contains("mnemonic.explain(<secret>)"), "a secret argument of a call is redacted too: \(history)")
        #expect(!history.contains("sausage") && !history.contains("legal"), "the mnemonic leaked into \(history)")
        let mode = try FileManager.default.attributesOfItem(atPath: historyPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// Runs the console under a pseudo-terminal, writing each chunk after a pause; returns
    /// everything the terminal showed and the exit status.
    /// `state` is the XDG state and config folder (a new temporary one, removed after, by default).
    private func session(_ chunks: [String], pause: useconds_t = 300_000, state given: URL? = nil) throws -> (text: String, status: Int32) {
        let state = given ?? FileManager.default.temporaryDirectory.appendingPathComponent("kcs-pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { if given == nil { try? FileManager.default.removeItem(at: state) } }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qfec", storeTestBinary.path, "/dev/null"]
        var env = ProcessInfo.processInfo.environment
        env["XDG_STATE_HOME"] = state.path
        env["XDG_CONFIG_HOME"] = state.path
        env["KCS_HOME"] = state.appendingPathComponent("home").path
        env["TERM"] = "dumb"
        p.environment = env
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = output
        try p.run()
        signal(SIGPIPE, SIG_IGN) // kcs may end before the last chunk (`.bail on`)
        for chunk in chunks {
            usleep(pause)
            try? input.fileHandleForWriting.write(contentsOf: Data(chunk.utf8))
        }
        usleep(pause)
        try? input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (text, p.terminationStatus)
    }

    @Test func tab_completesCommandNamesAndVariables() throws {
        let (text, _) = try session(["let wallet_name = \"a\"\n", "mnemonic.ch\t\"abandon\"\n", "print wallet_n\t\n", ".quit\n"])
        #expect(text.contains("kcs> mnemonic.check \"abandon\""), "Tab completes the unique command: \(text)")
        #expect(text.contains("mnemonic must have 12, 15, 18, 21 or 24 words, got 1"), "\(text)")
        #expect(text.contains("kcs> print wallet_name"), "Tab completes a variable: \(text)")
    }

    @Test func ctrlC_stopsARunningLoopAndTheSessionGoesOn() throws {
        let (text, status) = try session(["let i = 0\n", "while true { i = i + 1 }\n", "\u{03}",
                                          "print \"after {i > 0}\"\n", "let half = \"unfinished", "\u{03}",
                                          "print \"clean\"\n", "if true {\n", "\u{03}", "print \"fresh\"\n", ".quit\n"],
                                         pause: 500_000)
        #expect(text.contains("error: interrupted"), "Ctrl-C stops the loop: \(text)")
        #expect(text.contains("after true"), "the session goes on with its variables: \(text)")
        #expect(text.contains("clean") && !text.contains("unfinishedprint"), "Ctrl-C drops the line being typed: \(text)")
        #expect(text.contains("kcs> print \"fresh\"") && text.contains("\nfresh"),
                "Ctrl-C at a continuation prompt drops the unfinished block: \(text)")
        #expect(status == 0)
    }

    @Test func bailOn_endsTheSessionAtTheFirstErrorWithItsCode() throws {
        let (text, status) = try session([".bail\n", ".bail on\n", "nope()\n", "print \"unreached\"\n"])
        #expect(text.contains("bail is off"), "\(text)")
        #expect(text.contains("no function or builtin named `nope`"), "\(text)")
        #expect(!text.contains("\nunreached"), "\(text)")
        #expect(status == 70)
    }
}
