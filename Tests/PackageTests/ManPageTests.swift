// The man page, docs/kcs.1, is written by hand (issue 26 §5), so nothing makes it follow the
// code but this: it reads the sources as text and fails when the page leaves out, or still
// names, an environment variable, an exit status, a subcommand, an option or a document.
import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

private func read(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
}

/// The lines of section `name` of the page (`.Sh NAME` up to the next `.Sh`), empty when missing.
private func section(_ name: String, of page: String) -> [Substring] {
    var out: [Substring] = []
    var inside = false
    for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix(".Sh ") {
            inside = line == ".Sh " + name
            continue
        }
        if inside { out.append(line) }
    }
    return out
}

/// The words of a list item's head (`.It Ev A , B` → A, B; `.It Sy 64` → 64) for items of `macro`.
private func items(_ macro: String, in lines: [Substring]) -> [String] {
    lines.filter { $0.hasPrefix(".It \(macro) ") }.flatMap { line in
        line.dropFirst(".It \(macro) ".count).split(separator: " ").map(String.init).filter { $0 != "," }
    }
}

/// Each match of `pattern` in `text`: its capture groups (nil for a group that took no part).
private func matches(
    _ pattern: String, in text: String, options: NSRegularExpression.Options = []
) throws -> [[String?]] {
    let regex = try NSRegularExpression(pattern: pattern, options: options)
    let ns = text as NSString
    return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
        (1..<m.numberOfRanges).map {
            m.range(at: $0).location == NSNotFound ? nil : ns.substring(with: m.range(at: $0))
        }
    }
}

/// The Swift sources of kcs: every target under Sources/ but KCSTestSupport, the tests' helpers
/// (its variables, KCS_BINARY and KCS_EVM_PYTHON, are read by the tests, never by kcs).
private func kcsSources() throws -> [(path: String, text: String)] {
    let dir = root.appendingPathComponent("Sources")
    let files =
        FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)?
        .compactMap { $0 as? URL }.filter {
            $0.pathExtension == "swift" && !$0.path.contains("/Sources/KCSTestSupport/")
        } ?? []
    return try files.map { ($0.path, try String(contentsOf: $0, encoding: .utf8)) }
}

/// The environment variables kcs reads: every `"KCS_…"` string literal of its sources (each is a
/// variable's name: a lookup, or a constant such as `Session.passphraseFileVariable` that one
/// is made with), and the literal name in any other lookup (`environment["NO_COLOR"]`,
/// `environment.nonEmpty("XDG_DATA_HOME")`, `ProcessEnvironment.current["PATH"]`, `getenv("…")`).
/// Only Swift string literals: no C macro or header guard of the C shims counts.
private func environmentVariablesRead() throws -> [String: String] {
    var found: [String: String] = [:]
    let patterns = [
        #""(KCS_[A-Z0-9_]+)""#,
        #"(?:[Ee]nvironment(?:\.current)?\s*\[|\bnonEmpty\(|\bgetenv\()\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*[\])]"#,
    ]
    for (path, text) in try kcsSources() {
        for pattern in patterns {
            for groups in try matches(pattern, in: text) {
                if let name = groups[0] {
                    found[name] = found[name] ?? path.replacingOccurrences(of: root.path + "/", with: "")
                }
            }
        }
    }
    return found
}

/// Variables kcs does not read itself but that libraries it loads read on its behalf, which the
/// page documents: pcsc-lite's socket, the line editor's locale, libcurl's proxies.
private let readByLibraries: Set<String> = [
    "PCSCLITE_CSOCK_NAME", "LC_ALL", "LC_CTYPE", "LANG", "http_proxy", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
]

/// The exit statuses of `ExitStatus` (Sources/KCSConsole/ScriptRunner.swift), the one table of
/// the numbers a run ends with, by name.
private func exitStatuses() throws -> [String: Int] {
    let text = try read("Sources/KCSConsole/ScriptRunner.swift")
    guard let start = text.range(of: "public enum ExitStatus {") else { return [:] }
    let body = String(text[start.upperBound...].prefix { $0 != "}" })
    var out: [String: Int] = [:]
    for groups in try matches(#"static let (\w+): Int32 = (\d+)"#, in: body) {
        out[groups[0]!] = Int(groups[1]!)
    }
    return out
}

