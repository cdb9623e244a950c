import Foundation
import Synchronization

/// The local EVM for tests (docs/eth-node.md): `tools/evm-node/evm_node.py`, eth-tester over py-evm,
/// run by the Python of the virtual environment `make test` creates (`.build/evm-venv`, or
/// `KCS_EVM_PYTHON`). Started as a child process and stopped by its PID.
public final class EVMNode: @unchecked Sendable {
    /// `http://127.0.0.1:PORT`.
    public let url: String
    public let pid: Int32
    private let process: Process

    static var root: URL { TestPaths.root }

    /// The Python that has eth-tester and py-evm.
    public static var python: String {
        if let p = ProcessInfo.processInfo.environment["KCS_EVM_PYTHON"], !p.isEmpty { return p }
        return root.appendingPathComponent(".build/evm-venv/bin/python").path
    }

    /// Starts a fresh chain and waits until it accepts requests. Throws (never skips) when the
    /// virtual environment is missing: `make test` makes it.
    public init(timeout: Double = 60) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw EVMNodeError.noPython(Self.python)
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.python)
        p.arguments = [Self.root.appendingPathComponent("tools/evm-node/evm_node.py").path, "--port", "0"]
        let out = Pipe()
        p.standardOutput = out
        // What Python says on failure (a broken virtual environment) goes into the error.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("evm-node-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        p.standardError = try FileHandle(forWritingTo: errors)
        try p.runWithSignalsUnblocked()
        process = p
        pid = p.processIdentifier
        // The first line says where it listens; read without blocking past the deadline.
        let first = FirstLine()
        out.fileHandleForReading.readabilityHandler = { handle in first.append(handle.availableData) }
        let line = first.wait(seconds: timeout)
        out.fileHandleForReading.readabilityHandler = nil
        guard let line, line.hasPrefix("listening ") else {
            terminate(p)
            let said = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw EVMNodeError.didNotStart(seconds: timeout, said: line ?? String(said.suffix(600)))
        }
        url = String(line.dropFirst("listening ".count))
    }

    /// Stops the node (SIGTERM, then SIGKILL) and waits for it.
    public func stop() { terminate(process) }

    deinit { stop() }
}

public enum EVMNodeError: Error, CustomStringConvertible {
    case noPython(String)
    /// No `listening URL` line in time; `said` is its first line or the end of its stderr.
    case didNotStart(seconds: Double, said: String)

    public var description: String {
        switch self {
        case .noPython(let path):
            "no Python with eth-tester at \(path): run `make test` (it creates .build/evm-venv), or set KCS_EVM_PYTHON"
        case .didNotStart(let s, let said):
            "tools/evm-node/evm_node.py did not say where it listens within \(Int(s)) s; it said: \(said)"
        }
    }
}

/// The first line of a child's output, as it arrives on the pipe's reading thread.
private final class FirstLine: Sendable {
    private let state = Mutex<(data: Data, ended: Bool)>((Data(), false))
    private let ready = DispatchSemaphore(value: 0)

    func append(_ chunk: Data) {
        let done: Bool = state.withLock { s in
            guard !s.ended else { return false }
            if chunk.isEmpty || chunk.contains(UInt8(ascii: "\n")) { s.ended = true }  // end of file, or a whole line
            s.data.append(chunk)
            return s.ended
        }
        if done { ready.signal() }
    }

    /// The line once it has come, nil when the output ended without one or `seconds` passed.
    func wait(seconds: Double) -> String? {
        _ = ready.wait(timeout: .now() + seconds)
        return state.withLock { s in
            guard let end = s.data.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            return String(decoding: s.data[..<end], as: UTF8.self)
        }
    }
}
