// Keeps the builtin tables thin (docs/architecture.md, "How to add a builtin"): each file under
// Sources/KCSBuiltins holds the table of one namespace (commands without a namespace live with
// their family), and a body converts its arguments, calls one typed method and converts the
// result — as a rule no longer than 25 lines. The application logic belongs in WalletSession.
import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Every `Builtin("name", …) { args in … }` of the module: its file, name and body length.
private func builtins() throws -> [(file: String, name: String, bodyLines: Int)] {
    let dir = root.appendingPathComponent("Sources/KCSBuiltins")
    let files = FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
    var out: [(String, String, Int)] = []
    let start = try NSRegularExpression(pattern: #"^( *)Builtin\("([^"]+)""#)
    for file in files.sorted() {
        let lines = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var i = 0
        while i < lines.count {
            let line = lines[i]
            guard let m = start.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                  let indent = Range(m.range(at: 1), in: line), let name = Range(m.range(at: 2), in: line) else {
                i += 1
                continue
            }
            var open = i
            while open < lines.count, !lines[open].contains("args in") { open += 1 }
            var close = open + 1
            let end = String(repeating: " ", count: line[indent].count) + "}"
            while close < lines.count, lines[close] != end, lines[close] != end + "," { close += 1 }
            out.append((file, String(line[name]), close - open - 1))
            i = close + 1
        }
    }
    return out
}

@Suite struct BuiltinTableTests {
    /// Commands without a namespace word, by the file of their family.
    static let families: [String: Set<String>] = [
        "Core.swift": ["len", "type", "str", "int", "hex", "bytes", "sha256", "keccak256", "range", "keys", "values",
                       "contains", "append", "join", "split", "upper", "lower", "reveal"],
        "Input.swift": ["env"],
        "HD.swift": ["derive", "address", "coins"],
        "Sign.swift": ["sign", "history", "verify", "recover"],
        "Wallet.swift": ["accounts"],
        "Registry.swift": ["help"],
        "Rotation.swift": ["keys.rotation"],
    ]

    @Test func eachFile_holdsOneNamespace() throws {
        let all = try builtins()
        #expect(all.count > 100)
        for (file, entries) in Dictionary(grouping: all, by: \.file) {
            let family = Self.families[(file as NSString).lastPathComponent] ?? []
            let spaces = Set(entries.map(\.name).filter { !family.contains($0) }.compactMap { $0.split(separator: ".").first.map(String.init) })
            let expected = file.hasPrefix("Card/") ? ["card"] : spaces
            #expect(spaces.count <= 1 && spaces == Set(expected), "\(file) holds \(spaces.sorted())")
        }
        let names = all.map(\.name)
        #expect(Set(names).count == names.count)
    }

    @Test func bodies_areThin() throws {
        let long = try builtins().filter { $0.bodyLines > 25 }.map { "\($0.name) (\($0.file), \($0.bodyLines) lines)" }
        #expect(long.isEmpty, "bodies over 25 lines — move the logic into a WalletSession method: \(long)")
    }
}
