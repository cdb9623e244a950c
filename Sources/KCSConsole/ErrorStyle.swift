import Foundation
import KCSErrors

/// Colour for diagnostics on a terminal: `error:` in bold red, the caret line in green,
/// `hint:` in cyan. Off when standard error is not a terminal, when `NO_COLOR` is set to
/// anything (https://no-color.org), with `--no-color`, and for `TERM=dumb`.
public struct ErrorStyle: Sendable {
    public let enabled: Bool

    public init(enabled: Bool) { self.enabled = enabled }

    /// The style for this process: `noColorFlag` is `--no-color`.
    public static func forStandardError(
        noColorFlag: Bool,
        environment: ProcessEnvironment = .current
    ) -> ErrorStyle {
        ErrorStyle(
            enabled: !noColorFlag && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
                && isatty(STDERR_FILENO) == 1)
    }

    private static let red = "\u{1B}[1;31m", green = "\u{1B}[1;32m", cyan = "\u{1B}[36m", bold = "\u{1B}[1m"
    private static let reset = "\u{1B}[0m"

    /// `text` (rendered diagnostics) with colour, or unchanged when disabled.
    public func apply(_ text: String) -> String {
        guard enabled else { return text }
        var out: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            out.append(Substring(style(line)))
        }
        return out.joined(separator: "\n")
    }

    private func style(_ line: Substring) -> String {
        if let r = line.range(of: "error: ") {
            let position = line[..<r.lowerBound]
            return (position.isEmpty ? "" : ErrorStyle.bold + position + ErrorStyle.reset)
                + ErrorStyle.red + "error:" + ErrorStyle.reset + " " + line[r.upperBound...]
        }
        if let bar = line.firstIndex(of: "|") {
            let marks = line[line.index(after: bar)...]
            if marks.contains("^"), marks.allSatisfy({ $0 == " " || $0 == "^" || $0 == "~" }) {
                return line[...bar] + ErrorStyle.green + marks + ErrorStyle.reset
            }
        }
        if let r = line.range(of: "hint: "), line[..<r.lowerBound].allSatisfy({ $0 == " " }) {
            return line[..<r.lowerBound] + ErrorStyle.cyan + "hint:" + ErrorStyle.reset + " " + line[r.upperBound...]
        }
        return String(line)
    }
}
