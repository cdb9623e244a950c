import Foundation
import KCSRuntime
import KCSSyntax

/// Where lines come from (STYLE habit 10): a terminal or a pipe. The libedit reader (line
/// editing, history without secrets, completion) plugs in here; this file has the plain one.
public protocol LineReader: AnyObject {
    /// The next line without its line break, or nil at end of input.
    func readLine(prompt: String) -> String?
}

/// Reads lines from standard input, printing the prompt only when a person is there.
public final class PlainLineReader: LineReader {
    private let showPrompt: Bool
    public init(showPrompt: Bool = isatty(STDIN_FILENO) == 1) { self.showPrompt = showPrompt }

    public func readLine(prompt: String) -> String? {
        if showPrompt { FileHandle.standardOutput.write(Data(prompt.utf8)) }
        return Swift.readLine(strippingNewline: true)
    }
}

/// The read-eval-print loop: one interpreter for the whole session; an unfinished statement
/// (`parse.unexpectedEndOfInput`) continues on the next line with a `...>` prompt; a bare
/// expression prints its value; `_` is the last result; lines starting with `.` are
/// meta-commands (`.help [TOPIC]`, `.read FILE`, `.quit`); errors are shown and the session
/// goes on.
public final class REPL {
    private let runner: ScriptRunner
    private let reader: LineReader
    private let output: (String) -> Void
    private let errorOutput: (String) -> Void
    private var lineNumber = 0

    public init(runner: ScriptRunner, reader: LineReader,
                output: @escaping (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) },
                errorOutput: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.runner = runner
        self.reader = reader
        self.output = output
        self.errorOutput = errorOutput
    }

    /// Runs until end of input or `.quit`; returns the exit code.
    public func run() -> Int32 {
        var pending = ""
        while let line = reader.readLine(prompt: pending.isEmpty ? "kcs> " : "...> ") {
            lineNumber += 1
            if pending.isEmpty, line.hasPrefix(".") {
                if !meta(line) { return ExitStatus.ok }
                continue
            }
            pending += pending.isEmpty ? line : "\n" + line
            let source = Source(name: "<stdin>", text: pending)
            let (program, diagnostics) = runner.interpreter.parse(source)
            if diagnostics.contains(where: { $0.id == "parse.unexpectedEndOfInput" }) { continue }
            let entered = pending
            pending = ""
            if let editor = reader as? EditLineReader,
               let safe = HistoryRedaction.redact(entered, registry: runner.interpreter.registry,
                                                  commands: runner.interpreter.commandTable) {
                editor.add(toHistory: safe)
            }
            if !diagnostics.isEmpty {
                errorOutput(DiagnosticRenderer.render(diagnostics, source: source))
                continue
            }
            do {
                if let value = try runner.interpreter.evaluate(program, source: source) {
                    output(value.text + "\n")
                }
            } catch {
                errorOutput(error.rendered)
            }
        }
        return ExitStatus.ok
    }

    /// Handles a meta-command; false means quit.
    private func meta(_ line: String) -> Bool {
        let words = line.split(separator: " ").map(String.init)
        switch words.first {
        case ".quit", ".exit": return false
        case ".read":
            guard words.count == 2 else {
                errorOutput(".read needs one file name, got \(words.count - 1)\n")
                return true
            }
            guard let data = FileManager.default.contents(atPath: words[1]) else {
                errorOutput(".read: cannot read \(words[1])\n")
                return true
            }
            let source = Source(name: words[1], bytes: Array(data))
            let (program, diagnostics) = runner.interpreter.parse(source)
            if !diagnostics.isEmpty {
                errorOutput(DiagnosticRenderer.render(diagnostics, source: source))
                return true
            }
            do { _ = try runner.interpreter.run(program, source: source) } catch { errorOutput(error.rendered) }
        case ".help":
            let topic = words.count > 1 ? words[1] : nil
            output((runner.interpreter.registry.help(topic) ?? "no help for \(topic ?? "")") + "\n")
        default:
            errorOutput("unknown meta-command \(words.first ?? line); try .help or .quit\n")
        }
        return true
    }
}
