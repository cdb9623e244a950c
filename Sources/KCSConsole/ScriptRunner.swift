import Foundation
import KCSBuiltins
import KCSErrors
import KCSRuntime
import KCSSyntax
import WalletSession

/// Exit codes (docs/habits.md §10, docs/language.md §7, docs/card-console.md): 0 ok, 64 usage,
/// 65 script error (parse), 70 runtime error; an uncaught card error gets its own code so a
/// script's caller can tell them apart (docs/card-console.md): 69 no reader or card, 75 cancelled,
/// 76 other card error, 77 wrong PIN or PUK, 78 PIN or PUK blocked, 130 Ctrl-C at a prompt; 69 also when the Ethereum
/// node does not answer.
public enum ExitStatus {
    public static let ok: Int32 = 0
    public static let usage: Int32 = 64
    public static let scriptError: Int32 = 65
    /// No reader, no card, or the connection to it was lost; or no answer from the Ethereum node
    /// (sysexits EX_UNAVAILABLE).
    public static let noCard: Int32 = 69
    public static let runtimeError: Int32 = 70
    /// The person cancelled (declined a confirmation, typed the wrong reset UID).
    public static let cancelled: Int32 = 75
    /// Ctrl-C (at a prompt of a batch run; elsewhere SIGINT ends it): 128 + SIGINT, as a shell
    /// reports a run that SIGINT ended.
    public static let interrupted: Int32 = 130
    /// Any other card error: a status word, a refused pairing, no free slot, a blank card.
    public static let cardError: Int32 = 76
    /// A wrong PIN or PUK (tries left in the message), or one kcs refused to send with one try left.
    public static let wrongPIN: Int32 = 77
    /// The PIN or the PUK is blocked.
    public static let blocked: Int32 = 78

    /// The exit code of a run stopped by the uncaught `error`: the class the error states
    /// (docs/architecture.md, "Errors"), never its id.
    public static func code(for error: RuntimeError) -> Int32 { code(for: error.exitClass) }

    /// The exit code of each class (docs/card-console.md, "Exit codes").
    public static func code(for exitClass: ExitClass) -> Int32 {
        switch exitClass {
        case .runtimeError: runtimeError
        case .noCard: noCard
        case .cancelled: cancelled
        case .interrupted: interrupted
        case .cardError: cardError
        case .wrongPIN: wrongPIN
        case .blocked: blocked
        }
    }
}

/// Parses, checks and prints `.kcs` text, and shows its errors (as text or `--json`): every
/// console path (`InputLoop`, `kcs check`, `kcs parse`) parses and reports through here.
public final class ScriptRunner {
    public let interpreter: Interpreter
    private let errorOutput: (String) -> Void
    private let json: Bool
    private weak var host: (any ScriptHost)?
    /// The console's host, when the runner has one (its session, for checks before a run).
    var consoleHost: ConsoleHost? { host as? ConsoleHost }

    public init(
        host: ScriptHost, json: Bool = false,
        errorOutput: @escaping (String) -> Void = { StandardStreams.err($0) }
    ) {
        interpreter = Interpreter(registry: Builtins.registry(), host: host)
        self.errorOutput = errorOutput
        self.json = json
        self.host = host
        let registry = interpreter.registry
        let commands = interpreter.commandTable
        (host as? ConsoleHost)?.markSecrets = { source in
            HistoryRedaction.marked(
                source, program: Parser.parse(source: source, commands: commands).program, registry: registry)
        }
    }

    /// Parses `source` after marking its secret ranges (`HistoryRedaction.marked`), so that no
    /// error about it shows a secret; every console path parses through here.
    public func parse(_ source: Source) -> (source: Source, program: Program, diagnostics: [Diagnostic]) {
        let (program, diagnostics) = interpreter.parse(source)
        return (HistoryRedaction.marked(source, program: program, registry: interpreter.registry), program, diagnostics)
    }

