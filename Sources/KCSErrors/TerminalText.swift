/// Text that came from someone else (a signing request's message or origin, a typed-data
/// field, a peer's name) made safe to print on a terminal: nothing in it can move the cursor,
/// draw over other lines, set the window title, recolour the screen or reverse the reading
/// order. C0 and C1 control characters, DEL, the bidirectional overrides, embeddings and
/// isolates, and invisible format characters (zero-width spaces and joiners, the byte-order
/// mark) are written as `\u{…}` escapes; `\n` and `\t` as those two characters when `lines`
/// allows them, else escaped too. A backslash is doubled, so an escape written by the sender
/// cannot pass for one kcs wrote.
public enum TerminalText {
    /// True for a scalar that is never printed as itself.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // Bidirectional marks, embeddings, overrides and isolates (Unicode 15, UAX #9).
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        // Zero-width and invisible format characters, the byte-order mark, interlinear annotation.
        case 0x200B...0x200D, 0x2060...0x2064, 0xFEFF, 0xFFF9...0xFFFB: true
        default: false
        }
    }

    /// `text` with every unsafe character escaped (see the type's comment).
    public static func safe(_ text: String, lines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0) || $0 == "\\" }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                out.append(contentsOf: "\\\\".unicodeScalars)
            } else if lines && (scalar == "\n" || scalar == "\t") {
                out.append(scalar)
            } else if isUnsafe(scalar) {
                let name: String =
                    switch scalar {
                    case "\n": "\\n"
                    case "\t": "\\t"
                    case "\r": "\\r"
                    case "\u{1B}": "\\e"
                    default: "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                    }
                out.append(contentsOf: name.unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// True when `text` has nothing `safe` would escape but new lines and tabs.
    public static func isPlain(_ text: String) -> Bool {
        !text.unicodeScalars.contains { isUnsafe($0) && $0 != "\n" && $0 != "\t" }
    }
}
