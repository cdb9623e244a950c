import Foundation

/// The independent Bitcoin code of tools/btc-oracle (bdkpython finalizes, py-bitcoinkernel —
/// Bitcoin Core's script interpreter — verifies, hwi converts v2 to v0, embit computes
/// sighashes and signs), in the virtual environment `make test` creates (.build/btc-venv).
public enum BitcoinOracle {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A made-up funding transaction of "abandon … about": output 0 pays 100,000 sat to its first
    /// BIP-84 testnet key (m/84'/1'/0'/0/0), output 1 50,000 sat to its first BIP-86 one
    /// (m/86'/1'/0'/0/0), as examples/bitcoin_psbt.kcs uses it.
    public static let fundingTransaction = "02000000014b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b0000000000fdffffff02a086010000000000160014d0c4a3ef09e997b6e99e397e518fe3e41a118ca150c30000000000002251203b82b2b2a9185315da6f80da5f06d0440d8a5e1457fa93387c2d919c86ec878600000000"

    public static var python: String { TestPaths.root.appendingPathComponent(".build/btc-venv/bin/python").path }

    /// Runs `oracle.py COMMAND` with `request` as JSON on its standard input; its JSON answer.
    public static func run(_ command: String, _ request: [String: Any]) throws -> [String: Any] {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(description: "no Bitcoin oracle at \(python): run `make test` (it creates .build/btc-venv)")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [TestPaths.root.appendingPathComponent("tools/btc-oracle/oracle.py").path, command]
        let input = Pipe(), out = Pipe(), err = Pipe()
        p.standardInput = input
        p.standardOutput = out
        p.standardError = err
        try p.runWithSignalsUnblocked()
        // The oracle reads all of its input before it writes: write, close, then read.
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0, let answer = try JSONSerialization.jsonObject(with: o) as? [String: Any] else {
            throw Failure(
                description: "oracle.py \(command): " + String(decoding: o, as: UTF8.self)
                    + String(decoding: e, as: UTF8.self))
        }
        return answer
    }
}
