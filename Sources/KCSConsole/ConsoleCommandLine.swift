import Foundation

/// The common command lines of the default command (`kcs`, `kcs -e CODE`, `kcs FILE ARGS…`,
/// with the console's options before them) read without the argument parser. The parser builds
/// every command's argument set by reflection on each start, about a quarter of kcs's start-up
/// (docs/architecture.md "Start-up"); these lines need none of it. `Console` stays the one
/// declaration: anything this reader does not recognise exactly (a subcommand, `--help`, a
/// repeated or unknown option, `--`, an option value that starts with `-`, an unreadable
/// file) goes to the parser, which then reads the whole line as it always did.
/// `ConsoleCommandLineTests` checks this table against the parser's own dump of `Console`, and
/// the same command lines through both readers.
public struct ConsoleCommandLine: Equatable {
    /// Whether the console's option `name` takes a value; nil for a name this reader leaves to
    /// the parser (`--init`, `--help`, `--version`, anything unknown). Names only `Console`
    /// and `CommonOptions` declare. (A switch, not a table: no generic metadata at start-up.)
    public static func takesValue(_ name: String) -> Bool? {
        switch name {
        case "-e", "--home", "--rpc", "--trace": return true
        case "--json", "--json-errors", "--echo", "--no-color", "--diffable": return false
        default: return nil
        }
    }

    /// The parser's subcommand names and built-in words: a line whose first positional word
    /// is one of them is the parser's.
    public static func isParserWord(_ word: String) -> Bool {
        switch word {
        case "console", "run", "check", "parse", "sim", "cosigner", "completions", "help": return true
        default: return false
        }
    }

    public var code: String?
    public var json = false
    public var jsonErrors = false
    public var echo = false
    public var home: String?
    public var noColor = false
    public var rpc: String?
    /// `--trace LEVEL`: off, wire, channel or explain (ConsoleHost.traceLevel).
    public var trace: String?
    /// `--diffable`: the trace's random values by their role, no timings.
    public var diffable = false
    public var file: String?
    public var args: [String] = []

    public init() {}

    /// Nil when the line is not one this reader takes whole.
    public init?(_ arguments: ArraySlice<String>) {
        var seen: [String] = []
        var rest = arguments
        while let word = rest.first, word.hasPrefix("-") {
            rest = rest.dropFirst()
            var name = word
            var value: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                value = String(word[word.index(after: equals)...])
            }
            guard let takesValue = Self.takesValue(name), !seen.contains(name) else { return nil }
            seen.append(name)
            if takesValue {
                if value == nil {
                    guard let next = rest.first, !next.hasPrefix("-") else { return nil }
                    value = next
                    rest = rest.dropFirst()
                }
            } else if value != nil {
                return nil
            }
            switch name {
            case "-e": code = value
            case "--json": json = true
            case "--json-errors": jsonErrors = true
            case "--echo": echo = true
            case "--home": home = value
            case "--no-color": noColor = true
            case "--rpc": rpc = value
            case "--diffable": diffable = true
            case "--trace":
                // A level the parser would refuse goes to the parser, which says so.
                guard let value, ConsoleHost.traceLevels.contains(value) else { return nil }
                trace = value
            default: return nil
            }
        }
        // After the first positional word everything is the script's (`captureForPassthrough`).
        if let first = rest.first {
            guard !Self.isParserWord(first) else { return nil }
            file = first
            args = Array(rest.dropFirst())
        }
    }
}
