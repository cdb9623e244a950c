// Diagnostics of the front end: one type, stable IDs, and all message text in one place.
//
// A `Diagnostic` holds facts (what went wrong, where). Its `id`, `message` and `hint` are
// derived from those facts here and nowhere else, so the wording has one voice and tests and
// the REPL's continuation logic can match on the ID instead of the text.
import Foundation

/// What went wrong, with the facts needed to explain it. Message text is derived in `message`.
public enum DiagnosticKind: Sendable, Equatable {
    // MARK: Lexical
    /// A character that starts no token, e.g. `@` or `é` outside a string.
    case unexpectedCharacter(String)
    /// An operator from another language, e.g. `&&`; `replacement` is ours (`and`).
    case foreignOperator(String, replacement: String)
    /// `0x` followed by an odd number of hex digits; bytes need two digits each.
    case oddHexDigits(count: Int)
    /// A character in a `0x…` literal that is not a hex digit.
    case invalidHexDigit(String)
    /// `0x` with no digits after it.
    case missingHexDigits
    /// A number immediately followed by letters, e.g. `12ab`.
    case invalidNumber(String)
    /// A backslash escape we do not know, e.g. `\q`.
    case invalidEscape(String)
    /// Bytes that are not UTF-8 (the first one of them); a script must be UTF-8 text.
    case invalidUTF8(byte: UInt8)

    // MARK: Syntax
    /// The input ended while something was still open. The REPL shows a continuation prompt
    /// for this ID. `expected` says what was needed, e.g. "`}`" or "an expression".
    case unexpectedEndOfInput(expected: String)
    /// A token that does not fit: `expected` describes what would, `found` the token.
    case unexpectedToken(expected: String, found: String)
    /// The left side of `=` is not a name, a field or an element.
    case invalidAssignmentTarget
    /// `break` or `continue` outside a `for`/`while` body.
    case outsideLoop(keyword: String)
    /// `return` outside a `def` body.
    case returnOutsideFunction
    /// `def f(a, a)`.
    case duplicateParameter(String)
    /// `use` with an interpolated string; the module name must be known before running.
    case interpolatedUse
    /// A namespace word (`keystore`) with no verb after it.
    case missingCommandVerb(namespace: String)
    /// Expressions nested deeper than the parser allows.
    case nestingTooDeep(limit: Int)

    // MARK: Checks (reported by `kcs check`, defined here so the wording lives with the rest)
    /// A command name that the host does not know, with the nearest known one if any.
    case unknownCommand(String, suggestion: String?)

    /// Stable identifier, `lex.*`, `parse.*` or `check.*`. Never changes once published.
    public var id: String {
        switch self {
        case .unexpectedCharacter: "lex.unexpectedCharacter"
        case .foreignOperator: "lex.foreignOperator"
        case .oddHexDigits: "lex.oddHexDigits"
        case .invalidHexDigit: "lex.invalidHexDigit"
        case .missingHexDigits: "lex.missingHexDigits"
        case .invalidNumber: "lex.invalidNumber"
        case .invalidEscape: "lex.invalidEscape"
        case .invalidUTF8: "lex.invalidUTF8"
        case .unexpectedEndOfInput: "parse.unexpectedEndOfInput"
        case .unexpectedToken: "parse.unexpectedToken"
        case .invalidAssignmentTarget: "parse.invalidAssignmentTarget"
        case .outsideLoop: "parse.outsideLoop"
        case .returnOutsideFunction: "parse.returnOutsideFunction"
        case .duplicateParameter: "parse.duplicateParameter"
        case .interpolatedUse: "parse.interpolatedUse"
        case .missingCommandVerb: "parse.missingCommandVerb"
        case .nestingTooDeep: "parse.nestingTooDeep"
        case .unknownCommand: "check.unknownCommand"
        }
    }

    /// One-line message, lower case, no final period.
    public var message: String {
        switch self {
        case .unexpectedCharacter(let c): "unexpected character `\(c)`"
        case .foreignOperator(let op, let replacement): "`\(op)` is not an operator here; use `\(replacement)`"
        case .oddHexDigits(let n): "hex bytes need an even number of digits, got \(n)"
        case .invalidHexDigit(let c): "`\(c)` is not a hex digit"
        case .missingHexDigits: "expected hex digits after `0x`"
        case .invalidNumber(let text): "`\(text)` is not a number"
        case .invalidEscape(let c): "unknown escape `\\\(c)` in string"
        case .invalidUTF8(let byte):
            "the text is not valid UTF-8 (byte 0x\(String(byte, radix: 16, uppercase: true)) here); nothing was run"
        case .unexpectedEndOfInput(let expected): "unexpected end of input, expected \(expected)"
        case .unexpectedToken(let expected, let found): "expected \(expected), found \(found)"
        case .invalidAssignmentTarget: "cannot assign to this expression"
        case .outsideLoop(let keyword): "`\(keyword)` outside a loop"
        case .returnOutsideFunction: "`return` outside a function"
        case .duplicateParameter(let name): "parameter `\(name)` appears twice"
        case .interpolatedUse: "`use` needs a plain string, not an interpolated one"
        case .missingCommandVerb(let ns): "expected a command name after `\(ns)`"
        case .nestingTooDeep(let limit): "expression nested more than \(limit) levels deep"
        case .unknownCommand(let name, _): "unknown command `\(name)`"
        }
    }

