// The lexer: bytes to tokens, on demand.
//
// The parser pulls tokens one at a time because the language has two lexical modes: ordinary
// tokens, and command arguments, where `wallet.json` or `m/44'/60'/0'/0/0` is one bare word.
// Only the parser knows which mode applies, so it asks for `next()` or `nextCommandArgument()`.
import Foundation

/// Reads tokens from a `Source`, in ordinary or command-argument mode.
///
/// Errors never stop the lexer: it reports a `Diagnostic` into `diagnostics`, returns an
/// `invalid` token (or the best token it can) and always moves forward, so every call either
/// consumes at least one byte or returns `endOfInput`.
public struct Lexer: Sendable {
    /// The text being read.
    public let source: Source
    private let bytes: [UInt8]
    /// Offset of the next byte to read.
    public internal(set) var position: Int
    /// One past the last byte this lexer may read (the whole source, or one interpolation).
    let end: Int
    /// End offset of the last token other than a newline; the end-of-input token sits there, so
    /// "unexpected end of input" points just after the last thing written.
    private var lastTokenEnd: Int
    /// Problems found so far, in order. The parser drains this after every token.
    public var diagnostics: [Diagnostic] = []

    /// Creates a lexer over the whole `source`.
    public init(source: Source) {
        self.init(source: source, range: SourceRange(start: 0, end: source.utf8.count))
    }

    /// Creates a lexer over part of `source` (an interpolation); offsets stay file-relative.
    init(source: Source, range: SourceRange) {
        self.source = source
        self.bytes = source.utf8
        self.position = range.start
        self.end = min(range.end, source.utf8.count)
        self.lastTokenEnd = range.start
    }

    /// Reads every ordinary token up to and including `endOfInput`.
    public mutating func tokenize() -> [Token] {
        var tokens: [Token] = []
        while true {
            let t = next()
            tokens.append(t)
            if t.kind == .endOfInput { return tokens }
        }
    }

    /// Moves the read position (used by the parser after it has read a command name itself).
    mutating func reset(to offset: Int) {
        position = max(0, min(offset, end))
    }

    // MARK: - Ordinary tokens

    /// Reads the next ordinary token, skipping blanks and comments (but not line breaks).
    public mutating func next() -> Token {
        skipBlanks(newlines: false)
        let t = scanToken()
        if t.kind != .newline, t.kind != .endOfInput { lastTokenEnd = t.range.end }
        return t
    }

    private mutating func scanToken() -> Token {
        let start = position
        guard position < end else { return Token(.endOfInput, SourceRange(start: lastTokenEnd, end: lastTokenEnd)) }
        let c = bytes[position]
        position += 1
        func single(_ kind: TokenKind) -> Token { Token(kind, SourceRange(start: start, end: position)) }
        func pair(_ second: Character, _ long: TokenKind, _ short: TokenKind) -> Token {
            if peek() == second.asciiValue {
                position += 1
                return single(long)
            }
            return single(short)
        }
        switch c {
        case UInt8(ascii: "\n"): return single(.newline)
        case UInt8(ascii: "("): return single(.leftParen)
        case UInt8(ascii: ")"): return single(.rightParen)
        case UInt8(ascii: "["): return single(.leftBracket)
        case UInt8(ascii: "]"): return single(.rightBracket)
        case UInt8(ascii: "{"): return single(.leftBrace)
        case UInt8(ascii: "}"): return single(.rightBrace)
        case UInt8(ascii: ","): return single(.comma)
        case UInt8(ascii: ":"): return single(.colon)
        case UInt8(ascii: ";"): return single(.semicolon)
        case UInt8(ascii: "+"): return single(.plus)
        case UInt8(ascii: "-"): return single(.minus)
        case UInt8(ascii: "*"): return single(.star)
        case UInt8(ascii: "/"): return single(.slash)
        case UInt8(ascii: "%"): return single(.percent)
        case UInt8(ascii: "="): return pair("=", .equalEqual, .equal)
        case UInt8(ascii: "<"): return pair("=", .lessEqual, .less)
        case UInt8(ascii: ">"): return pair("=", .greaterEqual, .greater)
        case UInt8(ascii: "!"):
            if peek() == UInt8(ascii: "=") {
                position += 1
                return single(.bangEqual)
            }
            return foreign("!", "not", start)
        case UInt8(ascii: "&") where peek() == UInt8(ascii: "&"):
            position += 1
            return foreign("&&", "and", start)
        case UInt8(ascii: "|") where peek() == UInt8(ascii: "|"):
            position += 1
            return foreign("||", "or", start)
        case UInt8(ascii: "."):
            if peek() == UInt8(ascii: ".") {
                position += 1
                if peek() == UInt8(ascii: "<") {
                    position += 1
                    return single(.halfOpenRange)
                }
                if peek() == UInt8(ascii: ".") {
                    position += 1
                    return single(.closedRange)
                }
                return foreign("..", "..<", start)
            }
            return single(.dot)
        case UInt8(ascii: "\""): return scanString(start: start)
        case UInt8(ascii: "0") where peek() == UInt8(ascii: "x") || peek() == UInt8(ascii: "X"):
            position += 1
            while position < end, isIdentifierByte(bytes[position]) { position += 1 }
            return hexLiteral(SourceRange(start: start, end: position))
        case _ where isDigit(c):
            while position < end, isDigit(bytes[position]) || bytes[position] == UInt8(ascii: "_") { position += 1 }
            if position < end, isIdentifierByte(bytes[position]) {
                while position < end, isIdentifierByte(bytes[position]) { position += 1 }
                let r = SourceRange(start: start, end: position)
                report(.invalidNumber(source.text(in: r)), r)
                return Token(.invalid, r)
            }
            return single(.integer(digits(start, position)))
        case _ where isIdentifierStart(c):
            while position < end, isIdentifierByte(bytes[position]) { position += 1 }
            let name = String(decoding: bytes[start..<position], as: UTF8.self)
            return single(Keyword.named(name).map(TokenKind.keyword) ?? .identifier(name))
        default:
            // One whole scalar, so the message shows `é` rather than a stray byte.
            while position < end, bytes[position] & 0xC0 == 0x80 { position += 1 }
            let r = SourceRange(start: start, end: position)
            report(.unexpectedCharacter(source.text(in: r)), r)
            return Token(.invalid, r)
        }
    }

