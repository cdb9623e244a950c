// The README's command lines work when followed literally, in order, twice: the quick start (each
// run makes its own throw-away home) and the example lines of "What works today" (twice in one
// home: every example leaves the home as it found it). They run in bash from the repository
// root with the built kcs first on PATH, as a reader who ran `make install` has it.
import Foundation
import KCSTestSupport
import Testing

/// The ```sh blocks of the README section titled `title`.
private func shellBlocks(under title: String) throws -> [String] {
    let text = try String(contentsOf: TestPaths.root.appendingPathComponent("README.md"), encoding: .utf8)
    guard let start = text.range(of: "\n## \(title)\n") else { return [] }
    let rest = text[start.upperBound...]
    let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
    return section.components(separatedBy: "```sh\n").dropFirst().compactMap {
        $0.components(separatedBy: "\n```").first
    }
}

/// Runs `script` with bash (`-e`: the first failing line fails it) and returns its status and output.
private func bash(_ script: String, environment: [String: String]) throws -> (code: Int32, out: String) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-readme-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("readme.sh"), out = folder.appendingPathComponent("out")
    try script.write(to: file, atomically: true, encoding: .utf8)
    FileManager.default.createFile(atPath: out.path, contents: nil)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/bash")
    p.arguments = ["-e", file.path]
    p.currentDirectoryURL = TestPaths.root
    p.environment = environment
    p.standardOutput = try FileHandle(forWritingTo: out)
    p.standardError = p.standardOutput
    try p.runWithSignalsUnblocked()
    p.waitUntilExit()
    return (p.terminationStatus, try String(contentsOf: out, encoding: .utf8))
}

@Suite("The README, followed literally")
struct ReadmeTests {
    /// PATH with the built kcs first, HOME a throw-away folder, no kcs settings of this machine.
    static func environment(home: URL) -> [String: String] {
        [
            "PATH": TestPaths.kcsBinary.deletingLastPathComponent().path + ":/usr/bin:/bin", "HOME": home.path,
            "NO_COLOR": "1", "LANG": "C.UTF-8",
        ]
    }

    @Test func quickStart_endsInVerifiedSignatures_twice() throws {
        let blocks = try shellBlocks(under: "Quick start")
        try #require(blocks.count == 1, "the quick start is one sh block")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-readme-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        for run in 1...2 {
            let r = try bash(blocks[0], environment: Self.environment(home: home))
            #expect(r.code == 0, "run \(run): \(r.out)")
            let lines = r.out.split(separator: "\n").map(String.init)
            // The software key's signature, verified twice; the card's, checked against its export.
            #expect(
                lines.contains { $0.range(of: #"^0x[0-9a-fA-F]{40} true$"#, options: .regularExpression) != nil },
                "\(r.out)")
            #expect(lines.contains("valid      true"), "\(r.out)")
            #expect(lines.contains { $0.hasSuffix(" true the key exported from the card") }, "\(r.out)")
        }
    }

    @Test func exampleLines_runTwiceInOneHome() throws {
        let blocks = try shellBlocks(under: "What works today")
        try #require(blocks.count == 1)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-readme-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        // The vault passphrase file the README's wallet_store line names.
        try "a passphrase for the README's examples\n".write(
            to: home.appendingPathComponent(".kcs-pass"), atomically: true,
            encoding: .utf8)
        chmod(home.appendingPathComponent(".kcs-pass").path, 0o600)
        var env = Self.environment(home: home)
        env["KCS_HOME"] = home.appendingPathComponent("kcs").path
        env["KCS_VAULT_PASSPHRASE_FILE"] = home.appendingPathComponent(".kcs-pass").path
        var kept: [String] = []
        for run in 1...2 {
            let r = try bash(blocks[0], environment: env)
            #expect(r.code == 0, "run \(run): \(r.out.suffix(2000))")
            #expect(r.out.contains("0x9858EfFD232B4033E47d90003D41EC34EcaEda94"), "run \(run)")
            #expect(!r.out.contains("error:"), "run \(run): \(r.out.suffix(2000))")
            // What the README says stays: no key, one stored pairing per simulated card (replaced, not added).
            let state = try bash(
                "kcs -e 'let p = card.pairings --all\nprint \"KEPT\", len(key.list()), len(card.readers()), len(p)'",
                environment: env)
            kept.append(contentsOf: tagged("KEPT", in: state.out))
        }
        #expect(kept.count == 2 && kept[0] == kept[1] && kept[0].hasPrefix("0 "), "\(kept)")
    }
}
