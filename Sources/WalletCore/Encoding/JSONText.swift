import Foundation

/// JSON text from a file or a person (keystore files, EIP-712 documents), parsed by Foundation's
/// `JSONSerialization`, with failures that say where. Foundation's own message is "The data is
/// not in the correct format", its debug text an offset ("around character 12"); here it
/// becomes a line and a column. Arrays and objects nested deeper than `maximumDepth` (the
/// limit Foundation enforces) are refused by a scan before Foundation sees the text, with the
/// line and column of the bracket that goes too deep.
public enum JSONText {
    /// The deepest nesting of arrays and objects accepted (Foundation's JSONSerialization limit).
    public static let maximumDepth = 512

    /// Why the text is not JSON, with its 1-based line and column (in characters).
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Parses `bytes` as one JSON value (objects and arrays only at the top, as
    /// `JSONSerialization` by default).
    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> Any {
        if let offset = tooDeepOffset(bytes) {
            throw ParseError(description: "arrays and objects must nest at most \(maximumDepth) levels deep,"
                + " got more at \(position(of: offset, in: bytes))")
        }
        do {
            return try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            let ns = error as NSError
            var text = ns.userInfo[NSDebugDescriptionErrorKey] as? String ?? ns.localizedDescription
            if text.hasSuffix(".") { text.removeLast() }
            // "Invalid value around character 12" → "invalid value at line 1, column 13".
            if let r = text.range(of: #"around character \d+$"#, options: .regularExpression),
               let offset = Int(text[r].dropFirst("around character ".count)) {
                text.replaceSubrange(r, with: "at " + position(of: offset, in: bytes))
            }
            if let first = text.first, first.isUppercase { text = first.lowercased() + text.dropFirst() }
            throw ParseError(description: text)
        }
    }

    /// The offset of the first `[` or `{` that opens level `maximumDepth + 1`, outside strings.
    private static func tooDeepOffset(_ bytes: [UInt8]) -> Int? {
        var depth = 0, inString = false, escaped = false
        for (i, b) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
                continue
            }
            switch b {
            case 0x22: inString = true
            case 0x5B, 0x7B:
                depth += 1
                if depth > maximumDepth { return i }
            case 0x5D, 0x7D: depth -= 1
            default: break
            }
        }
        return nil
    }

    /// "line L, column C" of the 0-based byte `offset` (columns count characters, not bytes).
    static func position(of offset: Int, in bytes: [UInt8]) -> String {
        var line = 1, column = 1
        for b in bytes.prefix(min(offset, bytes.count)) {
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
        }
        return "line \(line), column \(column)"
    }
}
