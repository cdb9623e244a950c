import Foundation

/// A temporary folder holding an empty kcs home (`home/`, created by kcs) and the scripts
/// and files of one test, with the environment of a batch run: a vault passphrase in the
/// environment, no colour, standard input /dev/null.
public struct BatchHome {
    public let folder: URL
    public var environment: [String: String]

    public static let vaultPassphrase = "store test vault passphrase"

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var env = ProcessInfo.processInfo.environment
        env["KCS_HOME"] = folder.appendingPathComponent("home").path
        env["KCS_VAULT_PASSPHRASE"] = Self.vaultPassphrase
        env["KCS_VAULT_PASSPHRASE_FILE"] = nil
        env["NO_COLOR"] = "1"
        environment = env
    }

    /// The path of `name` inside the folder.
    public func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Writes `text` to `name` in the folder; returns its path.
    @discardableResult
    public func write(_ text: String, to name: String) throws -> String {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    /// Starts kcs on the script file `script` with stdout and stderr going to files; stdin is
    /// /dev/null, so the run is a batch run.
    public func start(_ script: String, stdout: String, stderr: String) throws -> Process {
        try start(arguments: [script], stdout: stdout, stderr: stderr)
    }

    /// Starts kcs (or `executable`, given the same environment: a tracer wrapping kcs) with
    /// `arguments` (in `directory`, else the folder), as `start(_:stdout:stderr:)` does a script.
    public func start(
        arguments: [String], stdout: String, stderr: String, in directory: URL? = nil,
        executable: URL = TestPaths.kcsBinary, stdinFile: String = "/dev/null"
    ) throws -> Process {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        p.currentDirectoryURL = directory ?? folder
        p.environment = environment
        _ = FileManager.default.createFile(atPath: stdout, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr, contents: nil)
        p.standardOutput = FileHandle(forWritingAtPath: stdout)
        p.standardError = FileHandle(forWritingAtPath: stderr)
        p.standardInput = FileHandle(forReadingAtPath: stdinFile)
        try p.runWithSignalsUnblocked()
        return p
    }

    /// Runs kcs with `arguments` to the end, `stdin` (when given) on its standard input;
    /// returns (exit status, stdout, stderr).
    public func run(
        arguments: [String], in directory: URL? = nil,
        executable: URL = TestPaths.kcsBinary, stdin: String? = nil
    ) throws -> (code: Int32, out: String, err: String) {
        let name = UUID().uuidString
        let out = path(name + ".out"), err = path(name + ".err")
        let input = try stdin.map { try write($0, to: name + ".in") } ?? "/dev/null"
        let p = try start(
            arguments: arguments, stdout: out, stderr: err, in: directory, executable: executable, stdinFile: input)
        p.waitUntilExit()
        return (
            p.terminationStatus, try String(contentsOfFile: out, encoding: .utf8),
            try String(contentsOfFile: err, encoding: .utf8)
        )
    }

    /// Runs `code` as a script file to the end; returns (exit status, stdout, stderr).
    public func run(_ code: String, name: String = "run.kcs") throws -> (code: Int32, out: String, err: String) {
        try run(arguments: [try write(code, to: name)])
    }

    public func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// The output lines that start with `tag` and a blank, without the tag.
public func tagged(_ tag: String, in output: String) -> [String] {
    output.split(separator: "\n").filter { $0.hasPrefix(tag + " ") }.map { String($0.dropFirst(tag.count + 1)) }
}

/// The lines where `actual` differs from `expected`, as `line N:\n  - expected\n  + actual`
/// (at most `limit`); empty when they are equal.
public func lineDiff(expected: String, actual: String, limit: Int = 10) -> [String] {
    let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
    let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
    var diff: [String] = []
    for i in 0..<max(a.count, e.count) where diff.count < limit {
        let x = i < e.count ? String(e[i]) : "<none>", y = i < a.count ? String(a[i]) : "<none>"
        if x != y { diff.append("line \(i + 1):\n  - \(x)\n  + \(y)") }
    }
    return diff
}

extension BatchHome {
    /// Starts `kcs cosigner serve` in this home on a free port of 127.0.0.1 (`--approve all`, and
    /// `options`: by default it pairs any console and co-signs bare digests, as the tests of
    /// the protocol need); returns the process (the caller stops it by its PID) and the address
    /// it listens on.
    public func startCosigner(
        options: [String] = ["--pair-any", "--allow-raw-digests"]
    ) throws -> (process: Process, address: String) {
        var env = self
        let ready = path("cosigner.ready")
        env.environment["KCS_COSIGNER_READY_FILE"] = ready
        let p = try env.start(
            arguments: ["cosigner", "serve", "--listen", "127.0.0.1:0", "--approve", "all"] + options,
            stdout: path("cosigner.out"), stderr: path("cosigner.err"))
        // Waits for the event itself, the address written to the ready file, for as long as the
        // co-signer runs (its vault's scrypt may take seconds on a busy machine), within 2 minutes.
        let deadline = Date().addingTimeInterval(120)
        while p.isRunning, Date() < deadline {
            if let text = try? String(contentsOfFile: ready, encoding: .utf8), text.hasSuffix("\n") {
                return (p, text.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        p.terminate()
        p.waitUntilExit()
        throw CosignerDidNotStart(log: (try? String(contentsOfFile: path("cosigner.err"), encoding: .utf8)) ?? "")
    }
}

public struct CosignerDidNotStart: Error, CustomStringConvertible {
    public let log: String
    public var description: String { "kcs cosigner serve did not start: " + log }
}
