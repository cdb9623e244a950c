// Source text, byte ranges and the line table.
//
// Every token and AST node carries a `SourceRange` of UTF-8 byte offsets. Offsets are cheap to
// store and compare; they are turned into `line:col` only when something is printed, through a
// `LineTable` built on demand from the `Source`.
import Foundation

// MARK: - Source

/// A named piece of program text: a script file, one REPL entry, or a `-e` argument.
///
/// The text is kept both as a `String` and as its UTF-8 bytes; all offsets in this module index
/// the bytes. Invalid UTF-8 given to `init(name:bytes:)` is replaced by U+FFFD first, so the two
/// views always agree, and the place of the first invalid byte is kept so the parser refuses
/// the text with its line and column (docs/language.md §1).
public struct Source: Sendable, Equatable {
    /// The name shown in diagnostics, e.g. `wallet.kcs` or `<stdin>`.
    public let name: String
    /// The program text.
    public let text: String
    /// The UTF-8 bytes of `text`; `SourceRange` offsets index this array.
    public let utf8: [UInt8]
    /// Where the first invalid UTF-8 sequence was (an offset into `utf8`, at its U+FFFD), when
    /// the source was made from bytes that were not valid UTF-8.
    public let invalidUTF8: Int?
    /// The first byte of that invalid sequence.
    public let invalidUTF8Byte: UInt8?
    /// Byte ranges whose text must never be shown (secret literals, secret arguments): error
    /// excerpts print `<secret>` in their place. The console fills this in.
    public var secretRanges: [SourceRange] = []

    /// Creates a source from text.
    public init(name: String, text: String) {
        self.name = name
        self.text = text
        self.utf8 = Array(text.utf8)
        self.invalidUTF8 = nil
        self.invalidUTF8Byte = nil
    }

    /// Creates a source from raw bytes: a UTF-8 byte-order mark at the start is skipped, and
    /// invalid UTF-8 is replaced by U+FFFD (its first place is kept in `invalidUTF8`).
    public init(name: String, bytes: [UInt8]) {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        self.name = name
        if let text = String(validating: body, as: UTF8.self) {
            self.text = text
            self.utf8 = body
            self.invalidUTF8 = nil
            self.invalidUTF8Byte = nil
        } else {
            self.text = String(decoding: body, as: UTF8.self)
            self.utf8 = Array(text.utf8)
            // The valid prefix decodes to the same bytes, so the offset of the first bad byte
            // is the offset of its replacement character.
            var valid = 0
            var decoder = UTF8()
            var iterator = body.makeIterator()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let s): valid += UTF8.width(s)
                case .emptyInput, .error: break loop
                }
            }
            self.invalidUTF8 = valid
            self.invalidUTF8Byte = body[valid]
        }
    }

    /// `message` with the text of every secret range replaced by `<secret>`: a message that
    /// quotes an argument (a malformed key, a phrase with a typo) must not show it either. A
    /// string literal's text is matched with and without its quotes.
    public func redacting(_ message: String) -> String {
        guard !secretRanges.isEmpty else { return message }
        var out = message
        var texts: [String] = []
        for r in secretRanges {
            let t = text(in: r)
            texts.append(t)
            if t.count >= 2, t.first == "\"", t.last == "\"" { texts.append(String(t.dropFirst().dropLast())) }
        }
        // Longest first, so a literal is not cut into by a shorter one it contains.
        for t in texts.sorted(by: { $0.utf8.count > $1.utf8.count }) where t.utf8.count >= 8 {
            out = out.replacingOccurrences(of: t, with: "<secret>")
        }
        return out
    }

    /// The text covered by `range` (clamped to the source).
    public func text(in range: SourceRange) -> String {
        let lo = max(0, min(range.start, utf8.count))
        let hi = max(lo, min(range.end, utf8.count))
        return String(decoding: utf8[lo..<hi], as: UTF8.self)
    }
}

// MARK: - Ranges and locations

/// A half-open range `start..<end` of UTF-8 byte offsets into a `Source`.
public struct SourceRange: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Offset of the first byte.
    public var start: Int
    /// Offset one past the last byte; equal to `start` for an empty range (e.g. end of input).
    public var end: Int

    /// Creates `start..<end`; `end` must not be smaller than `start`.
    public init(start: Int, end: Int) {
        self.start = start
        self.end = max(start, end)
    }

    /// The smallest range covering both `self` and `other`.
    public func union(_ other: SourceRange) -> SourceRange {
        SourceRange(start: min(start, other.start), end: max(end, other.end))
    }

    /// `start..<end`, for debugging only; diagnostics use `line:col`.
    public var description: String { "\(start)..<\(end)" }
}

/// A 1-based line and column. Columns count Unicode scalars, so `é` is one column.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    /// 1-based column, in Unicode scalars from the start of the line.
    public var column: Int

    /// Creates a location.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:col`.
    public var description: String { "\(line):\(column)" }
}

// MARK: - Line table

/// Turns byte offsets into `line:col` and gives back whole lines for the diagnostic renderer.
///
/// Built in one pass over the bytes; lookups are a binary search. Lines end at `\n`; a `\r`
/// before it is kept out of `lineText`.
public struct LineTable: Sendable {
    private let utf8: [UInt8]
    /// Byte offset of the first byte of each line; `lineStarts[0] == 0`.
    private let lineStarts: [Int]

    /// Indexes the lines of `source`.
    public init(_ source: Source) {
        utf8 = source.utf8
        var starts = [0]
        for (i, b) in source.utf8.enumerated() where b == UInt8(ascii: "\n") { starts.append(i + 1) }
        lineStarts = starts
    }

    /// Number of lines (a text ending in `\n` has an empty last line).
    public var lineCount: Int { lineStarts.count }

    /// The location of a byte offset (clamped to the text; the end of the text is a valid offset).
    public func location(of offset: Int) -> SourceLocation {
        let offset = max(0, min(offset, utf8.count))
        // Last line start <= offset.
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        let start = lineStarts[lo]
        // Count scalars: every byte that is not a UTF-8 continuation byte starts one.
        var column = 1
        for i in start..<offset where utf8[i] & 0xC0 != 0x80 { column += 1 }
        return SourceLocation(line: lo + 1, column: column)
    }

    /// The byte range of a 1-based line, without its `\r\n` or `\n`.
    public func lineRange(_ line: Int) -> SourceRange {
        let index = max(0, min(line - 1, lineStarts.count - 1))
        let start = lineStarts[index]
        var end = index + 1 < lineStarts.count ? lineStarts[index + 1] - 1 : utf8.count
        if end > start, utf8[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return SourceRange(start: start, end: end)
    }

    /// The text of a 1-based line, without its line terminator.
    public func lineText(_ line: Int) -> String {
        let r = lineRange(line)
        return String(decoding: utf8[r.start..<r.end], as: UTF8.self)
    }
}
