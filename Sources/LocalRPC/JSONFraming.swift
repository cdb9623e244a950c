// JSON texts on a stream (the local signer's Unix socket: what geth's, web3.py's and alloy's IPC
// clients send, one JSON value after another, with or without newlines between them), and the
// nesting bound every request body is held to before it is parsed.

public enum JSONFraming {
    /// The end (exclusive) of the first complete JSON object or array in `bytes` after leading
    /// white space; nil while it is incomplete. Throws when the text cannot be JSON (it does not
    /// start with `{` or `[`) or nests deeper than `maximumDepth`.
    public static func firstValueEnd(_ bytes: [UInt8], maximumDepth: Int) throws(JSONFramingError) -> Int? {
        var i = 0
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        guard i < bytes.count else { return nil }
        guard bytes[i] == UInt8(ascii: "{") || bytes[i] == UInt8(ascii: "[") else { throw .notJSON }
        var depth = 0
        var inString = false
        var escaped = false
        while i < bytes.count {
            let b = bytes[i]
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if b == UInt8(ascii: "\"") {
                inString = true
            } else if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                depth += 1
                if depth > maximumDepth { throw .tooDeep(maximumDepth) }
            } else if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { return i + 1 }
            }
            i += 1
        }
        return nil
    }

    /// The bytes left after white space is skipped from the start.
    public static func isBlank(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
    }

    /// True when `bytes` nests arrays and objects deeper than `maximumDepth` anywhere.
    public static func nestsDeeper(_ bytes: [UInt8], than maximumDepth: Int) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for b in bytes {
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == 0x22 {
                    inString = false
                }
            } else if b == 0x22 {
                inString = true
            } else if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                depth += 1
                if depth > maximumDepth { return true }
            } else if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
                depth -= 1
            }
        }
        return false
    }
}

public enum JSONFramingError: Error, Equatable {
    case notJSON
    case tooDeep(Int)
}