/// swift-argument-parser's own status for an error a command throws that is neither an
/// `ExitCode` nor a `ValidationError` (`ExitCode.failure`, EXIT_FAILURE): `kcs sim` throws one
/// when it cannot make the home's cards folder (`Home.cardsDirectory`).
private let argumentParserFailure = 1

/// The commands of Sources/kcs: each `ParsableCommand` struct's `commandName` and the names of
/// its `subcommands`, as the paths a person types (`console`, `sim attach`, …).
private func subcommandPaths() throws -> [String] {
    var text = ""
    for name in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources/kcs").path)
        .sorted()
    where name.hasSuffix(".swift") {
        text += try read("Sources/kcs/" + name) + "\n"
    }
    let declarations = try NSRegularExpression(pattern: #"struct (\w+): ParsableCommand \{"#)
    let ns = text as NSString
    let found = declarations.matches(in: text, range: NSRange(location: 0, length: ns.length))
    var names: [String: String] = [:]
    var children: [String: [String]] = [:]
    for (i, m) in found.enumerated() {
        let type = ns.substring(with: m.range(at: 1))
        let end = i + 1 < found.count ? found[i + 1].range.location : ns.length
        let segment = ns.substring(with: NSRange(location: m.range.location, length: end - m.range.location))
        names[type] = try matches(#"commandName: "([^"]+)""#, in: segment).first?[0]
        if let list = try matches(#"subcommands: \[([^\]]*)\]"#, in: segment).first?[0] {
            children[type] = list.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ".self", with: "")
            }
        }
    }
    guard let top = names.first(where: { $0.value == "kcs" })?.key else { return [] }
    var paths: [String] = []
    for child in children[top] ?? [] {
        guard let name = names[child] else { continue }
        paths.append(name)
        for grandchild in children[child] ?? [] {
            if let sub = names[grandchild] { paths.append(name + " " + sub) }
        }
    }
    return paths
}