    /// An optional second line that says how to fix it.
    public var hint: String? {
        switch self {
        case .invalidEscape: #"escapes are \n \t \\ \" \{"#
        case .invalidUTF8: "save the file as UTF-8 (a file in Latin-1 or UTF-16 shows this)"
        case .oddHexDigits: "each byte is two hex digits, e.g. `0x0a` rather than `0xa`"
        case .invalidAssignmentTarget: "assign to a name (`x`), a field (`x.f`) or an element (`x[i]`)"
        case .missingCommandVerb(let ns): "write `\(ns).verb` or `\(ns) verb`"
        case .unknownCommand(_, let suggestion?): "did you mean `\(suggestion)`?"
        case .unexpectedToken(_, "`else`"): "`else` goes on the line of the `}` it follows: `} else {`"
        default: nil
        }
    }
}

/// One problem found in a `Source`: what (`kind`) and where (`range`).
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public let kind: DiagnosticKind
    /// The offending span; empty at the end of input.
    public let range: SourceRange

    /// Creates a diagnostic.
    public init(_ kind: DiagnosticKind, at range: SourceRange) {
        self.kind = kind
        self.range = range
    }

    /// Stable ID, e.g. `parse.unexpectedEndOfInput`.
    public var id: String { kind.id }
    /// Message text, e.g. "expected an expression, found `)`".
    public var message: String { kind.message }
    /// Fix-it hint, if one helps.
    public var hint: String? { kind.hint }
    /// `id: message`, for debugging; users see `DiagnosticRenderer` output.
    public var description: String { "\(id): \(message)" }
}

// MARK: - Renderer

/// Renders diagnostics as plain text for terminals, pipes and tests:
///
/// ```
/// demo.kcs:2:9: error: expected an expression, found `)`
///   2 | let x = )
///     |         ^
///   hint: …
/// ```
///
/// Colour, if any, is a decorator added by the console, never part of this text.
public enum DiagnosticRenderer {
    /// Renders one diagnostic: header, source line with gutter, caret line, optional hint.
    /// Every line ends in `\n`.
    public static func render(_ diagnostic: Diagnostic, source: Source) -> String {
        render(diagnostic, source: source, lines: LineTable(source))
    }

    /// Renders several diagnostics in order, sharing one line table.
    public static func render(_ diagnostics: [Diagnostic], source: Source) -> String {
        let lines = LineTable(source)
        return diagnostics.map { render($0, source: source, lines: lines) }.joined()
    }

    private static func render(_ d: Diagnostic, source: Source, lines: LineTable) -> String {
        let loc = lines.location(of: d.range.start)
        var out = "\(source.name):\(loc.line):\(loc.column): error: \(source.redacting(d.message))\n"
        out += excerpt(d.range, in: source, lines: lines)
        if let hint = d.hint { out += "  hint: \(source.redacting(hint))\n" }
        return out
    }

    /// The source line of `range` with a gutter, and a caret line under the range:
    ///
    /// ```
    ///   3 | let x = 1 +
    ///     |            ^~~
    /// ```
    ///
    /// Ranges in `source.secretRanges` print as `<secret>` (the caret follows), so an error
    /// never shows a secret literal or argument. Diagnostics and runtime errors both use this.
    public static func excerpt(_ range: SourceRange, in source: Source, lines: LineTable) -> String {
        let loc = lines.location(of: range.start)
        let lineRange = lines.lineRange(loc.line)
        let number = String(loc.line)
        // The line as shown, and each shown column's start offset: a secret becomes one piece.
        var shown = ""
        var column = 0
        var startColumn: Int?
        var endColumn: Int?
        var caretPad = ""
        var offset = lineRange.start
        let secrets = source.secretRanges.filter { $0.end > lineRange.start && $0.start < lineRange.end }
            .sorted { $0.start < $1.start }
        var nextSecret = 0
        func mark(_ from: Int, _ to: Int, _ piece: String) {
            if startColumn == nil, range.start < to || (range.start == from && from == to) { startColumn = column }
            if startColumn != nil, endColumn == nil, range.end <= from, range.end > range.start { endColumn = column }
            if startColumn == nil { caretPad += piece.unicodeScalars.map { $0 == "\t" ? "\t" : " " } }
            shown += piece
            column += piece.unicodeScalars.count
        }
        while offset < lineRange.end {
            if nextSecret < secrets.count, secrets[nextSecret].start <= offset {
                let end = min(secrets[nextSecret].end, lineRange.end)
                mark(offset, end, "<secret>")
                offset = end
                nextSecret += 1
                continue
            }
            var scalarEnd = offset + 1
            while scalarEnd < lineRange.end, source.utf8[scalarEnd] & 0xC0 == 0x80 { scalarEnd += 1 }
            mark(offset, scalarEnd, source.text(in: SourceRange(start: offset, end: scalarEnd)))
            offset = scalarEnd
        }
        let start = startColumn ?? column
        let end = endColumn ?? (range.end > range.start ? column : start + 1)
        let width = max(1, end - start)
        var out = "  \(number) | \(shown)\n"
        out +=
            "  \(String(repeating: " ", count: number.count)) | \(caretPad)^" + String(repeating: "~", count: width - 1)
            + "\n"
        return out
    }
}
