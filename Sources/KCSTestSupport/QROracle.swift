import Foundation

/// The independent QR/UR code of tools/qr-oracle (segno, zxing-cpp, cbor2, urtypes), in the
/// virtual environment `make test` creates (.build/qr-venv).
public enum QROracle {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static var python: String { TestPaths.root.appendingPathComponent(".build/qr-venv/bin/python").path }

    /// Runs `tools/qr-oracle/NAME` with `arguments`; its standard output, or a failure with its
    /// standard error.
    public static func run(
        _ arguments: [String], script: String = "oracle.py", python: String = QROracle.python
    ) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(description: "no QR oracle at \(python): run `make test` (it creates .build/qr-venv)")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [TestPaths.root.appendingPathComponent("tools/qr-oracle/\(script)").path] + arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.runWithSignalsUnblocked()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Failure(
                description: "\(script) \(arguments.joined(separator: " ")): " + String(decoding: e, as: UTF8.self))
        }
        return String(decoding: o, as: UTF8.self)
    }

    /// A fresh temporary file path ending in `suffix`.
    public static func temporaryFile(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("kcs-qr-\(UUID().uuidString)\(suffix)").path
    }
}
