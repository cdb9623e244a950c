import Foundation
import KCSBuiltins
import KCSErrors
import KCSRuntime
import KCSSyntax
import WalletSession

/// Where lines come from (docs/habits.md §10): a terminal or a pipe. The libedit reader (line
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
        if showPrompt { StandardStreams.out(prompt) }
        return Swift.readLine(strippingNewline: true).map(LineInput.line) ?? .end
    }
}

/// The one input loop of the console (docs/language.md §10), as sqlite3's shell has one: the
/// prompt, piped standard input, `kcs FILE`, `kcs -e CODE`, the init file and `.read FILE` all
/// come through here, so meta-commands, `.bail`, `--json` errors and exit codes are the same
/// for each. Every text is parsed by `ScriptRunner.parse` (secrets marked first) and every error
/// is shown by `ScriptRunner.report`.
///
/// At the prompt an unfinished statement (`parse.unexpectedEndOfInput`) continues on the next
/// line with a `...>` prompt, a bare expression prints its value, and each statement runs as it
/// is finished. A script runs as a whole, as it always has (nothing runs when it does not
/// parse), except that a line starting with `.` outside any unfinished statement is a
/// meta-command: the text between two meta-commands is parsed and run as one piece, with its
/// file's line numbers.
public final class InputLoop {
    /// How many `.read` files may be open inside each other: a file that reads itself stops here.
    public static let readDepthLimit = 16
    /// kcs's version, for `kcs --version` and the greeting.
    public static let version = BuildInfo.version

    public let runner: ScriptRunner
    private let output: (String) -> Void
    private let errorOutput: (String) -> Void

    /// Stop at the first error, with its exit code (`.bail on`): off by default at a prompt, on
    /// for a batch run.
    public var bail: Bool
    /// Show the value of each top-level expression or command statement of a script file, as
    /// the prompt does (`kcs --echo FILE`); `-e` code and piped standard input always show them.
    public var echo = false
    /// What the prompt shows besides `kcs` (the active key; the card once one is connected).
    public var context: () -> String? = { nil }
    /// Set when the session ends (`.quit`, or an error under `.bail on`).
    private var exitStatus: Int32?
    /// Set by Ctrl-C (`runtime.interrupted`): every `.read` under way stops, back to the prompt.
    private var interrupted = false
    /// `.read` files open now.
    private var depth = 0

    /// `interactive` chooses `.bail`'s default: off at a prompt, on for a batch run.
    public init(
        runner: ScriptRunner, interactive: Bool,
        output: @escaping (String) -> Void = { StandardStreams.out($0) },
        errorOutput: @escaping (String) -> Void = { StandardStreams.err($0) }
    ) {
        self.runner = runner
        self.bail = !interactive
        self.output = output
        self.errorOutput = errorOutput
    }

    // MARK: - Batch: a file, piped standard input, -e, the init file

    /// Runs a script; `args` become the list `args` inside it. Returns the exit code: the first
    /// error's (under `.bail off` the script goes on after it), else 0.
    /// `showing` shows the value of each top-level expression or command statement (`echo`
    /// when nil).
    public func run(_ source: Source, args: [String] = [], showing: Bool? = nil) -> Int32 {
        runner.interpreter.define("args", .list(args.map { .string($0) }))
        return run(script: source, showing: showing ?? echo)
    }

    /// `run(_:args:)` for a script given as bytes (a file's contents) named `name`.
    public func run(name: String, bytes: [UInt8], args: [String] = []) -> Int32 {
        run(Source(name: name, bytes: bytes), args: args)
    }

    /// Piped standard input: a script that shows its values as the prompt would (sqlite3 prints
    /// `select 1` the same way at a terminal and in a pipe; docs/language.md §10).
    public func run(standardInput bytes: [UInt8]) -> Int32 {
        run(Source(name: "<stdin>", bytes: bytes), showing: true)
    }

    /// `kcs -e CODE`: warns once when CODE holds a secret (`commandLineSecretWarning`), then runs it.
    public func run(commandLine code: String, args: [String] = []) -> Int32 {
        let source = Source(name: "<-e>", text: code)
        if runner.holdsLiteralSecret(source) { errorOutput(InputLoop.commandLineSecretWarning) }
        return run(source, args: args, showing: true)
    }

    /// Said once when a `-e` program holds secret text (`Builtins.literalSecretRanges`): a command line is
    /// in /proc/PID/cmdline, which every local user can read, and in the shell's history.
    public static let commandLineSecretWarning = """
        kcs: warning: this -e program holds a secret, and a command line can be read by every local user \
        (/proc/PID/cmdline) and stays in your shell's history; put it in a script file, read it with \
        `file.read PATH --secret KIND` or `env NAME --secret KIND`, or type it at the kcs prompt

        """

