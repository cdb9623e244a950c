// Runtime errors: one type, stable IDs, all message text here (docs/habits.md §2).
//
// A `RuntimeError` holds facts — what (`kind`), where (`range` in `source`), and the script
// frames that were active — and derives `id`, `message` and `hint` from them. Rendering
// follows the front end's diagnostics (`file:line:col: error: …`, source line, caret), then
// one `  at name (file:line:col)` line per script frame, innermost first.
import KCSErrors
import KCSSyntax

extension ArgumentError: IdentifiableError {
    /// Every sentence is about the call's arguments, after the command's name.
    public var followsCommandName: Bool { true }
}

/// What went wrong at run time, with the facts needed to explain it.
public enum RuntimeErrorKind: Sendable, Equatable {
    /// A name that is neither a variable here nor a global.
    case undefinedVariable(String, suggestion: String?)
    /// `print card.lee`: a command's name read as a variable's field.
    case commandAsValue(String)
    /// `f(x)` where `f` is no function and no builtin.
    case undefinedFunction(String, suggestion: String?)
    /// A command name the registry does not know.
    case unknownCommand(String, suggestion: String?)
    /// Calling something that is not a function.
    case notCallable(type: String)
    /// A script function called with the wrong number of arguments.
    case wrongArgumentCount(function: String, expected: Int, got: Int)
    /// A condition or a logical operand that is not a bool; `context` says which.
    case notABool(context: String, got: String)
    /// A binary operator applied to types it does not take.
    case invalidOperands(op: String, left: String, right: String)
    /// A unary operator applied to a type it does not take.
    case invalidOperand(op: String, type: String)
    /// `x / 0` or `x % 0`.
    case divisionByZero
    /// `for x in v` where `v` is not a list, map or range.
    case notIterable(type: String)
    /// `x.f` where the map or record has no `f`.
    case noSuchField(field: String, type: String, suggestion: String?, fields: [String] = [])
    /// `x.f` on a value without fields.
    case noFields(field: String, type: String)
    /// `m["k"]` where the map has no `k`.
    case missingKey(String)
    /// `x[i]` on a value that cannot be indexed.
    case notIndexable(type: String)
    /// An index of the wrong type, e.g. a string index on a list.
    case invalidIndexType(container: String, expected: String, got: String)
    /// A negative index (indexes count from 0; there is no counting from the end).
    case negativeIndex(Int)
    /// An index at or past the end.
    case indexOutOfRange(index: String, count: Int)
    /// A map key that is not a string.
    case invalidMapKey(type: String)
    /// Assigning to a field or element of a value that does not allow it.
    case notAssignable(type: String)
    /// Script recursion deeper than the interpreter allows.
    case recursionLimit(Int)
    /// The value stack is full (many locals at great depth).
    case stackOverflow
    /// `assert` failed; the message is the `why` text if one was given.
    case assertionFailed(String?)
    /// `use "name"` found no module.
    case moduleNotFound(String, reason: String)
    /// `use` chain that comes back to a module still loading.
    case moduleCycle([String])
    /// A module that does not parse; the diagnostic's ID and message are kept.
    case moduleSyntax(id: String, message: String)
    /// A secret argument left out where nobody can be asked for it.
    case secretNotSupplied(command: String, parameter: String, position: Int)
    /// Arguments that do not fit a builtin's table entry.
    case argument(ArgumentError, command: String)
    /// An error thrown by a builtin's body: its ID if it has one, and its text.
    case builtin(id: String?, command: String, message: String)
    /// The host asked to stop (Ctrl-C).
    case interrupted
    /// Ctrl-C at a prompt of `command`: it was cancelled before it changed anything, or `note`
    /// says what stays changed. Shown on one line, without the excerpt; same ID as `interrupted`.
    case promptCancelled(command: String, note: String?)

    /// True for both kinds of Ctrl-C, which no `try`/`catch` in a script may swallow.
    public var isInterruption: Bool {
        switch self {
        case .interrupted, .promptCancelled: true
        default: false
        }
    }

