// Golden transcripts (STYLE §2, habit 5): every examples/*.kcs and every stdlib test script is
// run by the built kcs binary; what a user sees (stdout, then stderr, then "[exit N]") must
// equal the .out file. KCS_RECORD=1 rewrites the goldens and fails, so nothing is committed by
// accident; a mismatch prints a line diff.
import Foundation
import KCSTestSupport
import Testing

private let root = TestPaths.root
private let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

/// One script, the arguments it is run with, and its golden file.
struct Transcript: Sendable, CustomTestStringConvertible {
    let script: String  // relative to the repository root
    let arguments: [String]
    let golden: String  // absolute
    /// kcs's own options before the script (`--trace explain --diffable` for a card trace golden).
    var options: [String] = []
    var testDescription: String { (options + [script] + arguments).joined(separator: " ") }
}

/// Every script in `dir`, run without arguments (golden `NAME.out`) and, for a card example with
/// the line `# card profiles: 3.1.0 4.0`, once more for each further applet profile, which it
/// takes as its argument (golden `NAME@PROFILE.out`).
private func scripts(in dir: String, goldenDir: String) -> [Transcript] {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(dir).path)) ?? []
    return files.filter { $0.hasSuffix(".kcs") }.sorted().flatMap { file -> [Transcript] in
        let name = String(file.dropLast(4)), script = dir + "/" + file
        let golden = { (suffix: String) in
            here.appendingPathComponent(goldenDir).appendingPathComponent(name + suffix + ".out").path
        }
        let text = (try? String(contentsOf: root.appendingPathComponent(script), encoding: .utf8)) ?? ""
        let profiles =
            text.split(separator: "\n").first { $0.hasPrefix("# card profiles: ") }
            .map { $0.dropFirst("# card profiles: ".count).split(separator: " ").map(String.init) } ?? []
        return [Transcript(script: script, arguments: [], golden: golden(""))]
            + profiles.dropFirst().map { Transcript(script: script, arguments: [$0], golden: golden("@" + $0)) }
    }
}

/// Runs the script with the repository root as working directory; returns the transcript text.
private func run(_ t: Transcript) throws -> String {
    let p = Process()
    p.executableURL = TestPaths.kcsBinary
    p.arguments = t.options + [t.script] + t.arguments
    p.currentDirectoryURL = root
    var env = ProcessInfo.processInfo.environment
    env["KCS_STDLIB"] = root.appendingPathComponent("stdlib").path
    env["NO_COLOR"] = "1"
    // Each transcript gets an empty kcs home (a new store) and a vault passphrase, as a batch
    // user would give them.
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-transcript-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: home) }
    env["KCS_HOME"] = home.path
    env["KCS_VAULT_PASSPHRASE"] = "transcript passphrase"
    // No PC/SC service, wherever the suite runs: `card.readers` says so the same way each time.
    env["PCSCLITE_CSOCK_NAME"] = home.appendingPathComponent("no-pcscd.comm").path
    // A script with the line "# needs: evm node" gets its own fresh local chain; its URL (a
    // random port) reads as $KCS_RPC_URL in the transcript.
    var node: EVMNode?
    defer { node?.stop() }
    let text = try String(contentsOf: root.appendingPathComponent(t.script), encoding: .utf8)
    if text.contains("\n# needs: evm node\n") {
        node = try EVMNode()
        env["KCS_RPC_URL"] = node?.url
    }
    p.environment = env
    // Files, not pipes: a card trace on standard error outgrows a pipe's buffer while standard
    // output is still being read, and neither side would go on.
    let outFile = URL(fileURLWithPath: home.path + ".stdout"), errFile = URL(fileURLWithPath: home.path + ".stderr")
    defer {
        try? FileManager.default.removeItem(at: outFile)
        try? FileManager.default.removeItem(at: errFile)
    }
    FileManager.default.createFile(atPath: outFile.path, contents: nil)
    FileManager.default.createFile(atPath: errFile.path, contents: nil)
    p.standardOutput = try FileHandle(forWritingTo: outFile)
    p.standardError = try FileHandle(forWritingTo: errFile)
    p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
    try p.runWithSignalsUnblocked()
    p.waitUntilExit()
    let o = try Data(contentsOf: outFile)
    let e = try Data(contentsOf: errFile)
    var transcript =
        String(decoding: o, as: UTF8.self) + String(decoding: e, as: UTF8.self) + "[exit \(p.terminationStatus)]\n"
    if let url = node?.url { transcript = transcript.replacingOccurrences(of: url, with: "$KCS_RPC_URL") }
    return transcript
}

private func check(_ t: Transcript) throws {
    let actual = try run(t)
    if ProcessInfo.processInfo.environment["KCS_RECORD"] == "1" {
        try actual.write(toFile: t.golden, atomically: true, encoding: .utf8)
        Issue.record("recorded \(t.golden); unset KCS_RECORD and run again")
        return
    }
    guard let expected = try? String(contentsOfFile: t.golden, encoding: .utf8) else {
        Issue.record("no golden file \(t.golden); run with KCS_RECORD=1")
        return
    }
    if actual != expected {
        let diff = lineDiff(expected: expected, actual: actual).joined(separator: "\n")
        Issue.record(Comment(rawValue: "\(t.script) differs from its golden:\n\(diff)"))
    }
}

/// Every example that uses a card, once more with the whole card trace at `explain`, diffable
/// (docs/card-explained.md): golden `Traces/NAME[@PROFILE].out`, on each profile the example names.
private func cardTraces() -> [Transcript] {
    scripts(in: "examples", goldenDir: "Traces").filter { t in
        let text = (try? String(contentsOf: root.appendingPathComponent(t.script), encoding: .utf8)) ?? ""
        return text.contains("card.connect")
    }.map { t in
        Transcript(
            script: t.script, arguments: t.arguments, golden: t.golden, options: ["--trace", "explain", "--diffable"])
    }
}

@Suite("Transcripts")
struct TranscriptTests {
    @Test("examples with a card, their diffable card trace", arguments: cardTraces())
    func cardTrace_matchesGolden(_ t: Transcript) throws { try check(t) }

    @Test("examples/*.kcs", arguments: scripts(in: "examples", goldenDir: "Examples"))
    func example_matchesGolden(_ t: Transcript) throws { try check(t) }

    @Test("stdlib exercises", arguments: scripts(in: "Tests/TranscriptTests/Stdlib", goldenDir: "Stdlib"))
    func stdlib_matchesGolden(_ t: Transcript) throws { try check(t) }

    @Test func everyExampleAndStdlibModule_hasATranscript() throws {
        #expect(scripts(in: "examples", goldenDir: "Examples").count >= 5)
        let modules = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("stdlib").path)
            .filter { $0.hasSuffix(".kcs") }
        let exercised = scripts(in: "Tests/TranscriptTests/Stdlib", goldenDir: "Stdlib").map {
            ($0.script as NSString).lastPathComponent
        }
        for m in modules {
            #expect(exercised.contains(m), "stdlib/\(m) has no exercise in Tests/TranscriptTests/Stdlib")
        }
    }
}
