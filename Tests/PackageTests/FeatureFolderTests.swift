// Holds docs/architecture.md's "`WalletSession` by feature" table to the source: each folder of
// Sources/WalletSession, and the public methods `Session` has in it, are the ones the table
// names. A method added and not listed, listed and gone, or moved to another folder fails here.
import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The table: folder ("" for the top) → the method names in its last column.
private func documentedSurface() throws -> [String: Set<String>] {
    let text = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
    var out: [String: Set<String>] = [:]
    var inTable = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("| Folder | What it holds |") {
            inTable = true
            continue
        }
        guard inTable, !line.hasPrefix("| ---") else { continue }
        guard line.hasPrefix("|") else { if inTable { break } else { continue } }
        let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard cells.count >= 5 else { continue }
        let folder = cells[1] == "(top)" ? "" : cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`/"))
        out[folder] = Set(
            cells[3].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "` ")) }
                .filter { !$0.isEmpty })
    }
    return out
}

/// The public methods of `Session` (in `extension Session` and the class itself) in each folder's files.
private func sourceSurface() throws -> [String: Set<String>] {
    let base = root.appendingPathComponent("Sources/WalletSession")
    let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)!
        .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    let opening = try NSRegularExpression(
        pattern: #"^(?:extension Session\b[^{\n]*|public final class Session\b[^{\n]*)\{"#,
        options: .anchorsMatchLines)
    let method = try NSRegularExpression(
        pattern: #"^    public (?:static )?func ([A-Za-z0-9_]+)"#, options: .anchorsMatchLines)
    var out: [String: Set<String>] = [:]
    for file in files {
        let folder = file.deletingLastPathComponent().path.dropFirst(base.path.count).trimmingCharacters(
            in: CharacterSet(charactersIn: "/"))
        let text = try String(contentsOf: file, encoding: .utf8)
        let chars = Array(text.utf16)
        let ns = text as NSString
        for m in opening.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            // The block's end: the brace that closes the one the match ends with.
            var depth = 1, i = m.range.location + m.range.length
            while depth > 0, i < chars.count {
                if chars[i] == UInt16(UInt8(ascii: "{")) {
                    depth += 1
                } else if chars[i] == UInt16(UInt8(ascii: "}")) {
                    depth -= 1
                }
                i += 1
            }
            let body = NSRange(location: m.range.location, length: i - m.range.location)
            for f in method.matches(in: text, range: body) {
                out[folder, default: []].insert(ns.substring(with: f.range(at: 1)))
            }
        }
    }
    return out
}

@Suite("WalletSession by feature")
struct FeatureFolderTests {
    @Test func theTableNamesEveryPublicSessionMethod_inItsFolder() throws {
        let documented = try documentedSurface()
        let source = try sourceSurface()
        #expect(documented.count >= 8, "the table has a row per folder")
        #expect(
            Set(documented.keys) == Set(source.keys),
            "folders: documented \(documented.keys.sorted()), in the source \(source.keys.sorted())")
        for (folder, names) in source {
            let listed = documented[folder] ?? []
            #expect(
                names.subtracting(listed).isEmpty,
                "\(folder.isEmpty ? "(top)" : folder): not in the table: \(names.subtracting(listed).sorted())")
            #expect(
                listed.subtracting(names).isEmpty,
                "\(folder.isEmpty ? "(top)" : folder): in the table, not in the folder: \(listed.subtracting(names).sorted())"
            )
        }
    }
}