    private mutating func foreign(_ op: String, _ replacement: String, _ start: Int) -> Token {
        let r = SourceRange(start: start, end: position)
        report(.foreignOperator(op, replacement: replacement), r)
        return Token(.invalid, r)
    }

    // MARK: - Command arguments

    /// Reads the next command argument: a bare word, `--option`, `$variable`, or a literal.
    ///
    /// Arguments are separated by blanks. A word runs up to a blank or one of `; # " ( ) [ ] { }`;
    /// those characters, line breaks and the end of input come back as ordinary tokens. A word
    /// that spells an integer, `0x…` bytes, `true`, `false` or `nil` is that literal. When
    /// `skipNewlines` is set (inside parentheses) line breaks are blanks.
    public mutating func nextCommandArgument(skipNewlines: Bool = false) -> Token {
        skipBlanks(newlines: skipNewlines)
        guard position < end, !isWordStop(bytes[position]) else { return next() }
        let start = position
        while position < end, !isWordStop(bytes[position]) { position += 1 }
        let r = SourceRange(start: start, end: position)
        lastTokenEnd = position
        let text = source.text(in: r)
        let u = Array(text.utf8)
        if u.count > 2, text.hasPrefix("--"), isIdentifierStart(u[2]),
            u.dropFirst(3).allSatisfy({ isIdentifierByte($0) || $0 == UInt8(ascii: "-") })
        {
            return Token(.option(String(text.dropFirst(2))), r)
        }
        if text.hasPrefix("$") {
            let path = text.dropFirst().split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if !text.hasSuffix("."),
                path.allSatisfy({ p in
                    p.utf8.first.map(isIdentifierStart) == true && p.utf8.allSatisfy(isIdentifierByte)
                        && Keyword.named(p) == nil
                })
            {
                return Token(.variable(path), r)
            }
            return Token(.word(text), r)
        }
        if isDigit(u[0]), u.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: "_") }) {
            return Token(.integer(digits(start, position)), r)
        }
        if u.count >= 2, u[0] == UInt8(ascii: "0"), u[1] | 0x20 == UInt8(ascii: "x"),
            u.dropFirst(2).allSatisfy(isIdentifierByte)
        {
            return hexLiteral(r)
        }
        if let k = Keyword.named(text), [.true, .false, .nil].contains(k) { return Token(.keyword(k), r) }
        return Token(.word(text), r)
    }

    // MARK: - Pieces

    private mutating func skipBlanks(newlines: Bool) {
        while position < end {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): position += 1
            case UInt8(ascii: "\n") where newlines: position += 1
            case UInt8(ascii: "#"):
                while position < end, bytes[position] != UInt8(ascii: "\n") { position += 1 }
            default: return
            }
        }
    }

    /// `0x` plus the identifier bytes after it, already consumed; `range` covers them all.
    private mutating func hexLiteral(_ range: SourceRange) -> Token {
        let digits = bytes[(range.start + 2)..<range.end]
        if digits.isEmpty {
            report(.missingHexDigits, range)
            return Token(.invalid, range)
        }
        if let bad = digits.firstIndex(where: { hexValue($0) == nil }) {
            report(.invalidHexDigit(String(UnicodeScalar(bytes[bad]))), SourceRange(start: bad, end: bad + 1))
            return Token(.invalid, range)
        }
        if digits.count % 2 == 1 {
            report(.oddHexDigits(count: digits.count), range)
            return Token(.invalid, range)
        }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = digits.startIndex
        while i < digits.endIndex {
            out.append(hexValue(bytes[i])! << 4 | hexValue(bytes[i + 1])!)
            i += 2
        }
        return Token(.bytes(out), range)
    }

    /// Reads a string whose opening quote (at `start`) is already consumed.
    private mutating func scanString(start: Int) -> Token {
        var segments: [StringSegment] = []
        var text: [UInt8] = []
        var textStart = position
        func flush(_ upTo: Int) {
            if !text.isEmpty || (segments.isEmpty && upTo > textStart) {
                segments.append(
                    .text(String(decoding: text, as: UTF8.self), range: SourceRange(start: textStart, end: upTo)))
            }
            text.removeAll()
        }
        while true {
            guard position < end else {
                report(
                    .unexpectedEndOfInput(expected: "`\"` to close the string"),
                    SourceRange(start: start, end: start + 1))
                position = end
                return Token(.invalid, SourceRange(start: start, end: end))
            }
            let c = bytes[position]
            position += 1
            switch c {
            case UInt8(ascii: "\""):
                flush(position - 1)
                if segments.isEmpty { segments.append(.text("", range: SourceRange(start: start + 1, end: start + 1))) }
                return Token(.string(segments), SourceRange(start: start, end: position))
            case UInt8(ascii: "\\"):
                guard position < end else { continue }
                let e = bytes[position]
                position += 1
                switch e {
                case UInt8(ascii: "n"): text.append(10)
                case UInt8(ascii: "t"): text.append(9)
                case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "{"): text.append(e)
                default:
                    var scalarEnd = position
                    while scalarEnd < end, bytes[scalarEnd] & 0xC0 == 0x80 { scalarEnd += 1 }
                    let r = SourceRange(start: position - 2, end: scalarEnd)
                    report(.invalidEscape(source.text(in: SourceRange(start: position - 1, end: scalarEnd))), r)
                    text.append(contentsOf: bytes[(position - 1)..<scalarEnd])
                    position = scalarEnd
                }
            case UInt8(ascii: "{"):
                flush(position - 1)
                let open = position - 1
                guard let close = matchingBrace(from: position) else {
                    report(
                        .unexpectedEndOfInput(expected: "`}` to close the interpolation"),
                        SourceRange(start: open, end: open + 1))
                    position = end
                    return Token(.invalid, SourceRange(start: start, end: end))
                }
                segments.append(.interpolation(range: SourceRange(start: position, end: close)))
                position = close + 1
                textStart = position
            default:
                text.append(c)
            }
        }
    }

    /// Offset of the `}` closing an interpolation whose body starts at `from`, skipping nested
    /// braces and strings; nil if the input ends first. Reports nothing: the parser lexes the
    /// body again and reports its problems then. Iterative with an explicit stack, so deeply
    /// nested `"{"{"{…` cannot exhaust the call stack.
    private func matchingBrace(from: Int) -> Int? {
        // One entry per open context: true inside a string, false inside `{…}`.
        var stack: [Bool] = [false]
        var i = from
        while i < end {
            let b = bytes[i]
            if stack[stack.count - 1] {
                switch b {
                case UInt8(ascii: "\""): stack.removeLast()
                case UInt8(ascii: "\\"): i += 1
                case UInt8(ascii: "{"): stack.append(false)
                default: break
                }
            } else {
                switch b {
                case UInt8(ascii: "{"): stack.append(false)
                case UInt8(ascii: "\""): stack.append(true)
                case UInt8(ascii: "}"):
                    stack.removeLast()
                    if stack.isEmpty { return i }
                default: break
                }
            }
            i += 1
        }
        return nil
    }

    private mutating func report(_ kind: DiagnosticKind, _ range: SourceRange) {
        diagnostics.append(Diagnostic(kind, at: range))
    }

    private func peek() -> UInt8? { position < end ? bytes[position] : nil }

    private func digits(_ from: Int, _ to: Int) -> String {
        String(decoding: bytes[from..<to].filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
    }
}

// MARK: - Byte classes

func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

func isIdentifierStart(_ b: UInt8) -> Bool {
    (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") || b == UInt8(ascii: "_")
}

func isIdentifierByte(_ b: UInt8) -> Bool { isIdentifierStart(b) || isDigit(b) }

/// Bytes that end a bare command word.
private func isWordStop(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: ";"),
        UInt8(ascii: "#"), UInt8(ascii: "\""), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["),
        UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"):
        true
    default: false
    }
}

private func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
    default: nil
    }
}