    /// Stable identifier, `runtime.*` or `call.*` (or the builtin's own). Never changes once
    /// published; tests and `try`/`catch` code match on it.
    public var id: String {
        switch self {
        case .undefinedVariable, .commandAsValue: "runtime.undefinedVariable"
        case .undefinedFunction: "runtime.undefinedFunction"
        case .unknownCommand: "runtime.unknownCommand"
        case .notCallable: "runtime.notCallable"
        case .wrongArgumentCount: "runtime.wrongArgumentCount"
        case .notABool: "runtime.notABool"
        case .invalidOperands, .invalidOperand: "runtime.invalidOperands"
        case .divisionByZero: "runtime.divisionByZero"
        case .notIterable: "runtime.notIterable"
        case .noSuchField, .noFields: "runtime.noSuchField"
        case .missingKey: "runtime.missingKey"
        case .notIndexable: "runtime.notIndexable"
        case .invalidIndexType: "runtime.invalidIndex"
        case .negativeIndex: "runtime.negativeIndex"
        case .indexOutOfRange: "runtime.indexOutOfRange"
        case .invalidMapKey: "runtime.invalidMapKey"
        case .notAssignable: "runtime.notAssignable"
        case .recursionLimit: "runtime.recursionLimit"
        case .stackOverflow: "runtime.stackOverflow"
        case .assertionFailed: "runtime.assertionFailed"
        case .moduleNotFound: "runtime.moduleNotFound"
        case .moduleCycle: "runtime.moduleCycle"
        case .moduleSyntax(let id, _): id
        case .secretNotSupplied: "runtime.secretNotSupplied"
        case .argument(let e, _): e.id
        case .builtin(let id, _, _): id ?? "runtime.builtinFailed"
        case .interrupted, .promptCancelled: "runtime.interrupted"
        }
    }

    /// One-line message, lower case, no final period.
    public var message: String {
        switch self {
        case .undefinedVariable(let n, _): "undefined variable `\(n)`"
        case .commandAsValue(let c): "`\(c)` is a command, not a variable's field"
        case .undefinedFunction(let n, _): "no function or builtin named `\(n)`"
        case .unknownCommand(let n, _): "unknown command `\(n)`"
        case .notCallable(let t): "a value of type \(t) cannot be called"
        case .wrongArgumentCount(let f, let expected, let got):
            "\(f) takes \(expected) argument\(expected == 1 ? "" : "s"), got \(got)"
        case .notABool(let context, let got): "\(context) must be a bool, got \(got)"
        case .invalidOperands(let op, let l, let r): "cannot apply `\(op)` to \(l) and \(r)"
        case .invalidOperand(let op, let t): "cannot apply `\(op)` to \(t)"
        case .divisionByZero: "division by zero"
        case .notIterable(let t): "cannot iterate over \(t); expected a list, a map or a range"
        case .noSuchField(let f, let t, _, _): "\(t) has no field `\(f)`"
        case .noFields(let f, let t): "\(t) has no fields (reading `\(f)`)"
        case .missingKey(let k): "map has no key \(Value.string(k).json)"
        case .notIndexable(let t): "cannot index \(t)"
        case .invalidIndexType(let c, let expected, let got): "\(c) index must be \(expected), got \(got)"
        case .negativeIndex(let i): "index \(i) is negative"
        case .indexOutOfRange(let i, let n): "index \(i) is out of range for length \(n)"
        case .invalidMapKey(let t): "map keys must be strings, got \(t)"
        case .notAssignable(let t): "cannot assign to a field or element of \(t)"
        case .recursionLimit(let n): "recursion deeper than \(n) calls"
        case .stackOverflow: "out of stack space: calls nested too deeply"
        case .assertionFailed(let why): why.map { "assertion failed: \($0)" } ?? "assertion failed"
        case .moduleNotFound(let n, let reason): "cannot load module \"\(n)\": \(reason)"
        case .moduleCycle(let names): "`use` cycle: " + names.joined(separator: " → ")
        case .moduleSyntax(_, let m): m
        case .secretNotSupplied(let c, let p, let pos):
            "\(c): argument \(pos) (\(p)) is a secret and was not given, and stdin is not a terminal to ask for it"
        case .argument(let e, let c): e.rendered(by: c)
        case .builtin(_, _, let m): m
        case .interrupted: "interrupted"
        case .promptCancelled(let c, let note):
            "\(c) cancelled at its prompt (Ctrl-C); \(note ?? "nothing was changed")"
        }
    }

    /// An optional line saying how to fix it.
    public var hint: String? {
        switch self {
        case .undefinedVariable(_, let s?), .undefinedFunction(_, let s?), .unknownCommand(_, let s?),
            .noSuchField(_, _, let s?, _):
            "did you mean `\(s)`?"
        case .noSuchField(_, _, nil, let fields) where !fields.isEmpty:
            "its fields: "
                + (fields.count > 24
                    ? fields.prefix(24).joined(separator: ", ") + ", …" : fields.joined(separator: ", "))
        case .commandAsValue(let c):
            "run it as a command (`\(c) …` on its own line), or call it in an expression: `print (\(c) …)`"
        case .undefinedVariable("i", nil):
            "declare it first with `let`; in a --path template `*` stands for the account: \"m/44'/60'/*'/0/0\" (`{i}` was the old form, and `{` starts an interpolation)"
        case .undefinedVariable: "declare it first with `let`"
        case .secretNotSupplied:
            "pass it as an argument, from the environment: `(env \"NAME\" --secret KIND)`, or from a file: `(file.read \"PATH\" --secret KIND)`"
        case .negativeIndex: "indexes count from 0"
        case .invalidOperands("+", "string", _), .invalidOperands("+", _, "string"):
            "to join text with other values use interpolation: \"{a}{b}\""
        case .recursionLimit: "check that the recursion has a base case"
        default: nil
        }
    }
}

