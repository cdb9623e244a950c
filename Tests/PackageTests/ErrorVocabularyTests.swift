// A wallet error reaches a script with its own id only if it is an `IdentifiableError`
// (docs/architecture.md, "Errors"); anything else that a builtin lets through becomes
// `runtime.builtinFailed` and exits 70 whatever it meant. Every `WalletError` is one by
// construction, so this reads the sources of the modules under the builtins and fails on an
// error type declared there that conforms to plain `Error` instead.
import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The modules whose errors builtins may throw.
private let modules = [
    "WalletCrypto", "WalletCore", "CardProtocol", "CardSimulator", "CardPCSC", "WalletStore", "EthRPC", "WalletSession",
    "KCSBuiltins",
]

/// Plain `Error` types that never leave their module, each with where it is caught.
private let internalErrors: Set<String> = [
    "CardSimulator/ChannelCrypto.swift: Failure",  // the applet's own, answered with a status word
    "CardSimulator/StatusWord.swift: CardStatus",  // the applet's own, answered with a status word
    "WalletCore/Encoding/JSONText.swift: ParseError",  // wrapped by KeystoreError and EthereumError
]

@Suite("Error vocabularies")
struct ErrorVocabularyTests {
    @Test func everyErrorTypeUnderTheBuiltins_isAWalletError() throws {
        // `enum X: A, Error, B {` or `extension X: Error` — `Error` as a word of the inheritance list.
        let declaration = try NSRegularExpression(
            pattern:
                #"^\s*(?:(?:public|internal|private|fileprivate|package|indirect|final)\s+)*(?:enum|struct|class|actor|extension)\s+([A-Za-z_][A-Za-z0-9_.]*)\s*:([^{]*)\{"#,
            options: .anchorsMatchLines)
        var found: Set<String> = []
        for module in modules {
            let dir = root.appendingPathComponent("Sources/\(module)")
            let files =
                FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            #expect(!files.isEmpty, "no sources in \(module)")
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                let ns = text as NSString
                for m in declaration.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
                    let inherits = ns.substring(with: m.range(at: 2)).split(separator: ",")
                        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                    guard inherits.contains(where: { $0 == "Error" || $0 == "Swift.Error" }) else { continue }
                    let relative = file.path.replacingOccurrences(of: root.path + "/Sources/", with: "")
                    found.insert("\(relative): \(ns.substring(with: m.range(at: 1)))")
                }
            }
        }
        let unexpected = found.subtracting(internalErrors)
        #expect(
            unexpected.isEmpty,
            """
            error types that would reach scripts as runtime.builtinFailed: \(unexpected.sorted()); \
            conform them to WalletError (an id, a sentence, an exit class)
            """)
        #expect(
            internalErrors.subtracting(found).isEmpty, "stale entries: \(internalErrors.subtracting(found).sorted())")
    }
}
