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
/// views always agree.
public struct Source: Sendable, Equatable {
    /// The name shown in diagnostics, e.g. `wallet.kcs` or `<stdin>`.
    public let name: String
    /// The program text.
    public let text: String
    /// The UTF-8 bytes of `text`; `SourceRange` offsets index this array.
    public let utf8: [UInt8]

    /// Creates a source from text.
    public init(name: String, text: String) {
        self.name = name
        self.text = text
        self.utf8 = Array(text.utf8)
    }

    /// Creates a source from raw bytes, replacing invalid UTF-8 with U+FFFD.
    public init(name: String, bytes: [UInt8]) {
        self.init(name: name, text: String(decoding: bytes, as: UTF8.self))
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
