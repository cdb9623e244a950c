// Every cost bounded, through the real kcs binary: hostile keystore files (scrypt and PBKDF2
// parameters past the ceiling, docs/store.md), Ctrl-C while a keystore KDF runs, hostile EIP-712
// documents (array dimensions, struct nesting, JSON nesting; docs/wallet-core.md), paths deeper
// than an extended key can record, `int` of a million digits, and transactions whose nonce or
// gas no node would take (EIP-2681). Each run has a deadline: the defects were hours of work,
// gigabytes of memory or a crash, and a test must report them, not wait for them.
import Foundation
import KCSTestSupport
import Testing

/// A keystore V3 file whose fields are all well formed, with `kdf` and its `kdfparams` (without
/// An EIP-712 document with the struct types `types` (JSON members of "types") and `Root` as
/// the primary type.
func typedDocument(types: String, message: String = "{}") -> String {
    """
    {"types": {"EIP712Domain": [{"name": "name", "type": "string"}], \(types)},
     "primaryType": "Root", "domain": {"name": "bounds"}, "message": \(message)}
    """
}

extension BatchHome {
    /// Runs `code` as a script like `run`, but stops kcs after `seconds` (SIGKILL); `finished`
    /// is false then. Returns the exit status, the output and the time taken.
    func run(_ code: String, deadline seconds: TimeInterval,
             name: String = "run.kcs") throws -> (finished: Bool, code: Int32, out: String, err: String, seconds: Double) {
        let script = try write(code, to: name)
        let out = path(name + ".out"), err = path(name + ".err")
        let started = Date()
        let p = try start(script, stdout: out, stderr: err)
        let deadline = started.addingTimeInterval(seconds)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let finished = !p.isRunning
        if !finished { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        return (finished, p.terminationStatus, try String(contentsOfFile: out, encoding: .utf8),
                try String(contentsOfFile: err, encoding: .utf8), Date().timeIntervalSince(started))
    }
}

@Suite("Every cost bounded")
struct BoundsTests {
    // MARK: - EIP-712 documents

    /// A type with more array suffixes than the limit (33; the report's 100,000 took 7.7 GiB and
    /// crashed), struct types nested past the limit, and JSON nested past the decoder's limit:
    /// each a one-line error naming what and the limit. At the limits, documents still hash.
    @Test func signTyped_hostileDocuments_refusedNamingWhatAndTheLimit() throws {
        let home = try BatchHome()
        defer { home.remove() }
        func dims(_ n: Int) -> String { #""Root": [{"name": "x", "type": "uint256\#(String(repeating: "[]", count: n))"}]"# }
        func chain(_ n: Int) -> String {
            // Root → S1 → … → S(n-1) → uint256: n struct types in a chain.
            (0..<n).map { i in
                let name = i == 0 ? "Root" : "S\(i)"
                let next = i == n - 1 ? "uint256" : "S\(i + 1)"
                return #""\#(name)": [{"name": "x", "type": "\#(next)"}]"#
            }.joined(separator: ", ")
        }
        let prefix = #"{"types": {"EIP712Domain": []}, "primaryType": "EIP712Domain", "domain": {}, "message": "#
        let files = [
            try home.write(typedDocument(types: dims(33), message: #"{"x": []}"#), to: "dims33.json"),
            try home.write(typedDocument(types: dims(32), message: #"{"x": []}"#), to: "dims32.json"),
            try home.write(typedDocument(types: chain(65)), to: "chain65.json"),
            try home.write(prefix + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}", to: "json600.json"),
            try home.write("{\"types\": {},\n  \"primaryType\": ,}", to: "broken.json"),
        ]
        let r = try home.run("""
            for f in [\(files.map { "\"\($0)\"" }.joined(separator: ", "))] {
              try { print "D", len((sign typed $f --dry-run).digest) } catch e { print "E", e.kind, "|", e.message }
            }
            """, deadline: 60)
        #expect(r.finished && r.code == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        try #require(lines.count == 5, "\(r.out)")
        #expect(lines[0] == "E eth.typedData.tooDeep | typed data type of Root.x must have at most 32 array dimensions, got 33")
        #expect(lines[1] == "D 32")
        #expect(lines[2] == "E eth.typedData.tooDeep | typed data struct Root must have at most 64 levels of nested struct "
                    + "types, got more: Root → S1 → … → S63 → S64")
        #expect(lines[3] == "E eth.typedData.malformed | typed data must be an EIP-712 document {types, primaryType, domain, "
                    + "message}: not valid JSON: arrays and objects must nest at most 512 levels deep, got more at line 1, "
                    + "column \(prefix.count + 512)")  // the message is at depth 1
        #expect(lines[4].hasPrefix("E eth.typedData.malformed | typed data must be an EIP-712 document {types, primaryType, "
                    + "domain, message}: not valid JSON: "), "\(lines[4])")
        #expect(lines[4].hasSuffix(" at line 2, column 18"), "\(lines[4])")

        // The report's type: 100,000 array suffixes, refused in time and without the gigabytes.
        let deep = try home.write(typedDocument(types: dims(100_000), message: #"{"x": []}"#), to: "dims100000.json")
        let d = try home.run("try { sign typed \"\(deep)\" --dry-run } catch e { print \"E\", e.message }", deadline: 60, name: "deep.kcs")
        #expect(d.finished && d.code == 0, "\(d.err)")
        #expect(tagged("E", in: d.out) == ["typed data type of Root.x must have at most 32 array dimensions, got 100000"])
        #expect(d.seconds < 20, "took \(d.seconds) s")
    }
}