/// The option names Sources/kcs declares (`--json-errors`, `-e`, …), with `--help`, `-h` and
/// `--version`, which the argument parser adds to every command.
private func declaredOptions() throws -> Set<String> {
    var out: Set<String> = ["--help", "-h", "--version"]
    for name in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources/kcs").path)
    where name.hasSuffix(".swift") {
        let text = try read("Sources/kcs/" + name)
        for groups in try matches(
            #"@(?:Option|Flag)\((.*?)\)\s*var\s+(\w+)"#, in: text, options: .dotMatchesLineSeparators)
        {
            let arguments = groups[0]!, variable = groups[1]!
            for long in try matches(#"\.customLong\("([^"]+)"\)"#, in: arguments) { out.insert("--" + long[0]!) }
            for short in try matches(#"\.customShort\("(.)"\)"#, in: arguments) { out.insert("-" + short[0]!) }
            if !arguments.contains("name:") || arguments.contains("name: .long") || arguments.contains(".shortAndLong")
            {
                // The parser's spelling of a property: camelCase → kebab-case.
                out.insert(
                    "--" + variable.reduce(into: "") { s, c in s += c.isUppercase ? "-" + c.lowercased() : String(c) })
            }
        }
    }
    return out
}

@Suite("The man page follows the code")
struct ManPageTests {
    let page: String

    init() throws { page = try read("docs/kcs.1") }

    @Test func header_isTheOneInstallCheckLooksFor() {
        #expect(page.split(separator: "\n").contains(".Dt KCS 1"))
        let name = section("NAME", of: page).joined(separator: " ")
        #expect(name.contains("Keycard console"), "NAME: \(name)")
    }

    @Test func everyEnvironmentVariableRead_isInEnvironment() throws {
        let read = try environmentVariablesRead()
        // The scan must see what kcs is known to read, or it proves nothing.
        for known in [
            "KCS_HOME", "KCS_VAULT_PASSPHRASE", "KCS_VAULT_PASSPHRASE_FILE", "KCS_VAULT_NEW_PASSPHRASE",
            "KCS_VAULT_NEW_PASSPHRASE_FILE", "KCS_CARD", "KCS_READER", "KCS_RPC_URL", "KCS_STDLIB", "NO_COLOR",
            "XDG_DATA_HOME", "HOME",
        ] {
            #expect(read[known] != nil, "the scan of Sources/ did not find \(known)")
        }
        let documented = Set(items("Ev", in: section("ENVIRONMENT", of: page)))
        #expect(documented.count >= 20, "ENVIRONMENT has \(documented.count) .It Ev entries")
        for (name, file) in read.sorted(by: { $0.key < $1.key }) {
            #expect(
                documented.contains(name), "\(file) reads \(name), which ENVIRONMENT of docs/kcs.1 does not describe")
        }
        for name in readByLibraries {
            #expect(documented.contains(name), "ENVIRONMENT of docs/kcs.1 lacks \(name)")
        }
        // And nothing that is no longer read.
        for name in documented.subtracting(read.keys).subtracting(readByLibraries).sorted() {
            Issue.record("ENVIRONMENT of docs/kcs.1 describes \(name), which no source of kcs reads")
        }
    }

    @Test func everyExitStatus_isInExitStatus() throws {
        let statuses = try exitStatuses()
        #expect(statuses.count >= 10, "ExitStatus in ScriptRunner.swift not found or short: \(statuses)")
        #expect(
            statuses["ok"] == 0 && statuses["usage"] == 64 && statuses["runtimeError"] == 70,
            "ExitStatus was not read right: \(statuses)")
        let expected = Set(statuses.values).union([argumentParserFailure])
        let listed = items("Sy", in: section("EXIT STATUS", of: page))
        #expect(listed.count == Set(listed).count, "EXIT STATUS lists a status twice: \(listed)")
        let documented = Set(listed.compactMap { Int($0) })
        for (name, code) in statuses.sorted(by: { $0.value < $1.value }) where !documented.contains(code) {
            Issue.record("ExitStatus.\(name) = \(code) is not an .It Sy \(code) entry of EXIT STATUS in docs/kcs.1")
        }
        #expect(
            documented.contains(argumentParserFailure),
            "EXIT STATUS lacks \(argumentParserFailure) (the argument parser's failure)")
        #expect(
            documented.subtracting(expected).isEmpty,
            "EXIT STATUS lists statuses kcs never returns: \(documented.subtracting(expected).sorted())")
    }

    @Test func everySubcommand_isInSynopsis() throws {
        let paths = try subcommandPaths()
        for known in [
            "console", "run", "check", "parse", "sim", "sim attach", "sim list", "cosigner", "cosigner serve",
            "completions",
        ] {
            #expect(paths.contains(known), "the scan of Sources/kcs did not find \(known): \(paths)")
        }
        let synopsis = section("SYNOPSIS", of: page)
        for path in paths {
            let shown = synopsis.contains { $0 == ".Cm \(path)" || $0.hasPrefix(".Cm \(path) ") }
            #expect(shown, "kcs \(path) is not a .Cm line of SYNOPSIS in docs/kcs.1")
        }
    }

    @Test func everyOption_isDescribed_andNoOther() throws {
        let declared = try declaredOptions()
        for known in [
            "-e", "--json", "--json-errors", "--echo", "--home", "--no-color", "--rpc", "--init", "--init-file",
            "--card", "--profile", "--trace", "--listen", "--socket", "--approve", "--allow-raw-digests",
        ] {
            #expect(declared.contains(known), "the scan of Sources/kcs did not find \(known): \(declared.sorted())")
        }
        let used = Set(try matches(#"\bFl (-?[A-Za-z][A-Za-z-]*)"#, in: page).map { "-" + $0[0]! })
        for option in declared.sorted() where !used.contains(option) {
            Issue.record("docs/kcs.1 never shows the option \(option) (as Fl \(option.dropFirst()))")
        }
        for option in used.subtracting(declared).sorted() {
            Issue.record("docs/kcs.1 shows \(option), which no command of Sources/kcs declares")
        }
    }

    @Test func everyDocumentInSeeAlso_exists_andEveryDocumentIsThere() throws {
        let named = items("Pa", in: section("SEE ALSO", of: page)).filter { $0.hasSuffix(".md") }
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }
        #expect(docs.count >= 10, "docs/*.md: \(docs)")
        for name in named {
            #expect(
                FileManager.default.fileExists(atPath: root.appendingPathComponent("docs/" + name).path),
                "SEE ALSO of docs/kcs.1 names \(name), which is not in docs/")
        }
        // make install puts every docs/*.md in PREFIX/share/doc/kcs: the page names each.
        for doc in Set(docs).subtracting(named).sorted() {
            Issue.record("docs/\(doc) is installed but SEE ALSO of docs/kcs.1 does not name it")
        }
        #expect(page.contains("share/doc/kcs"), "docs/kcs.1 does not say where the documents are installed")
    }
}
