// Keeps the module DAG honest: the module table of docs/architecture.md is the rule. Every
// `import` in Sources/<target> must be in its row, Package.swift must declare exactly those
// dependencies, and C modules are imported by exactly one Swift target each, with
// `internal import` so no C type leaks into an API.
import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The rows of the module table in docs/architecture.md: each module with what it may import,
/// nil for a system library (a C module map).
private let moduleTable: [(module: String, imports: Set<String>?)] = {
    guard let text = try? String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
    else { return [] }
    let unquote = CharacterSet(charactersIn: "`").union(.whitespaces)
    var rows: [(String, Set<String>?)] = []
    var inTable = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("| Layer | Module |") {
            inTable = true
            continue
        }
        guard inTable, !line.hasPrefix("| ---") else { continue }
        guard line.hasPrefix("|") else { break }
        // "", layer, module, job, may import, ""
        let cells = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard cells.count >= 6 else { continue }
        let module = cells[2].trimmingCharacters(in: unquote)
        let mayImport = cells[cells.count - 2]
        if mayImport.contains("system library") {
            rows.append((module, nil))
        } else {
            rows.append(
                (
                    module,
                    Set(
                        mayImport.split(separator: ",").map { $0.trimmingCharacters(in: unquote) }.filter {
                            !$0.isEmpty
                        })
                ))
        }
    }
    return rows
}()

/// Modules each Swift target may import (besides the Swift toolchain's own: Foundation, Glibc, …).
private let allowed: [String: Set<String>] = Dictionary(
    moduleTable.compactMap { row in row.imports.map { (row.module, $0) } }, uniquingKeysWith: { a, _ in a })

/// The C modules (system libraries) of the table.
private let systemLibraries = Set(moduleTable.filter { $0.imports == nil }.map(\.module))

/// Package.swift's targets other than tests: each with the modules it depends on (a product by
/// its product name, which is its module name here), nil for a system library.
private func manifestTargets() throws -> [String: Set<String>?] {
    let text = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
    let ns = text as NSString
    let start = try NSRegularExpression(
        pattern: #"\.(target|executableTarget|systemLibrary|testTarget)\(\s*name:\s*"([^"]+)""#)
    let matches = start.matches(in: text, range: NSRange(location: 0, length: ns.length))
    var out: [String: Set<String>?] = [:]
    for (i, m) in matches.enumerated() {
        let kind = ns.substring(with: m.range(at: 1))
        let name = ns.substring(with: m.range(at: 2))
        guard kind != "testTarget" else { continue }
        guard kind != "systemLibrary" else {
            out[name] = .some(nil)
            continue
        }
        let end = i + 1 < matches.count ? matches[i + 1].range.location : ns.length
        let segment = ns.substring(with: NSRange(location: m.range.location, length: end - m.range.location))
        var deps = Set<String>()
        if let open = segment.range(of: "dependencies: [") {
            var depth = 1
            var close = open.upperBound
            while close < segment.endIndex, depth > 0 {
                if segment[close] == "[" { depth += 1 } else if segment[close] == "]" { depth -= 1 }
                close = segment.index(after: close)
            }
            let list = segment[open.upperBound..<close].replacingOccurrences(
                of: #"package:\s*"[^"]*""#, with: "", options: .regularExpression)
            let quoted = try NSRegularExpression(pattern: #""([^"]+)""#)
            for q in quoted.matches(in: list, range: NSRange(location: 0, length: (list as NSString).length)) {
                deps.insert((list as NSString).substring(with: q.range(at: 1)))
            }
        }
        out[name] = deps
    }
    return out
}

/// Modules that ship with the toolchain and may be imported anywhere.
private let toolchain: Set<String> = [
    "Foundation", "FoundationEssentials", "Glibc", "Darwin", "Dispatch", "Synchronization",
]

/// (module, is `internal import`) for each import line of the Swift files under `dir`.
private func imports(in dir: URL) -> [(file: String, module: String, isInternal: Bool)] {
    guard let files = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil) else { return [] }
    var out: [(String, String, Bool)] = []
    for case let url as URL in files where url.pathExtension == "swift" {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            guard let i = words.firstIndex(of: "import"), i + 1 < words.count else { continue }
            let prefix = words[..<i]
            guard
                prefix.allSatisfy({
                    ["@_exported", "internal", "public", "private", "fileprivate", "@testable", "@preconcurrency"]
                        .contains($0)
                })
            else { continue }
            out.append((url.lastPathComponent, words[i + 1], prefix.contains("internal")))
        }
    }
    return out
}

@Suite("Module layering (docs/architecture.md)")
struct LayeringTests {
    @Test func moduleTable_isReadFromTheDocs() {
        #expect(
            allowed.count >= 10,
            "docs/architecture.md: the module table was not found or is short: \(allowed.keys.sorted())")
        #expect(!systemLibraries.isEmpty, "docs/architecture.md: no system library rows")
        #expect(Set(moduleTable.map(\.module)).count == moduleTable.count, "a module has two rows")
    }

    @Test(arguments: allowed.keys.sorted())
    func target_importsOnlyDownward(_ target: String) {
        let dir =
            target == "kcs-bench"
            ? root.appendingPathComponent("bench/KCSBench")
            : root.appendingPathComponent("Sources/\(target)")
        let found = imports(in: dir)
        // A module may import nothing at all (KCSErrors), so look for its files, not its imports.
        let files =
            FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(!files.isEmpty, "no Swift files found for \(target)")
        for (file, module, _) in found where !toolchain.contains(module) {
            #expect(allowed[target]!.contains(module), "\(target)/\(file) imports \(module), which its layer may not")
        }
    }

    @Test func everySourceTarget_isInTheTable() throws {
        let dirs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
        for d in dirs {
            #expect(
                allowed[d] != nil || systemLibraries.contains(d),
                "Sources/\(d) is not in the module table of docs/architecture.md")
        }
    }

    /// Package.swift declares exactly the dependencies the table allows, target by target.
    @Test func packageManifest_agreesWithTheTable() throws {
        let manifest = try manifestTargets()
        let inTable = Set(moduleTable.map(\.module))
        let onlyManifest = Set(manifest.keys).subtracting(inTable).sorted()
        let onlyTable = inTable.subtracting(manifest.keys).sorted()
        #expect(
            onlyManifest.isEmpty && onlyTable.isEmpty,
            "targets only in Package.swift: \(onlyManifest); only in docs/architecture.md: \(onlyTable)")
        for (module, imports) in moduleTable {
            guard let declared = manifest[module] else { continue }
            let got = declared.map { $0.sorted() } ?? []
            let want = imports.map { $0.sorted() } ?? []
            #expect(declared == imports, "\(module): Package.swift has \(got), docs/architecture.md has \(want)")
        }
    }

    @Test func cModules_areImportedInternallyByOneTarget() throws {
        var importers: [String: Set<String>] = [:]
        for target in allowed.keys {
            let dir =
                target == "kcs-bench"
                ? root.appendingPathComponent("bench/KCSBench")
                : root.appendingPathComponent("Sources/\(target)")
            for (file, module, isInternal) in imports(in: dir) where systemLibraries.contains(module) {
                importers[module, default: []].insert(target)
                #expect(isInternal, "\(target)/\(file) must use `internal import \(module)`")
            }
        }
        for (module, targets) in importers {
            #expect(targets.count == 1, "\(module) is imported by \(targets.sorted()), expected one wrapper target")
        }
    }
}
