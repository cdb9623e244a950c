// The card trace judged by an independent client (docs/card-explained.md, "The card's side"):
// keycard-py runs its full 3.1 and 4.0 sessions (tools/keycard-py/check.py, check4.py) through
// libpcsclite → pcscd → vpcd → `kcs sim attach --trace explain --json`, with its two secure
// channels logging each command before they encrypt it (tools/keycard-py/traced.py). The
// commands the trace decoded inside the secured APDUs must be exactly keycard-py's own log, in
// order — header for header and byte for byte, a PIN or PUK compared by length only (the trace never
// holds one) — and every one of them explained with nothing unknown.
import CardProtocol
import CardSimulator
import Foundation
import KCSTestSupport
import Testing
import WalletCrypto

extension RealPCSCD {
    @Suite("The card trace against keycard-py's own log")
    struct TraceAgainstClientTests {
        struct Sent: Equatable, CustomStringConvertible {
            let header: [UInt8]
            let data: [UInt8]?
            let count: Int
            var description: String { Hex.encode(header) + " " + (data.map(Hex.encode) ?? "<\(count) B>") }
        }

        @Test(arguments: [("3.1.0", "check.py"), ("4.0", "check4.py")])
        func secureChannelCommands_areWhatKeycardPySent(profile: String, script: String) throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "kcs-trace-py-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let trace = folder.appendingPathComponent("trace.jsonl"), log = folder.appendingPathComponent("sent.jsonl")
            let extra = profile == "4.0" ? [Hex.encode(IdentityCertificate.simulatorCA.publicKey.compressed)] : []
            _ = try withAttachedSimulator(
                card: "trace-\(profile)", profile: profile, arguments: ["--trace", "explain", "--json"],
                standardError: trace
            ) { _, reader, _ in
                try IndependentClientTests.runClient(
                    reader: reader, script: "traced.py", arguments: [log.path, script] + extra)
            }
            let sent = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { line in
                let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let data = try [UInt8](hex: o["data"] as? String ?? "")
                let header = [0x80, o["ins"] as? Int ?? -1, o["p1"] as? Int ?? -1, o["p2"] as? Int ?? -1].map {
                    UInt8(truncatingIfNeeded: $0)
                }
                return Sent(header: header, data: data, count: data.count)
            }
            let records = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
                .filter { $0.hasPrefix("{") }
                .map { try JSONDecoder().decode(TraceExchange.self, from: Data($0.utf8)) }
            let secured = records.filter { $0.channel != "plain" }
            let decoded = secured.map {
                Sent(header: $0.command.header, data: $0.command.data, count: $0.command.count)
            }
            #expect(sent.count > 20, "keycard-py sent \(sent.count) secured commands")
            #expect(decoded.count == sent.count, "trace \(decoded.count), keycard-py \(sent.count)")
            for (i, (d, s)) in zip(decoded, sent).enumerated() {
                #expect(d.header == s.header, "command \(i + 1): trace \(d), keycard-py \(s)")
                if let data = d.data {
                    #expect(data == s.data, "command \(i + 1): trace \(d), keycard-py \(s)")
                } else {
                    // Masked in the trace (a PIN, a PUK, a key loaded): only its length is kept.
                    #expect(d.count == s.count, "command \(i + 1): trace \(d), keycard-py \(s)")
                }
            }
            // Every exchange of the session explained, nothing unknown; a PIN never in the trace.
            for record in records {
                let unknown = record.explained.filter { $0.text.contains(KeycardExplainer.unknown) }
                #expect(unknown.isEmpty, "exchange \(record.number): \(unknown)")
            }
            let text = try String(contentsOf: trace, encoding: .utf8)
            #expect(
                !text.contains(Hex.encode(Array("123456".utf8)))
                    && !text.contains(Hex.encode(Array("987654321098".utf8))))
        }
    }
}