    /// The pieces of `source` (text between meta-commands) in order, each run as a whole.
    private func run(script source: Source, showing: Bool) -> Int32 {
        var firstError: Int32?
        func failed(_ status: Int32) -> Bool {
            firstError = firstError ?? status
            if bail { exitStatus = exitStatus ?? status }
            return exitStatus != nil || interrupted
        }
        for piece in pieces(of: source) {
            let status: Int32
            switch piece {
            case .program(let program): status = execute(program, printing: showing ? .each : .none)
            case .meta(let line, let location): status = meta(line, at: location)
            }
            if status != ExitStatus.ok, failed(status) { break }
            if exitStatus != nil { break }
        }
        return firstError ?? ExitStatus.ok
    }

    private enum Piece {
        case program(Source)
        /// A meta-command line and where it is (file name, line).
        case meta(String, (String, Int))
    }

    /// `source` cut at its meta-command lines: a line starting with `.` when the text before it
    /// is not an unfinished statement. A source without one (or with invalid UTF-8, which its
    /// parse reports) is one piece, exactly as given; a later piece is the source's text from
    /// its first line on, after as many empty lines as come before it, so positions stay the file's.
    private func pieces(of source: Source) -> [Piece] {
        // Cut at each LF, also the LF of a CRLF (which a `Character` split keeps whole).
        let lines = source.text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map(
            Substring.init)
        guard source.invalidUTF8 == nil, lines.contains(where: { $0.hasPrefix(".") }) else { return [.program(source)] }
        var pieces: [Piece] = []
        var pending: [Substring] = []
        var firstLine = 1
        func program() -> Source {
            Source(
                name: source.name, text: String(repeating: "\n", count: firstLine - 1) + pending.joined(separator: "\n")
            )
        }
        for (i, line) in lines.enumerated() {
            if line.hasPrefix("."),
                pending.allSatisfy({ $0.allSatisfy(\.isWhitespace) })
                    || !runner.interpreter.parse(program()).diagnostics.contains(where: {
                        $0.id == "parse.unexpectedEndOfInput"
                    })
            {
                if !pending.allSatisfy({ $0.allSatisfy(\.isWhitespace) }) { pieces.append(.program(program())) }
                // A CRLF file's meta-command ends at its CR.
                pieces.append(.meta(String(line.hasSuffix("\r") ? line.dropLast() : line), (source.name, i + 1)))
                pending = []
                firstLine = i + 2
            } else {
                pending.append(line)
            }
        }
        if !pending.allSatisfy({ $0.allSatisfy(\.isWhitespace) }) { pieces.append(.program(program())) }
        return pieces
    }

    // MARK: - Interactive: the prompt

    /// Runs the prompt until end of input or `.quit`; returns the exit code (0, or the error's
    /// under `.bail on`).
    public func run(reader: LineReader) -> Int32 {
        var pending = ""
        while exitStatus == nil {
            interrupted = false
            let line: String
            let prompt = pending.isEmpty ? (context().map { "kcs[\($0)]> " } ?? "kcs> ") : "...> "
            switch reader.readLine(prompt: prompt) {
            case .end:
                // Ctrl-D at a terminal: end the prompt's line, as a shell does.
                if reader is EditLineReader { output("\n") }
                return ExitStatus.ok
            case .interrupted:
                pending = ""
                continue
            case .line(let text): line = text
            }
            if pending.isEmpty, line.hasPrefix(".") {
                failed(meta(line, at: nil))
                continue
            }
            pending += pending.isEmpty ? line : "\n" + line
            let parsed = runner.parse(Source(name: "<stdin>", text: pending))
            if parsed.diagnostics.contains(where: { $0.id == "parse.unexpectedEndOfInput" }) { continue }
            pending = ""
            if let editor = reader as? EditLineReader,
                let safe = HistoryRedaction.redact(parsed.source, diagnostics: parsed.diagnostics)
            {
                editor.add(toHistory: safe)
            }
            failed(execute(parsed, printing: .last))
        }
        return exitStatus ?? ExitStatus.ok
    }

    /// After an error at the prompt: under `.bail on` the session ends with `status`.
    private func failed(_ status: Int32) {
        if status != ExitStatus.ok, bail { exitStatus = exitStatus ?? status }
    }

    // MARK: - One statement or script, one meta-command

    /// A shown value's line: its text, or with `--json` its JSON.
    private func shown(_ value: Value) -> String {
        (runner.interpreter.printsJSON ? value.json : value.text(on: runner.interpreter.host.display)) + "\n"
    }

    /// Which values of a run are shown.
    private enum Showing {
        /// None: a script file prints only what it `print`s.
        case none
        /// The last statement's, if it is an expression or a command: the prompt.
        case last
        /// Each top-level expression or command statement's, as it finishes: `-e`, a pipe, `--echo`.
        case each
    }

    /// Parses and runs `source`, reporting its errors; returns the exit code.
    private func execute(_ source: Source, printing: Showing) -> Int32 {
        execute(runner.parse(source), printing: printing)
    }

