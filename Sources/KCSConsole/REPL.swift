import Foundation
import KCSRuntime
import KCSSyntax

/// Where lines come from (STYLE habit 10): a terminal or a pipe. The libedit reader (line
/// editing, history without secrets, completion) plugs in here; this file has the plain one.
public protocol LineReader: AnyObject {
    /// The next line without its line break, Ctrl-C, or the end of input.
    func readLine(prompt: String) -> LineInput
}

/// What a line reader got.
public enum LineInput: Equatable {
    case line(String)
    /// Ctrl-C while the line was being typed: the line (and any unfinished block) is dropped.
    case interrupted
    /// Ctrl-D or the end of standard input.
    case end
}

/// Reads lines from standard input, printing the prompt only when a person is there.
public final class PlainLineReader: LineReader {
    private let showPrompt: Bool
    public init(showPrompt: Bool = isatty(STDIN_FILENO) == 1) { self.showPrompt = showPrompt }

    public func readLine(prompt: String) -> LineInput {
        if showPrompt { FileHandle.standardOutput.write(Data(prompt.utf8)) }
        return Swift.readLine(strippingNewline: true).map(LineInput.line) ?? .end
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

    /// Stop at the first error, with its exit code (`.bail on`); off by default at a prompt.
    public var bail = false
    /// What the prompt shows besides `kcs` (the active key; the card once one is connected).
    public var context: () -> String? = { nil }
    /// Set by a meta-command that ends the session (`.quit`, or an error under `.bail on`).
    private var exitStatus: Int32?

    /// Runs until end of input or `.quit`; returns the exit code.
    public func run() -> Int32 {
        var pending = ""
        while exitStatus == nil {
            let line: String
            let prompt = pending.isEmpty ? (context().map { "kcs[\($0)]> " } ?? "kcs> ") : "...> "
            switch reader.readLine(prompt: prompt) {
            case .end: return ExitStatus.ok
            case .interrupted:
                pending = ""
                continue
            case .line(let text): line = text
            }
            lineNumber += 1
            if pending.isEmpty, line.hasPrefix(".") {
                meta(line)
                continue
            }
            pending += pending.isEmpty ? line : "\n" + line
            let (source, program, diagnostics) = runner.parse(Source(name: "<stdin>", text: pending))
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
                failed(ExitStatus.scriptError)
                continue
            }
            do {
                if let value = try runner.interpreter.evaluate(program, source: source) {
                    output(value.text + "\n")
                }
            } catch {
                errorOutput(error.rendered)
                failed(ExitStatus.code(forRuntimeError: error.id))
            }
        }
        return exitStatus ?? ExitStatus.ok
    }

    /// After an error: under `.bail on` the session ends with `status`.
    private func failed(_ status: Int32) {
        if bail { exitStatus = status }
    }

    /// Handles a meta-command.
    private func meta(_ line: String) {
        let words = line.split(separator: " ").map(String.init)
        switch words.first {
        case ".quit", ".exit": exitStatus = ExitStatus.ok
        case ".read":
            guard words.count == 2 else {
                errorOutput(".read needs one file name, got \(words.count - 1)\n")
                return failed(ExitStatus.usage)
            }
            guard let data = FileManager.default.contents(atPath: words[1]) else {
                errorOutput(".read: cannot read \(words[1])\n")
                return failed(ExitStatus.usage)
            }
            let (source, program, diagnostics) = runner.parse(Source(name: words[1], bytes: Array(data)))
            if !diagnostics.isEmpty {
                errorOutput(DiagnosticRenderer.render(diagnostics, source: source))
                return failed(ExitStatus.scriptError)
            }
            do { _ = try runner.interpreter.run(program, source: source) } catch {
                errorOutput(error.rendered)
                failed(ExitStatus.code(forRuntimeError: error.id))
            }
        case ".bail":
            switch words.dropFirst().first {
            case "on": bail = true
            case "off": bail = false
            case nil: output("bail is \(bail ? "on" : "off")\n")
            case let other?: errorOutput(".bail takes on or off, got \(other)\n")
            }
        case ".help":
            let topic = words.count > 1 ? words[1] : nil
            if let text = runner.interpreter.registry.help(topic) {
                output(text + (topic == nil ? "\n" + REPL.metaHelp : "") + "\n")
            } else {
                errorOutput("no command or namespace \(topic ?? "")\n")
            }
        default:
            errorOutput("unknown meta-command \(words.first ?? line); try .help or .quit\n")
        }
    }

    static let metaHelp = """
        meta-commands: .help [COMMAND], .read FILE, .bail on|off, .quit
        keys: Tab completes, Ctrl-C cancels the line or stops a running loop, Ctrl-D leaves
        """
}
