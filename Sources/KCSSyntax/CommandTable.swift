// The names the host knows, so the parser can tell a command from an expression.
import Foundation

/// The command names the parser recognises at the start of a statement.
///
/// The syntax layer knows nothing about wallets: the host (the builtin registry) hands over
/// plain names. A statement whose first word is a full command name (`derive`) or a namespace
/// word (`card`, `keystore`, `import`) is parsed as a command; anything else is an expression.
public struct CommandTable: Sendable, Equatable {
    /// Full command names (`card.pair`, `derive`, `keystore.load`), and the first words of the
    /// dotted ones (`card` for `card.pair`) plus any added explicitly (`NameIndex`: no `Set`
    /// is made at start-up).
    private var commandIndex: NameIndex
    private var namespaceIndex: NameIndex

    /// Full command names: `card.pair`, `derive`, `keystore.load`, each once.
    public var commands: [String] { commandIndex.names }
    /// First words of dotted names (`card` for `card.pair`) plus any added explicitly.
    public var namespaces: [String] { namespaceIndex.names }

    /// A table with no commands: everything parses as an expression.
    public static let empty = CommandTable(commands: [])

    /// Creates a table. Namespaces are derived from the dotted `commands`; pass more in
    /// `namespaces` for namespaces whose commands are all added later. (Arrays, not any
    /// sequence: a generic initializer called from another module looks its sequence's
    /// conformances up at run time, a scan of every conformance in the binary at start-up.)
    public init(commands: [String], namespaces: [String] = []) {
        commandIndex = NameIndex(capacity: commands.count)
        namespaceIndex = NameIndex(capacity: namespaces.count + 32)
        for name in namespaces { namespaceIndex.insert(name) }
        for name in commands {
            commandIndex.insert(name)
            if let dot = name.firstIndex(of: ".") { namespaceIndex.insert(String(name[..<dot])) }
        }
    }

    /// Whether `name` is a full command name.
    public func contains(_ name: String) -> Bool { commandIndex.contains(name) }

    /// Whether a statement starting with `word` is a command.
    public func startsCommand(_ word: String) -> Bool { commandIndex.contains(word) || namespaceIndex.contains(word) }

    /// The known command closest to `name`, if close enough to be a likely typo.
    public func suggestion(for name: String) -> String? { KCSSyntax.suggestion(for: name, among: commands) }
}

/// The candidate closest to `name` by edit distance (insert, delete, substitute, swap two
/// neighbours; letter case ignored), or nil if none is within `max(1, name.count / 3)` edits.
/// Ties go to the alphabetically first candidate, so the answer is stable. An exact match is
/// not a suggestion and returns nil.
public func suggestion(for name: String, among candidates: some Sequence<String>) -> String? {
    let target = Array(name.lowercased())
    let limit = max(1, target.count / 3)
    var best: (distance: Int, name: String)?
    for candidate in candidates where candidate != name {
        let d = editDistance(target, Array(candidate.lowercased()), limit: limit)
        guard d <= limit else { continue }
        if best == nil || d < best!.distance || (d == best!.distance && candidate < best!.name) {
            best = (d, candidate)
        }
    }
    return best?.name
}

/// Optimal-string-alignment distance; returns `limit + 1` early when it must exceed `limit`.
func editDistance(_ a: [Character], _ b: [Character], limit: Int) -> Int {
    if abs(a.count - b.count) > limit { return limit + 1 }
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var previous2 = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        var rowMin = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            var v = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { v = min(v, previous2[j - 2] + 1) }
            current[j] = v
            rowMin = min(rowMin, v)
        }
        if rowMin > limit { return limit + 1 }
        (previous2, previous, current) = (previous, current, previous2)
    }
    return previous[b.count]
}