    /// `execute` for a source `ScriptRunner.parse` has already parsed and marked.
    private func execute(
        _ parsed: (source: Source, program: Program, diagnostics: [Diagnostic]), printing: Showing
    ) -> Int32 {
        let (source, program, diagnostics) = parsed
        if !diagnostics.isEmpty {
            runner.report(diagnostics, source)
            return ExitStatus.scriptError
        }
        // A batch run that would change a card and then stop for want of the vault passphrase
        // is refused before anything runs.
        if printing != .last, let host = runner.consoleHost,
            let refusal = Builtins.batchPrecheck(
                program, source: source, registry: runner.interpreter.registry, session: host.session)
        {
            runner.report(refusal, source)
            return ExitStatus.code(for: refusal)
        }
        do {
            switch printing {
            case .none: _ = try runner.interpreter.run(program, source: source)
            case .last:
                if let value = try runner.interpreter.evaluate(program, source: source) { output(shown(value)) }
            case .each:
                // A statement whose value is nil shows nothing (`vault.change-passphrase`,
                // `card.unblock`): as sqlite3 prints nothing for a statement without rows.
                try runner.interpreter.run(program, source: source) { [self] value in
                    if case .null = value { return }
                    output(shown(value))
                }
            }
            return ExitStatus.ok
        } catch {
            runner.report(error, source)
            if error.id == "runtime.interrupted" { interrupted = true }
            return ExitStatus.code(for: error)
        }
    }

    /// The file name after a meta-command's word: the rest of the line, spaces included (quotes
    /// around it dropped), with a leading `~` for the home folder; nil when there is none.
    public static func fileArgument(
        of line: String,
        home: String = ProcessEnvironment.current.homeDirectory
    ) -> String? {
        guard let space = line.firstIndex(of: " ") else { return nil }
        var name = line[space...].trimmingCharacters(in: .whitespaces)
        if name.count >= 2, let q = name.first, q == "\"" || q == "'", name.last == q {
            name = String(name.dropFirst().dropLast())
        }
        if name == "~" || name.hasPrefix("~/") { name = home + name.dropFirst() }
        return name.isEmpty ? nil : name
    }

    /// Handles a meta-command; returns its exit code (64 when it is wrong). `location` is the
    /// file and line of a meta-command in a script, nil at the prompt.
    private func meta(_ line: String, at location: (String, Int)?) -> Int32 {
        let words = line.split(separator: " ").map(String.init)
        func usage(_ id: String, _ message: String) -> Int32 {
            runner.report(meta: id, message, at: location)
            return ExitStatus.usage
        }
        switch words.first {
        case ".quit", ".exit":
            exitStatus = exitStatus ?? ExitStatus.ok
        case ".read":
            guard let name = InputLoop.fileArgument(of: line) else {
                return usage("meta.usage", ".read needs one file name, got 0")
            }
            guard depth < InputLoop.readDepthLimit else {
                return usage(
                    "meta.readDepth",
                    ".read \(name): more than \(InputLoop.readDepthLimit) files read inside each other (does a file .read itself?)"
                )
            }
            guard let data = FileManager.default.contents(atPath: name) else {
                return usage("meta.read", ".read: cannot read \(name)")
            }
            depth += 1
            defer { depth -= 1 }
            return run(script: Source(name: name, bytes: Array(data)), showing: echo)
        case ".bail":
            switch words.dropFirst().first {
            case "on": bail = true
            case "off": bail = false
            case nil: output("bail is \(bail ? "on" : "off")\n")
            case let other?: return usage("meta.usage", ".bail takes on or off, got \(other)")
            }
        case ".help":
            let topic = words.count > 1 ? words[1] : nil
            guard let text = runner.interpreter.registry.help(topic) else {
                return usage("meta.help", "no command or namespace \(topic ?? "")")
            }
            output(text + (topic == nil ? "\n" + InputLoop.metaHelp : "") + "\n")
        default:
            return usage("meta.unknown", "unknown meta-command \(words.first ?? line); try .help or .quit")
        }
        return ExitStatus.ok
    }

    static let metaHelp = """
        meta-commands: .help [COMMAND], .read FILE, .bail on|off, .quit
        keys: Tab completes, Ctrl-C cancels the line or stops a running loop, Ctrl-D leaves
        """
}

extension InputLoop {
    /// The console at a terminal: the greeting and the session's startup notice, then the prompt
    /// with libedit (completion; history without secrets, `HistoryRedaction`) and Ctrl-C routed
    /// to `Interrupt`, so it stops a running loop instead of kcs. Returns the exit code.
    public func runTerminal(host: ConsoleHost) -> Int32 {
        output("kcs \(InputLoop.version) — type help or .help, Tab completes, .quit leaves\n")
        let session = host.session
        if let notice = session.startupNotice() { output(notice + "\n") }
        let interpreter = runner.interpreter
        let completer = Completer(
            registry: interpreter.registry, variables: { interpreter.globalNames },
            extraWords: { session.keyNames() })
        let reader: LineReader =
            EditLineReader(historyFile: EditLineReader.defaultHistoryFile(), completer: completer)
            ?? PlainLineReader()
        Interrupt.install()
        host.watchesInterrupt = true
        context = { session.card?.promptLabel ?? session.activeKey }
        return run(reader: reader)
    }
}
