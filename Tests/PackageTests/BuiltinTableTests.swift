// Keeps the builtin tables thin (docs/architecture.md, "How to add a builtin"): each file under
// Sources/KCSBuiltins holds the table of one namespace (commands without a namespace live with
// their family), and a body converts its arguments, calls one typed method and converts the
// result — as a rule no longer than 25 lines. The application logic belongs in WalletSession.
import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Every `Builtin("name", …) { args in … }` of the module: its file, name, body length and the
/// calls its body makes into the service layer.
private func builtins() throws -> [(file: String, name: String, bodyLines: Int, serviceCalls: [String])] {
    let dir = root.appendingPathComponent("Sources/KCSBuiltins")
    let files =
        FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        ?? []
    var out: [(String, String, Int, [String])] = []
    // `Builtin("name", …` on one line, or `Builtin(` with the name first on the next (swift-format's wrapping).
    let start = try NSRegularExpression(pattern: #"^( *)Builtin\((?:"([^"]+)"|$)"#)
    let nameLine = try NSRegularExpression(pattern: #"^ *"([^"]+)""#)
    for file in files.sorted() {
        let lines = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var i = 0
        while i < lines.count {
            let line = lines[i]
            guard let m = start.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                let indent = Range(m.range(at: 1), in: line)
            else {
                i += 1
                continue
            }
            let name: String
            if let r = Range(m.range(at: 2), in: line) {
                name = String(line[r])
            } else if i + 1 < lines.count,
                let n = nameLine.firstMatch(
                    in: lines[i + 1], range: NSRange(lines[i + 1].startIndex..., in: lines[i + 1])),
                let r = Range(n.range(at: 1), in: lines[i + 1])
            {
                name = String(lines[i + 1][r])
            } else {
                i += 1
                continue
            }
            var open = i
            while open < lines.count, !lines[open].contains("args in") { open += 1 }
            var close = open + 1
            let end = String(repeating: " ", count: line[indent].count) + "}"
            while close < lines.count, lines[close] != end, lines[close] != end + "," { close += 1 }
            let body = lines[(open + 1)..<min(close, lines.count)].joined(separator: "\n")
            out.append((file, name, close - open - 1, serviceCalls(in: body)))
            i = close + 1
        }
    }
    return out
}

/// The methods a body calls on the session, the card link, its command set or the store
/// (`session.login(…)`, `card.commands.getStatus()`, `store.key(named:)`), in order; finding the
/// session, the card or the store is not counted.
private func serviceCalls(in body: String) -> [String] {
    let call = try! NSRegularExpression(
        pattern: #"\b(?:session|card|store|args\.session\(\))\s*\.\s*(?:commands\s*\.\s*)?([a-z][A-Za-z0-9]*)\s*\("#)
    let finding: Set<String> = [
        "session", "requireCard", "requireLoggedIn", "requireChannel", "store", "unlockedStore", "existingStore",
    ]
    let ns = body as NSString
    return call.matches(in: body, range: NSRange(location: 0, length: ns.length))
        .map { ns.substring(with: $0.range(at: 1)) }.filter { !finding.contains($0) }
}

@Suite struct BuiltinTableTests {
    /// Commands without a namespace word, by the file of their family.
    static let families: [String: Set<String>] = [
        "Core.swift": [
            "len", "type", "str", "int", "hex", "bytes", "sha256", "keccak256", "range", "keys", "values",
            "contains", "append", "join", "split", "upper", "lower", "reveal",
        ],
        "Input.swift": ["env"],
        "HD.swift": ["derive", "address", "coins"],
        "Sign.swift": ["sign", "history", "verify", "recover"],
        "Safe.swift": ["sign.safe"],
        "Wallet.swift": ["accounts"],
        "Registry.swift": ["help"],
        "Rotation.swift": ["keys.rotation"],
    ]

    @Test func eachFile_holdsOneNamespace() throws {
        let all = try builtins()
        #expect(all.count > 100)
        for (file, entries) in Dictionary(grouping: all, by: \.file) {
            let family = Self.families[(file as NSString).lastPathComponent] ?? []
            let spaces = Set(
                entries.map(\.name).filter { !family.contains($0) }.compactMap {
                    $0.split(separator: ".").first.map(String.init)
                })
            let expected = file.hasPrefix("Card/") ? ["card"] : spaces
            #expect(spaces.count <= 1 && spaces == Set(expected), "\(file) holds \(spaces.sorted())")
        }
        let names = all.map(\.name)
        #expect(Set(names).count == names.count)
    }

    /// A body converts, calls the session and converts back: one call, or a few alternatives
    /// (`--clear` or a path). More is orchestration, which is the session's (docs/architecture.md,
    /// "How to add a builtin").
    @Test func bodies_callTheServiceLayerAtMostThreeTimes() throws {
        let all = try builtins()
        let busy = all.filter { $0.serviceCalls.count > 3 }.map {
            "\($0.name) (\($0.file)): \($0.serviceCalls.joined(separator: ", "))"
        }
        #expect(busy.isEmpty, "bodies orchestrating the service layer — move it into a WalletSession method: \(busy)")
        #expect(all.filter { $0.serviceCalls.count == 1 }.count > 40, "the counter finds the service calls")
    }

    @Test func bodies_areThin() throws {
        let long = try builtins().filter { $0.bodyLines > 25 }.map { "\($0.name) (\($0.file), \($0.bodyLines) lines)" }
        #expect(long.isEmpty, "bodies over 25 lines — move the logic into a WalletSession method: \(long)")
    }
}
