// JSON texts on a stream (the local signer's Unix socket: what geth's, web3.py's and alloy's IPC
// clients send, one JSON value after another, with or without newlines between them). Each text
// is cut out here and parsed, nesting bound included, by the handler.

public enum JSONFraming {
    /// The end (exclusive) of the first complete JSON object or array in `bytes` after leading
    /// white space; nil while it is incomplete. Throws when the text cannot be JSON (it does not
    /// start with `{` or `[`).
    public static func firstValueEnd(_ bytes: [UInt8]) throws(JSONFramingError) -> Int? {
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
}

public enum JSONFramingError: Error, Equatable {
    case notJSON
}