    /// True when `source` writes secret text literally (`Builtins.literalSecretRanges`), not
    /// when it reads a secret from the environment or a file.
    public func holdsLiteralSecret(_ source: Source) -> Bool {
        let (program, _) = interpreter.parse(source)
        return !Builtins.literalSecretRanges(in: source, program: program, registry: interpreter.registry).isEmpty
    }

    /// When the runner goes away the run is over (`kcs run FILE` included): the session frees
    /// an ephemeral card pairing and lets go of the card. `Session.close()` is idempotent, so
    /// the console's own call at exit does no harm.
    deinit {
        (host?.context as? Session)?.close()
    }

    /// Every syntax error and every unknown command, without running anything.
    public func check(_ source: Source) -> (diagnostics: [Diagnostic], exitCode: Int32) {
        let (source, program, syntax) = parse(source)
        var all = syntax
        let table = interpreter.commandTable
        for c in program.commands where !table.contains(c.name) {
            all.append(Diagnostic(.unknownCommand(c.name, suggestion: table.suggestion(for: c.name)), at: c.nameRange))
        }
        all.sort { $0.range.start < $1.range.start }
        if !all.isEmpty { report(all, source) }
        return (all, all.isEmpty ? ExitStatus.ok : ExitStatus.scriptError)
    }

    /// The AST in its stable text form, or the diagnostics.
    public func parseTree(_ source: Source) -> (text: String?, exitCode: Int32) {
        let (source, program, diagnostics) = parse(source)
        if !diagnostics.isEmpty {
            report(diagnostics, source)
            return (nil, ExitStatus.scriptError)
        }
        return (ASTPrinter.print(program), ExitStatus.ok)
    }

    /// `check(_:)` of a script given as bytes (a file's contents) named `name`.
    public func check(name: String, bytes: [UInt8]) -> (diagnostics: [Diagnostic], exitCode: Int32) {
        check(Source(name: name, bytes: bytes))
    }

    /// `parseTree(_:)` of a script given as bytes (a file's contents) named `name`.
    public func parseTree(name: String, bytes: [UInt8]) -> (text: String?, exitCode: Int32) {
        parseTree(Source(name: name, bytes: bytes))
    }

    /// Shows syntax errors (from `parse`, so secrets are marked).
    func report(_ diagnostics: [Diagnostic], _ source: Source) {
        if json {
            let lines = LineTable(source)
            for d in diagnostics {
                let loc = lines.location(of: d.range.start)
                errorOutput(
                    jsonError(d.id, source.redacting(d.message), file: source.name, loc.line, loc.column, hint: d.hint))
            }
        } else {
            errorOutput(DiagnosticRenderer.render(diagnostics, source: source))
        }
    }

    /// Shows the error that stopped a run of `source`.
    func report(_ error: RuntimeError, _ source: Source) {
        if json {
            errorOutput(
                jsonError(
                    error.id, source.redacting(error.message), file: source.name,
                    error.location.line, error.location.column, hint: error.hint))
        } else {
            errorOutput(error.rendered)
        }
    }

    /// Shows a meta-command's error; `location` is its file and line in a script (nil at the
    /// prompt, where the message stands alone).
    func report(meta id: String, _ message: String, at location: (file: String, line: Int)?) {
        if json {
            errorOutput(jsonError(id, message, file: location?.file ?? "<stdin>", location?.line ?? 1, 1))
        } else {
            errorOutput((location.map { "\($0.file):\($0.line): error: " } ?? "") + message + "\n")
        }
    }

    /// One `--json` error line, with the hint the text shows when there is one.
    private func jsonError(
        _ id: String, _ message: String, file: String, _ line: Int, _ column: Int, hint: String? = nil
    ) -> String {
        Value.map(
            ValueMap(
                [
                    ("error", .string(id)), ("message", .string(message)), ("file", .string(file)),
                    ("line", .int(line)), ("column", .int(column)),
                ] + (hint.map { [("hint", Value.string($0))] } ?? []))
        ).json + "\n"
    }
}
