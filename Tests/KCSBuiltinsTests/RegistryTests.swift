import Foundation
import KCSErrors
import KCSRuntime
import KCSSyntax
import Testing

@testable import KCSBuiltins

/// Calls builtins the way the interpreter will: look the name up in the registry, bind the
/// arguments against the table entry, run the body.
enum Call {
    static let registry = BuiltinRegistry(Builtins.all)

    static func run(_ name: String, _ args: [Value] = [], _ options: [(String, Value?)] = []) throws -> Value {
        guard let builtin = registry.lookup(name) else { throw Missing(name: name) }
        return try builtin.body(builtin.bind(args, options: options))
    }

    /// The message of the error `name` throws as the interpreter renders it (the user's
    /// message, after the command's name where the error follows it), or nil.
    static func message(_ name: String, _ args: [Value] = [], _ options: [(String, Value?)] = []) -> String? {
        do {
            _ = try run(name, args, options)
            return nil
        } catch let error as any IdentifiableError {
            return error.rendered(by: name)
        } catch {
            return String(describing: error)
        }
    }

    struct Missing: Error { let name: String }
}

@Suite struct RegistryTests {
    @Test func all_buildsARegistryWithUniqueNamesSummariesAndExamples() {
        let registry = Builtins.registry()
        let names = registry.builtins.map(\.name)
        #expect(Set(names).count == names.count)
        for b in registry.builtins {
            #expect(!b.summary.isEmpty && !b.example.isEmpty, "\(b.name)")
            #expect(!b.summary.contains("\n"), "\(b.name): the summary is one line")
            #expect(Set(b.params.map(\.name)).count == b.params.count, "\(b.name): parameter names differ")
            #expect(Set(b.options.map(\.name)).count == b.options.count, "\(b.name): option names differ")
        }
    }

    /// The example `help` shows for a builtin parses and fits the builtin's table entry: no
    /// more positional arguments than parameters, every required one given, only declared
    /// options, flags without a value and valued options with one. (`eth.send`'s example once
    /// wrote `(sign tx {…}).raw`, which is two arguments.)
    @Test func everyExample_parsesAndFitsItsBuiltin() {
        let registry = Builtins.registry()
        let table = CommandTable(commands: registry.builtins.map(\.name))
        for b in registry.builtins {
            let (program, diagnostics) = Parser.parse(source: Source(name: b.name, text: b.example), commands: table)
            #expect(diagnostics.isEmpty, "\(b.name): \(b.example) — \(diagnostics)")
            let uses =
                program.commands.filter { $0.name == b.name }.map { ($0.arguments.count, $0.options) }
                + program.namedCalls.filter { $0.name == b.name }.map { ($0.arguments.count, [CommandOption]()) }
            #expect(!uses.isEmpty, "\(b.name): its example does not use it: \(b.example)")
            for (count, options) in uses {
                #expect(
                    count <= b.params.count,
                    "\(b.name): \(count) arguments for \(b.params.count) parameters: \(b.example)")
                for p in b.params.dropFirst(count) {
                    #expect(p.defaultValue != nil || p.isSecret, "\(b.name): \(p.name) is required: \(b.example)")
                }
                for o in options {
                    let spec = b.options.first { $0.name == o.name }
                    #expect(spec != nil, "\(b.name): no option --\(o.name): \(b.example)")
                    if let spec {
                        #expect(
                            (spec.type == nil) == (o.value == nil), "\(b.name): --\(o.name) flag/value: \(b.example)")
                    }
                }
            }
        }
    }

    @Test func tables_holdTheIssue3Commands() {
        let names = Set(Builtins.all.map(\.name))
        let expected: Set<String> = [
            "len", "type", "str", "int", "hex", "bytes", "sha256", "keccak256", "range", "keys", "values", "contains",
            "join", "split", "upper", "lower", "append", "reveal", "env", "file.read",
            "mnemonic.generate", "mnemonic.check", "mnemonic.seed", "hd.master", "derive", "address",
            "xkey.encode", "xkey.decode", "path.parse", "coins", "help",
        ]
        #expect(expected.isSubset(of: names))
        #expect(Array(Builtins.registry().namespaces.prefix(5)) == ["file", "mnemonic", "hd", "xkey", "path"])
    }

    /// Every builtin is run by at least one golden transcript (examples/, the stdlib
    /// transcripts) or inline-expectation case, so none is shipped untested end to end.
    @Test func everyBuiltin_appearsInATranscriptOrCase() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var text = ""
        for dir in ["examples", "Tests/TranscriptTests", "Tests/KCSRuntimeTests/Cases"] {
            let base = root.appendingPathComponent(dir)
            let files =
                FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "kcs" } ?? []
            for f in files { text += try String(contentsOf: f, encoding: .utf8) + "\n" }
        }
        for b in Builtins.all {
            // `import.mnemonic` may be written `import mnemonic` (namespace word and verb).
            let name = NSRegularExpression.escapedPattern(for: b.name).replacingOccurrences(of: "\\.", with: "[. ]")
            let used =
                text.range(of: "(^|[^A-Za-z0-9_.])" + name + "([^A-Za-z0-9_]|$)", options: .regularExpression) != nil
            #expect(used, "\(b.name) is in no transcript or case")
        }
    }

    @Test func secretParameters_areDeclaredInTheTable() {
        let registry = Builtins.registry()
        #expect(registry.lookup("mnemonic.check")?.secretPositions == [0])
        #expect(registry.lookup("mnemonic.seed")?.secretPositions == [0])
        #expect(registry.lookup("hd.master")?.secretPositions == [0])
        #expect(registry.lookup("xkey.decode")?.secretPositions == [0])
        #expect(registry.lookup("mnemonic.seed")?.options.first { $0.name == "passphrase" }?.isSecret == true)
    }

    @Test func help_showsUsageSummaryAndExample() {
        let help = Builtins.registry().help("derive")
        #expect(
            help == """
                derive PATH [--from FROM] [--trace] [--reveal] [--qr]
                  The HD key at PATH (m/… from a master key, or relative like 0/5) below --from KEY.
                  --from (a hdkey or a secret mnemonic or a secret seed or a secret xprv or a string or bytes)  the key to derive from (a master key for m/… paths), or a mnemonic, seed, xprv or xpub
                  --trace  show each BIP-32 step: HMAC-SHA512 key and data, I_L, I_R, child key, chain code, xprv/xpub
                  --reveal  with --trace, show the private values instead of masking them
                  --qr  show the address as a QR code
                  example: let key = derive "m/44'/60'/0'/0/0" --from $root
                """)
    }

    @Test func wrongType_isTheArgumentErrorText() {
        #expect(
            Call.message("len", [.int(5)])
                == "len: argument 1 (value) must be a string or bytes or a list or a map, got int")
        #expect(
            Call.message("derive", [.int(5)])
                == "derive: argument 1 (path) must be a string or a path, got int")
        #expect(
            Call.message("address", [.string("0x00")])
                == "address: argument 1 (key) must be a hdkey, got string")
        #expect(
            Call.message("mnemonic.generate", [], [("words", .string("12"))])
                == "mnemonic.generate: option --words must be an int, got string")
        #expect(Call.message("upper", []) == "upper: argument 1 (text) is missing; expected a string")
    }
}
