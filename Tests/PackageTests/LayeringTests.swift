// Keeps the module DAG of ../shared/STYLE.md §1 honest: every `import` in Sources/<target>
// must be allowed for that target's layer (imports only go down), and C modules are imported
// by exactly one Swift target each, with `internal import` so no C type leaks into an API.
import Foundation
import Testing

/// Modules each target may import (besides the Swift toolchain's own: Foundation, Glibc, …).
private let allowed: [String: Set<String>] = [
    "WalletCrypto": ["CSecp256k1", "CSodium", "Crypto", "_CryptoExtras"],
    "WalletCore": ["WalletCrypto"],
    "CardProtocol": ["WalletCore", "WalletCrypto"],
    "CardSimulator": ["CardProtocol", "WalletCore", "WalletCrypto"],
    "CardPCSC": ["CardProtocol", "CPCSC"],
    "WalletStore": ["WalletCore", "WalletCrypto", "CardProtocol", "GRDB"],
    "EthRPC": ["WalletCore", "WalletCrypto", "CCurl"],
    "KCSSyntax": [],
    "KCSRuntime": ["KCSSyntax", "BigInt"],
    "KCSBuiltins": ["KCSRuntime", "KCSSyntax", "WalletCore", "WalletCrypto", "WalletStore", "EthRPC", "CardProtocol",
                    "CardSimulator", "CardPCSC", "BigInt"],
    "KCSConsole": ["KCSBuiltins", "KCSRuntime", "KCSSyntax", "CEditLine"],
    // The executable: the console, plus what `kcs sim attach` needs.
    "kcs": ["KCSConsole", "WalletCrypto", "CardProtocol", "CardSimulator", "CardPCSC", "ArgumentParser"],
    "KCSTestSupport": ["WalletCrypto", "CardProtocol", "CardSimulator"],
    "kcs-bench": ["WalletCore", "WalletCrypto", "WalletStore", "EthRPC", "CardProtocol", "CardSimulator", "CardPCSC", "KCSRuntime",
                  "KCSSyntax", "KCSBuiltins", "GRDB"],
]

/// Modules that ship with the toolchain and may be imported anywhere.
private let toolchain: Set<String> = ["Foundation", "FoundationEssentials", "Glibc", "Darwin", "Dispatch", "Synchronization"]

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

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
            guard prefix.allSatisfy({ ["@_exported", "internal", "public", "private", "fileprivate", "@testable", "@preconcurrency"].contains($0) })
            else { continue }
            out.append((url.lastPathComponent, words[i + 1], prefix.contains("internal")))
        }
    }
    return out
}

@Suite("Module layering (STYLE §1)")
struct LayeringTests {
    @Test(arguments: allowed.keys.sorted())
    func target_importsOnlyDownward(_ target: String) {
        let dir = target == "kcs-bench" ? root.appendingPathComponent("bench/KCSBench")
                                         : root.appendingPathComponent("Sources/\(target)")
        let found = imports(in: dir)
        #expect(!found.isEmpty, "no Swift files found for \(target)")
        for (file, module, _) in found where !toolchain.contains(module) {
            #expect(allowed[target]!.contains(module), "\(target)/\(file) imports \(module), which its layer may not")
        }
    }

    @Test func everySourceTarget_isInTheTable() throws {
        let dirs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
        for d in dirs where !d.hasPrefix("C") {
            #expect(allowed[d] != nil, "Sources/\(d) is not in the layering table of LayeringTests")
        }
    }

    @Test func cModules_areImportedInternallyByOneTarget() throws {
        var importers: [String: Set<String>] = [:]
        for target in allowed.keys {
            let dir = target == "kcs-bench" ? root.appendingPathComponent("bench/KCSBench")
                                             : root.appendingPathComponent("Sources/\(target)")
            for (file, module, isInternal) in imports(in: dir) where module.hasPrefix("C") && !module.hasPrefix("Card") && module != "Crypto" {
                importers[module, default: []].insert(target)
                #expect(isInternal, "\(target)/\(file) must use `internal import \(module)`")
            }
        }
        for (module, targets) in importers {
            #expect(targets.count == 1, "\(module) is imported by \(targets.sorted()), expected one wrapper target")
        }
    }
}
