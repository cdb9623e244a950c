import Foundation
import KCSBuiltins
import KCSRuntime
import KCSSyntax

/// Exit codes (STYLE habit 10, docs/language.md): 0 ok, 64 usage, 65 script error (parse),
/// 70 runtime error.
public enum ExitStatus {
    public static let ok: Int32 = 0
    public static let usage: Int32 = 64
    public static let scriptError: Int32 = 65
    public static let runtimeError: Int32 = 70
}

/// Runs, checks and prints `.kcs` text: the one path every batch input takes (`kcs FILE`,
/// `kcs run`, `kcs -e`, piped standard input).
public final class ScriptRunner {
    public let interpreter: Interpreter
    private let errorOutput: (String) -> Void
    private let json: Bool

    public init(host: ScriptHost, json: Bool = false,
                errorOutput: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        interpreter = Interpreter(registry: Builtins.registry(), host: host)
        self.errorOutput = errorOutput
        self.json = json
    }

    /// Parses and runs `source`; reports errors on the error output and returns the exit code.
    /// `args` become the list `args` inside the script.
    public func run(_ source: Source, args: [String] = []) -> Int32 {
        interpreter.define("args", .list(args.map { .string($0) }))
        let (program, diagnostics) = interpreter.parse(source)
        if !diagnostics.isEmpty {
            report(diagnostics, source)
            return ExitStatus.scriptError
        }
        do {
            _ = try interpreter.run(program, source: source)
            return ExitStatus.ok
        } catch {
            if json {
                errorOutput(Value.map(ValueMap([("error", .string(error.id)), ("message", .string(error.message)),
                                                ("file", .string(source.name)),
                                                ("line", .int(error.location.line)),
                                                ("column", .int(error.location.column))])).json + "\n")
            } else {
                errorOutput(error.rendered)
            }
            return ExitStatus.runtimeError
        }
    }

    /// Every syntax error and every unknown command, without running anything.
    public func check(_ source: Source) -> (diagnostics: [Diagnostic], exitCode: Int32) {
        let (program, syntax) = interpreter.parse(source)
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
        let (program, diagnostics) = interpreter.parse(source)
        if !diagnostics.isEmpty {
            report(diagnostics, source)
            return (nil, ExitStatus.scriptError)
        }
        return (ASTPrinter.print(program), ExitStatus.ok)
    }

    private func report(_ diagnostics: [Diagnostic], _ source: Source) {
        if json {
            let lines = LineTable(source)
            for d in diagnostics {
                let loc = lines.location(of: d.range.start)
                errorOutput(Value.map(ValueMap([("error", .string(d.id)), ("message", .string(d.message)),
                                                ("file", .string(source.name)), ("line", .int(loc.line)),
                                                ("column", .int(loc.column))])).json + "\n")
            }
        } else {
            errorOutput(DiagnosticRenderer.render(diagnostics, source: source))
        }
    }
}
