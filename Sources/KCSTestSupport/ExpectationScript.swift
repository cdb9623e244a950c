import Foundation

/// A behaviour test written as a `.kcs` script with its expectations beside the lines that
/// produce them (docs/architecture.md, "Tests"), run through the real kcs binary in a batch
/// run with an empty kcs home, the script's folder as working directory, and JSON errors
/// (`--json-errors`: the printed lines stay text):
///
/// ```
/// print hex(keccak256 "")   # expect: 0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470
/// try { card.info } catch e { print e.kind }   # expect: card.notConnected
/// sign 0x00                 # expect error: key.digestLength
/// ```
///
/// - `# expect: TEXT` — the script prints TEXT, one line; the printed lines must be exactly the
///   `expect:` lines, in order.
/// - `# expect error: ID` — the script stops on this line with the uncaught error ID (and the
///   exit code of its class); at most one, and nothing of the script runs after it.
/// - `# expect exit: N` — the exit status, when it is neither 0 nor an error's.
/// - `# expect warning: TEXT` — a line kcs writes to standard error that is not an error (e.g.
///   `kcs: warning: …`); those lines must be exactly the `warning:` lines, in order.
/// - `# env: NAME=VALUE` lines set the environment of the run (before any code).
/// - A line `# run` starts another run of kcs in the same kcs home (a new process: the card
///   connection and the unlocked vault are gone, the store and the simulated cards stay); each
///   run is checked on its own, and an error ends only its run.
public struct ExpectationScript: Sendable {
    /// The script, relative to the repository root (or absolute).
    public let path: String
    public var testDescription: String { path }

    public init(path: String) { self.path = path }

    /// The `.kcs` files below `folder` (relative to the repository root), sorted.
    public static func all(in folder: String) -> [ExpectationScript] {
        let dir = TestPaths.root.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".kcs") }.sorted().map { ExpectationScript(path: folder + "/" + $0) }
    }

    /// What the script's comments expect.
    public struct Expectations {
        public var output: [(line: Int, text: String)] = []
        public var warnings: [String] = []
        public var error: (line: Int, id: String)?
        public var exit: Int32?
        public var environment: [String: String] = [:]
    }

    /// Reads the expectations of `text` (the marker is the last `# expect` of a line).
    public static func expectations(of text: String) -> Expectations {
        var e = Expectations()
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            if line.hasPrefix("# env: "), let eq = line.dropFirst(7).firstIndex(of: "=") {
                let rest = line.dropFirst(7)
                e.environment[String(rest[..<eq])] = String(rest[rest.index(after: eq)...])
                continue
            }
            guard let marker = line.range(of: "# expect", options: .backwards) else { continue }
            let directive = line[marker.upperBound...]
            if directive.hasPrefix(": ") {
                e.output.append((i + 1, String(directive.dropFirst(2))))
            } else if directive.hasPrefix(" error: ") {
                e.error = (i + 1, String(directive.dropFirst(8)).trimmingCharacters(in: .whitespaces))
            } else if directive.hasPrefix(" warning: ") {
                e.warnings.append(String(directive.dropFirst(10)))
            } else if directive.hasPrefix(" exit: "),
                let n = Int32(directive.dropFirst(7).trimmingCharacters(in: .whitespaces))
            {
                e.exit = n
            }
        }
        return e
    }

    /// Runs the script (each `# run` part in turn, in one kcs home) and returns what went wrong
    /// (empty: it behaved as its comments say).
    public func failures() throws -> [String] {
        let file = path.hasPrefix("/") ? URL(fileURLWithPath: path) : TestPaths.root.appendingPathComponent(path)
        let lines = try String(contentsOf: file, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .map(String.init)
        var home = try BatchHome()
        defer { home.remove() }
        for (k, v) in Self.expectations(of: lines.joined(separator: "\n")).environment { home.environment[k] = v }
        let starts = [0] + lines.indices.filter { lines[$0] == "# run" }
        var problems: [String] = []
        for (n, start) in starts.enumerated() {
            let end = n + 1 < starts.count ? starts[n + 1] : lines.count
            // Lines outside the part stay as empty lines, so errors keep the script's line numbers.
            let part = lines.indices.map { $0 >= start && $0 < end ? lines[$0] : "" }.joined(separator: "\n")
            // The part is written beside the home, not into the source tree; it runs with the
            // script's folder as working directory, so fixtures are found by their names.
            let partFile = home.folder.appendingPathComponent("run\(n + 1)-\(file.lastPathComponent)")
            try part.write(to: partFile, atomically: true, encoding: .utf8)
            let r = try home.run(arguments: ["--json-errors", partFile.path], in: file.deletingLastPathComponent())
            let label = starts.count > 1 ? "\(path) (run \(n + 1))" : path
            problems += Self.check(r, against: Self.expectations(of: part), script: path, label: label)
        }
        return problems
    }

    /// What differs between a run's output, errors and exit status and the expectations.
    static func check(
        _ r: (code: Int32, out: String, err: String), against expected: Expectations, script path: String,
        label: String
    ) -> [String] {
        var problems: [String] = []
        let printed = r.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let lines = printed.last == "" ? Array(printed.dropLast()) : printed
        let wanted = expected.output.map(\.text)
        if lines != wanted {
            // Name the first difference by the script line that expected it.
            let i =
                zip(lines, wanted).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(lines.count, wanted.count)
            let at = i < expected.output.count ? "\(path):\(expected.output[i].line)" : label
            problems.append(
                "\(at): printed line \(i + 1) is \(i < lines.count ? "\"\(lines[i])\"" : "missing")"
                    + (i < wanted.count ? ", expected \"\(wanted[i])\"" : ", expected nothing more"))
        }
        let other = r.err.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("{\"error\"") }
        if other != expected.warnings {
            problems.append("\(label): standard error has \(other), expected \(expected.warnings)")
        }
        let errors = r.err.split(separator: "\n").compactMap { line -> (id: String, line: Int?)? in
            guard let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let id = object["error"] as? String
            else { return nil }
            return (id, object["line"] as? Int)
        }
        if let error = expected.error {
            if let got = errors.last {
                if got.id != error.id || got.line != error.line {
                    problems.append(
                        "\(path):\(error.line): expected error \(error.id) here, got \(got.id) at line \(got.line.map(String.init) ?? "?")"
                    )
                }
            } else {
                problems.append(
                    "\(path):\(error.line): expected error \(error.id), the script ran to the end (exit \(r.code))")
            }
            if r.code == 0 { problems.append("\(label): exit 0 after an error") }
        } else if let got = errors.last {
            problems.append("\(path):\(got.line.map(String.init) ?? "?"): unexpected error \(got.id): \(r.err)")
        }
        let exit = expected.exit ?? (expected.error == nil ? 0 : nil)
        if let exit, r.code != exit { problems.append("\(label): exit \(r.code), expected \(exit)") }
        return problems
    }
}
