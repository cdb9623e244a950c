// Tokens produced by the `Lexer`.
import Foundation

/// Reserved words. They cannot be variable names; after a `.` they may be field names.
public enum Keyword: String, Sendable, CaseIterable {
    case `let`, `if`, `else`, `for`, `in`, `while`, `break`, `continue`, `def`, `return`
    case `try`, `catch`, assert, print, use, and, or, not, `true`, `false`, `nil`

    /// The keyword spelled `word`, or nil. (Not `init(rawValue:)`: for a String enum this large
    /// it builds a `[String: Int]` cache on first use, whose metadata costs a scan of every
    /// conformance in the binary at start-up; docs/architecture.md, "Start-up".)
    public static func named(_ word: String) -> Keyword? {
        guard let first = word.utf8.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "w"), word.utf8.count <= 8
        else {
            return nil
        }
        for keyword in allCases where keyword.rawValue == word { return keyword }
        return nil
    }
}

/// A piece of a string literal as the lexer sees it: literal text (escapes already applied)
/// or the byte range of an `{expr}` interpolation, which the parser lexes and parses again.
public enum StringSegment: Sendable, Equatable {
    /// Text with escapes resolved; `range` covers it in the source (quotes excluded).
    case text(String, range: SourceRange)
    /// The inside of `{…}`, braces excluded.
    case interpolation(range: SourceRange)
}

/// The kind of a token, with its value where it has one.
public enum TokenKind: Sendable, Equatable {
    /// A name: `[A-Za-z_][A-Za-z0-9_]*` that is not a keyword.
    case identifier(String)
    /// A reserved word.
    case keyword(Keyword)
    /// A decimal integer, digits only (`_` separators removed), of any size.
    case integer(String)
    /// A `0x…` byte string.
    case bytes([UInt8])
    /// A `"…"` string, split into text and interpolations.
    case string([StringSegment])
    // Command-argument mode only (see `Lexer.nextCommandArgument`):
    /// A bare word such as `wallet.json` or `m/44'/60'/0'`.
    case word(String)
    /// `--name`; the name without the dashes.
    case option(String)
    /// `$name` or `$name.field…`; the path without the `$`.
    case variable([String])
    // Punctuation and operators:
    case leftParen, rightParen, leftBracket, rightBracket, leftBrace, rightBrace
    case comma, colon, semicolon, dot, equal
    case plus, minus, star, slash, percent
    case equalEqual, bangEqual, less, lessEqual, greater, greaterEqual
    /// `..<`
    case halfOpenRange
    /// `...`
    case closedRange
    /// A line break (comments are skipped up to it).
    case newline
    /// The end of the input; repeated forever once reached.
    case endOfInput
    /// Something the lexer could not read; a diagnostic was reported for it.
    case invalid

    /// How the token is named in "expected …, found …" messages.
    public var display: String {
        switch self {
        case .identifier(let name): "`\(name)`"
        case .keyword(let k): "`\(k.rawValue)`"
        case .integer(let digits): "integer `\(digits)`"
        case .bytes: "bytes"
        case .string: "a string"
        case .word(let w): "`\(w)`"
        case .option(let o): "option `--\(o)`"
        case .variable(let path): "`$\(path.joined(separator: "."))`"
        case .newline: "end of line"
        case .endOfInput: "end of input"
        case .invalid: "an invalid token"
        default: "`\(symbol)`"
        }
    }

    /// The spelling of a punctuation token (empty for others).
    var symbol: String {
        switch self {
        case .leftParen: "("
        case .rightParen: ")"
        case .leftBracket: "["
        case .rightBracket: "]"
        case .leftBrace: "{"
        case .rightBrace: "}"
        case .comma: ","
        case .colon: ":"
        case .semicolon: ";"
        case .dot: "."
        case .equal: "="
        case .plus: "+"
        case .minus: "-"
        case .star: "*"
        case .slash: "/"
        case .percent: "%"
        case .equalEqual: "=="
        case .bangEqual: "!="
        case .less: "<"
        case .lessEqual: "<="
        case .greater: ">"
        case .greaterEqual: ">="
        case .halfOpenRange: "..<"
        case .closedRange: "..."
        default: ""
        }
    }
}

/// A token and the bytes it covers.
public struct Token: Sendable, Equatable {
    /// What was read.
    public let kind: TokenKind
    /// Where; empty for `endOfInput`.
    public let range: SourceRange

    /// Creates a token.
    public init(_ kind: TokenKind, _ range: SourceRange) {
        self.kind = kind
        self.range = range
    }
}
