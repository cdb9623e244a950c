import Foundation
import KCSErrors
import KCSRuntime
import KCSSyntax

/// Tab completion at the prompt, as a pure function of the line so it is tested without a
/// terminal. What is completed depends on the word under the cursor:
/// - inside a string literal, or a word with a `/` or starting with `.` or `~`: file paths;
/// - a word starting with `--`: the options of the command the line starts with;
/// - a word starting with `.` at the start of the line: the meta-commands;
/// - otherwise: command names (dotted), variables defined so far, and keywords.
public struct Completer {
    public let registry: BuiltinRegistry
    /// Names defined in the session (globals, functions); asked at each completion.
    public let variables: () -> [String]
    /// Extra names offered with the commands (stored key names, once the store exists).
    public let extraWords: () -> [String]
    /// Lists a folder (the file system by default; tests pass a table).
    public let listDirectory: (String) -> [(name: String, isDirectory: Bool)]

    public static let metaCommands = [".help", ".read", ".bail", ".quit"]

    public init(
        registry: BuiltinRegistry, variables: @escaping () -> [String] = { [] },
        extraWords: @escaping () -> [String] = { [] },
        listDirectory: @escaping (String) -> [(name: String, isDirectory: Bool)] = Completer.fileSystem
    ) {
        self.registry = registry
        self.variables = variables
        self.extraWords = extraWords
        self.listDirectory = listDirectory
    }

    /// What completing at `cursor` (a UTF-8 offset into `line`) offers: the word being
    /// completed starts at `wordStart`; each candidate replaces the word entirely.
    public struct Result: Equatable {
        public var wordStart: Int
        public var word: String
        public var candidates: [String]

        /// The longest prefix all candidates share (what Tab inserts when there are several).
        public var commonPrefix: String {
            guard var prefix = candidates.first else { return word }
            for c in candidates.dropFirst() {
                while !c.hasPrefix(prefix) { prefix.removeLast() }
            }
            return prefix
        }
    }

    public func complete(line: String, cursor: Int) -> Result {
        let bytes = Array(line.utf8.prefix(cursor))
        let inString = bytes.filter { $0 == UInt8(ascii: "\"") }.count % 2 == 1
        var start = bytes.count
        let stops: Set<UInt8> = inString ? [UInt8(ascii: "\""), UInt8(ascii: " ")] : Set(" \t(),[]{}=+*<>!\"".utf8)
        while start > 0, !stops.contains(bytes[start - 1]) { start -= 1 }
        let word = String(decoding: bytes[start...], as: UTF8.self)
        let before = String(decoding: bytes[..<start], as: UTF8.self)

        func result(_ names: [String]) -> Result {
            var seen = Set<String>()
            let matches = names.filter { $0.hasPrefix(word) && seen.insert($0).inserted }.sorted()
            return Result(wordStart: start, word: word, candidates: matches)
        }

        let atLineStart = before.trimmingCharacters(in: .whitespaces).isEmpty
        if inString || word.contains("/") || word.hasPrefix("~") || (word.hasPrefix(".") && !atLineStart) {
            return Result(wordStart: start, word: word, candidates: paths(word))
        }
        if atLineStart, word.hasPrefix(".") {
            return result(Completer.metaCommands)
        }
        if word.hasPrefix("--") {
            let command = before.split(separator: " ").first.map(String.init) ?? ""
            let options = registry.lookup(command)?.options.map { "--" + $0.name } ?? []
            return result(options)
        }
        if before.hasPrefix(".read") {
            return Result(wordStart: start, word: word, candidates: paths(word))
        }
        if !atLineStart, let choices = declaredChoices(before), !choices.isEmpty {
            return result(choices)
        }
        let commands = registry.builtins.map(\.name)
        return result(commands + ["help"] + variables() + extraWords() + Keyword.allCases.map(\.rawValue))
    }

    /// The choices the command's table declares for the word after `before`: an option's
    /// value after `--name`, or the positional parameter at that place (docs/language.md §4).
    /// The command is the line's first word, or a namespace word and its verb (`card change`).
    private func declaredChoices(_ before: String) -> [String]? {
        var words = before.split(separator: " ").map(String.init)
        guard let first = words.first else { return nil }
        let builtin: Builtin
        if words.count > 1, let b = registry.lookup(first + "." + words[1]) {
            builtin = b
            words.removeFirst(2)
        } else if let b = registry.lookup(first) {
            builtin = b
            words.removeFirst()
        } else {
            return nil
        }
        var position = 0
        var pendingOption: OptionSpec?
        for w in words {
            if pendingOption != nil {
                pendingOption = nil
            } else if w.hasPrefix("--") {
                pendingOption = builtin.options.first { "--" + $0.name == w && $0.type != nil }
            } else {
                position += 1
            }
        }
        if let pendingOption { return pendingOption.choices }
        return position < builtin.params.count ? builtin.params[position].choices : nil
    }

    /// Paths starting with `word` (`~/` expands for the lookup but stays in the candidate);
    /// folders end in `/`.
    private func paths(_ word: String) -> [String] {
        let slash = word.lastIndex(of: "/")
        let dirPart = slash.map { String(word[...$0]) } ?? ""
        let namePart = slash.map { String(word[word.index(after: $0)...]) } ?? word
        var lookup = dirPart.isEmpty ? "." : dirPart
        if lookup.hasPrefix("~") { lookup = ProcessEnvironment.current.homeDirectory + lookup.dropFirst() }
        return listDirectory(lookup)
            .filter { $0.name.hasPrefix(namePart) && (namePart.hasPrefix(".") || !$0.name.hasPrefix(".")) }
            .map { dirPart + $0.name + ($0.isDirectory ? "/" : "") }
            .sorted()
    }

    /// Candidates in columns for an 80-column terminal (Tab with several and no longer prefix).
    public static func columns(_ items: [String], width: Int = 80) -> String {
        let cell = (items.map(\.count).max() ?? 0) + 2
        let perLine = max(1, width / cell)
        var lines: [String] = []
        var i = 0
        while i < items.count {
            let row = items[i..<min(i + perLine, items.count)]
            lines.append(
                row.map { $0.padding(toLength: cell, withPad: " ", startingAt: 0) }.joined()
                    .trimmingCharacters(in: .whitespaces))
            i += perLine
        }
        return lines.joined(separator: "\n")
    }

    public static func fileSystem(_ dir: String) -> [(name: String, isDirectory: Bool)] {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: dir) else { return [] }
        return names.map { name in
            var isDir: ObjCBool = false
            fm.fileExists(atPath: (dir as NSString).appendingPathComponent(name), isDirectory: &isDir)
            return (name, isDir.boolValue)
        }
    }
}