/// One active script frame: the function (or module) and where it was called from.
public struct StackFrame: Sendable, Equatable {
    /// Function name, or `use "name"` for a module being loaded.
    public let name: String
    /// The call (or `use`) in the caller's source.
    public let range: SourceRange
    /// The caller's source.
    public let source: Source

    public init(name: String, range: SourceRange, source: Source) {
        self.name = name
        self.range = range
        self.source = source
    }

    /// `line:col` of the call.
    public var location: SourceLocation { LineTable(source).location(of: range.start) }

    public static func == (a: StackFrame, b: StackFrame) -> Bool {
        a.name == b.name && a.range == b.range && a.source.name == b.source.name
    }
}

/// An uncaught (or caught, then bound to `e` by `try`) error of a running script.
/// What a builtin body throws when a secret it takes was not given and nobody can be asked for
/// it: the interpreter reports it as it does a secret parameter left out
/// (`runtime.secretNotSupplied`, naming the command, at the call).
public struct SecretNotSupplied: Error, Sendable, Equatable {
    public let parameter: String
    /// The argument's position, from 1.
    public let position: Int

    public init(parameter: String, position: Int) {
        self.parameter = parameter
        self.position = position
    }
}

public struct RuntimeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public var kind: RuntimeErrorKind
    /// Where, in `source`.
    public var range: SourceRange
    /// The source `range` indexes. Nil only while the error travels inside the interpreter,
    /// which fills it in at the nearest function or module boundary; never nil once thrown
    /// out of `Interpreter.run`.
    public var source: Source?
    /// Script frames, innermost first: each names the function and the call site.
    public var frames: [StackFrame]
    /// How a run this error stops ends: the thrown error's own class for `.builtin` (see
    /// `Environment.builtinFailure`), `.interrupted` for Ctrl-C, `.runtimeError` otherwise.
    public var exitClass: ExitClass

    /// `exitClass` nil: the class `kind` implies (`.interrupted` or `.runtimeError`).
    public init(
        _ kind: RuntimeErrorKind, at range: SourceRange, source: Source? = nil, frames: [StackFrame] = [],
        exitClass: ExitClass? = nil
    ) {
        self.kind = kind
        self.range = range
        self.source = source
        self.frames = frames
        self.exitClass = exitClass ?? (kind.isInterruption ? .interrupted : .runtimeError)
    }

    /// Stable ID, e.g. `runtime.divisionByZero`.
    public var id: String { kind.id }
    /// Message text.
    public var message: String { kind.message }
    /// Fix-it hint, if one helps.
    public var hint: String? { kind.hint }
    /// Name of the source, or `<unknown>`.
    public var fileName: String { source?.name ?? "<unknown>" }
    /// `line:col` of the error.
    public var location: SourceLocation {
        source.map { LineTable($0).location(of: range.start) } ?? SourceLocation(line: 0, column: 0)
    }
    /// `id: message`, for debugging; users see `rendered`.
    public var description: String { "\(id): \(message)" }

    /// The text shown to the user; every line ends in `\n`:
    ///
    /// ```
    /// demo.kcs:2:14: error: division by zero
    ///   2 |     return a / b
    ///     |            ^~~~~
    ///   at ratio (demo.kcs:4:7)
    /// ```
    ///
    /// A run of identical frames (deep recursion) is shortened to three and a count.
    public var rendered: String {
        var out: String
        if let source {
            let lines = LineTable(source)
            let loc = lines.location(of: range.start)
            out = "\(source.name):\(loc.line):\(loc.column): error: \(source.redacting(message))\n"
            if case .promptCancelled = kind { return out }
            out += DiagnosticRenderer.excerpt(range, in: source, lines: lines)
            if let hint { out += "  hint: \(source.redacting(hint))\n" }
        } else {
            out = "error: \(message)\n"
            if let hint { out += "  hint: \(hint)\n" }
        }
        var tables: [String: LineTable] = [:]
        var i = 0
        while i < frames.count {
            var run = 1
            while i + run < frames.count, frames[i + run] == frames[i] { run += 1 }
            let f = frames[i]
            let table = tables[f.source.name] ?? LineTable(f.source)
            tables[f.source.name] = table
            let loc = table.location(of: f.range.start)
            let line = "  at \(f.name) (\(f.source.name):\(loc.line):\(loc.column))\n"
            if run > 3 {
                out +=
                    String(repeating: line, count: 3)
                    + "  … \(run - 3) more frame\(run - 3 == 1 ? "" : "s") like the one above\n"
            } else {
                out += String(repeating: line, count: run)
            }
            i += run
        }
        return out
    }
}
