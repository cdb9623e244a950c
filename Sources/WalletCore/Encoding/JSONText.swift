import Foundation
import KCSErrors

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
        if let offset = tooDeepOffset(bytes, maximumDepth: maximumDepth) {
            throw ParseError(
                description: "arrays and objects must nest at most \(maximumDepth) levels deep,"
                    + " got more at \(position(of: offset, in: bytes))")
        }
        if let (offset, key) = duplicateKey(bytes) {
            throw ParseError(
                description: "an object must not name a key twice (readers disagree on which value counts),"
                    + " got \(JSONString.quoted(key)) again at \(position(of: offset, in: bytes))")
        }
        do {
            return try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            let ns = error as NSError
            var text = ns.userInfo[NSDebugDescriptionErrorKey] as? String ?? ns.localizedDescription
            if text.hasSuffix(".") { text.removeLast() }
            // "Invalid value around character 12" → "invalid value at line 1, column 13".
            if let r = text.range(of: #"around character \d+$"#, options: .regularExpression),
                let offset = Int(text[r].dropFirst("around character ".count))
            {
                text.replaceSubrange(r, with: "at " + position(of: offset, in: bytes))
            }
            if let first = text.first, first.isUppercase { text = first.lowercased() + text.dropFirst() }
            throw ParseError(description: text)
        }
    }

    /// The offset of the first `[` or `{` that opens level `maximumDepth + 1`, outside strings.
    /// The offset of the first `[` or `{` that nests deeper than `maximumDepth`, or nil: a bound
    /// checked before anything is parsed (the local signer holds requests to 64 levels).
    public static func tooDeepOffset(_ bytes: [UInt8], maximumDepth: Int) -> Int? {
        var depth = 0, inString = false, escaped = false
        for (i, b) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if b == 0x5C {
                    escaped = true
                } else if b == 0x22 {
                    inString = false
                }
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

    /// The first key that an object names twice, and the offset of its second occurrence. Keys
    /// are compared after their escapes are decoded and as Swift compares strings (canonically
    /// equivalent text is the same key), as the dictionary `JSONSerialization` fills would: a
    /// document with `"to"` twice is read one way by kcs and another by someone else, so kcs
    /// signs neither. Only the structure is followed here; what is not JSON fails afterwards.
    static func duplicateKey(_ bytes: [UInt8]) -> (Int, String)? {
        // One frame per open array or object: an object's keys so far, and whether the next
        // string in it is a key.
        struct Frame {
            var keys: Set<String>?
            var expectingKey: Bool
        }
        var stack: [Frame] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case 0x22:
                let start = i
                i += 1
                var raw: [UInt8] = []
                while i < bytes.count, bytes[i] != 0x22 {
                    if bytes[i] == 0x5C, i + 1 < bytes.count {
                        raw.append(bytes[i])
                        i += 1
                    }
                    raw.append(bytes[i])
                    i += 1
                }
                if var top = stack.last, top.keys != nil, top.expectingKey {
                    let key = decodeString(raw)
                    if top.keys!.contains(key) { return (start, key) }
                    top.keys!.insert(key)
                    top.expectingKey = false
                    stack[stack.count - 1] = top
                }
            case 0x7B: stack.append(Frame(keys: [], expectingKey: true))
            case 0x5B: stack.append(Frame(keys: nil, expectingKey: false))
            case 0x5D, 0x7D: if !stack.isEmpty { stack.removeLast() }
            case 0x2C: if stack.last?.keys != nil { stack[stack.count - 1].expectingKey = true }
            default: break
            }
            i += 1
        }
        return nil
    }

    /// The text of a JSON string's contents (between the quotes), escapes decoded; a lone
    /// surrogate becomes U+FFFD.
    static func decodeString(_ raw: [UInt8]) -> String {
        var units: [UInt16] = []
        var i = 0
        var plain: [UInt8] = []
        func flush() {
            units += String(decoding: plain, as: UTF8.self).utf16
            plain.removeAll()
        }
        while i < raw.count {
            guard raw[i] == 0x5C, i + 1 < raw.count else {
                plain.append(raw[i])
                i += 1
                continue
            }
            flush()
            let e = raw[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): units.append(8)
            case UInt8(ascii: "f"): units.append(12)
            case UInt8(ascii: "n"): units.append(10)
            case UInt8(ascii: "r"): units.append(13)
            case UInt8(ascii: "t"): units.append(9)
            case UInt8(ascii: "u"):
                if i + 4 <= raw.count, let v = UInt16(String(decoding: raw[i..<(i + 4)], as: UTF8.self), radix: 16) {
                    units.append(v)
                    i += 4
                }
            default: units.append(UInt16(e))
            }
        }
        flush()
        return String(decoding: units, as: UTF16.self)
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
