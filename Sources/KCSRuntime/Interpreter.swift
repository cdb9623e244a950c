// The tree-walking interpreter's public face.
//
// One `Interpreter` is one session's language state: its globals survive from one `run` to
// the next (the REPL runs each entry as its own program), `_` holds the last expression
// value, and modules loaded by `use` stay loaded. Everything outside — output, terminal,
// files — goes through the `Host`.
import KCSSyntax

/// Runs parsed kcs programs against a builtin registry.
///
/// Not thread-safe: use one interpreter from one thread at a time.
public final class Interpreter {
    /// The builtins commands and calls resolve to.
    public let registry: BuiltinRegistry
    /// Output, input, modules.
    public let host: any ScriptHost
    private let env: Environment

    /// Creates an interpreter with no globals.
    ///
    /// - Parameters:
    ///   - registry: the builtins; also the command table used to parse `use`d modules.
    ///   - host: where output goes and modules and secrets come from.
    ///   - recursionLimit: maximum depth of script function calls (`runtime.recursionLimit`).
    ///   - nativeStackBudget: bytes of the calling thread's stack that script calls may use;
    ///     beyond it a call fails with `runtime.stackOverflow` instead of crashing. A release
    ///     build uses about 2.5 KB per script call, so 1000 calls need about 3 MB: run scripts
    ///     on the main thread (8 MB) or on a thread with a stack larger than this budget.
    public init(
        registry: BuiltinRegistry, host: any ScriptHost, recursionLimit: Int = 1000,
        nativeStackBudget: Int = 6 << 20
    ) {
        self.registry = registry
        self.host = host
        env = Environment(
            registry: registry, host: host, recursionLimit: recursionLimit,
            nativeStackBudget: nativeStackBudget)
    }

    /// With `true`, `print` writes each statement's values as one JSON document on its own
    /// line (one value as itself, several as an array): `kcs --json` (docs/language.md §10).
    public var printsJSON: Bool {
        get { env.printsJSON }
        set { env.printsJSON = newValue }
    }

    /// The command names programs for this interpreter must be parsed with.
    public var commandTable: CommandTable { env.commandTable }

    /// Parses `source` with this interpreter's command table.
    public func parse(_ source: Source) -> (program: Program, diagnostics: [Diagnostic]) {
        Parser.parse(source: source, commands: env.commandTable)
    }

    /// Runs `program` (parsed from `source` without errors) and returns the value of its last
    /// top-level expression or command statement, or `nil` if it had none. Globals it declares
    /// stay declared for later runs; when it has an expression statement, `_` is set to the value.
    ///
    /// - Throws: the first uncaught `RuntimeError`, with `source` set and the script frames
    ///   that were active, innermost first. Globals declared before the error stay declared.
    @discardableResult
    public func run(_ program: Program, source: Source) throws(RuntimeError) -> Value {
        try evaluate(program, source: source) ?? .null
    }

    /// Runs `program` as `run` does, handing `show` the value of each top-level expression or
    /// command statement as it finishes: a batch run that shows values the way the prompt does
    /// (docs/language.md §10).
    public func run(_ program: Program, source: Source, showing show: @escaping (Value) -> Void) throws(RuntimeError) {
        env.show = show
        defer { env.show = nil }
        _ = try evaluate(program, source: source)
    }

    /// Like `run`, but returns nil when the program's last statement is not an expression or
    /// a command (so the REPL shows nothing after `let x = 1`).
    public func evaluate(_ program: Program, source: Source) throws(RuntimeError) -> Value? {
        env.lastResult = nil
        if env.depth == 0 { env.nativeStackBase = Environment.stackAddress() }
        let compiled = Compiler.compile(program, unit: Unit(source: source), env: env, recordsResults: true)
        do throws(RuntimeError) {
            try compiled.run(env)
        } catch {
            var e = error
            if e.source == nil { e.source = source }
            env.top = 0
            env.depth = 0
            throw e
        }
        guard let result = env.lastResult else { return nil }
        env.lastResult = nil
        env.defineGlobal("_", result)
        switch program.statements.last?.kind {
        case .expression?, .command?: return result
        default: return nil
        }
    }

    /// Declares (or replaces) global `name`, e.g. `args` for a script's arguments.
    public func define(_ name: String, _ value: Value) { env.defineGlobal(name, value) }

    /// The value of global `name`, or nil when it is not declared.
    public func global(_ name: String) -> Value? { env.global(name) }

    /// Names of the declared globals, sorted (for completion).
    public var globalNames: [String] { env.definedGlobalNames }
}
