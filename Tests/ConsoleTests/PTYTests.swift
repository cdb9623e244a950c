// The console under a pseudo-terminal (util-linux `script` gives kcs a real TTY): the REPL
// prompt appears, a mnemonic typed as an argument works, and the history file written by
// libedit holds `<secret>` instead of the words.
import Foundation
import Testing

@Suite("Console on a terminal")
struct PTYTests {
    @Test func mnemonicTypedAtThePrompt_neverReachesTheHistoryFile() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: state) }
        let phrase = "legal winner thank year wave sausage worth useful legal winner thank yellow"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let kcs = root.appendingPathComponent(".build/debug/kcs").path
        p.arguments = ["-qfec", kcs, "/dev/null"]
        var env = ProcessInfo.processInfo.environment
        env["XDG_STATE_HOME"] = state.path
        env["TERM"] = "dumb"
        p.environment = env
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = output
        try p.run()
        let readable = state.appendingPathComponent("more.kcs")
        try "print \"read {twice(5)}\"\n".write(to: readable, atomically: true, encoding: .utf8)
        let lines = ["let r = mnemonic.check \"\(phrase)\"", "print r.valid",
                     "def twice(x) {", "return x * 2 }", "print twice(21)", ".read \(readable.path)", ".quit"]
        for line in lines {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
            usleep(300_000)
        }
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(text.contains("kcs> "), "the REPL prompts on a terminal: \(text)")
        #expect(text.contains("true") && text.contains("42"), "\(text)")
        #expect(text.contains("...> "), "an unfinished def continues on a second prompt: \(text)")
        #expect(text.contains("read 10"), ".read runs a file in the same session: \(text)")
        let historyPath = state.appendingPathComponent("kcs/history").path
        let history = try String(contentsOfFile: historyPath, encoding: .utf8)
        #expect(history.contains("mnemonic.check") && history.contains("<secret>"), "\(history)")
        #expect(!history.contains("sausage") && !history.contains("legal"), "the mnemonic leaked into \(history)")
        let mode = try FileManager.default.attributesOfItem(atPath: historyPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
