import Foundation

/// The local EVM for tests (issue 7 §4): `tools/evm-node/evm_node.py`, eth-tester over py-evm,
/// run by the Python of the virtual environment `make test` creates (`.build/evm-venv`, or
/// `KCS_EVM_PYTHON`). Started as a child process and stopped by its PID.
public final class EVMNode: @unchecked Sendable {
    /// `http://127.0.0.1:PORT`.
    public let url: String
    public let pid: Int32
    private let process: Process

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

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
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.runWithSignalsUnblocked()
        process = p
        pid = p.processIdentifier
        // The first line says where it listens.
        let deadline = Date().addingTimeInterval(timeout)
        var line = Data()
        let handle = out.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            guard Date() < deadline, p.isRunning else {
                if p.isRunning { kill(p.processIdentifier, SIGKILL) }
                p.waitUntilExit()
                throw EVMNodeError.didNotStart(seconds: timeout)
            }
            let chunk = handle.availableData
            if chunk.isEmpty { usleep(20_000) } else { line.append(chunk) }
        }
        let text = String(decoding: line, as: UTF8.self).split(separator: "\n")[0]
        guard text.hasPrefix("listening ") else { throw EVMNodeError.didNotStart(seconds: timeout) }
        url = String(text.dropFirst("listening ".count))
    }

    /// Stops the node (SIGTERM, then SIGKILL) and waits for it.
    public func stop() { terminate(process) }

    deinit { stop() }
}

public enum EVMNodeError: Error, CustomStringConvertible {
    case noPython(String)
    case didNotStart(seconds: Double)

    public var description: String {
        switch self {
        case .noPython(let path):
            "no Python with eth-tester at \(path): run `make test` (it creates .build/evm-venv), or set KCS_EVM_PYTHON"
        case .didNotStart(let s):
            "tools/evm-node/evm_node.py did not say where it listens within \(Int(s)) s"
        }
    }
}
