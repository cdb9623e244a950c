// The interpreter's only window on the outside world (docs/habits.md §3: no global state).
//
// Named `ScriptHost` rather than `Host` because Foundation on Linux has a `Host` class, and
// every client imports Foundation.
//
// The console implements `Host` for a terminal or a batch run; tests use an in-memory double.
// Everything the interpreter would otherwise reach for globally — output, the terminal, the
// file system for `use`, the clock, Ctrl-C — goes through here.
import Foundation
import KCSSyntax

/// What the interpreter needs from whoever runs it.
///
/// The interpreter calls these synchronously from `Interpreter.run`; a host is used by one
/// interpreter at a time.
public protocol ScriptHost: AnyObject {
    /// Writes program output (`print`). `text` already ends in a line break when a line ends.
    func write(_ text: String)

    /// True when a person is at a terminal, so a missing secret argument may be asked for.
    var isInteractive: Bool { get }

    /// Asks for a secret without echo. Returns nil when it cannot ask (batch, or the person
    /// cancelled); throws only for I/O failures. Called only when `isInteractive` is true.
    func readSecret(prompt: String) throws -> SecretValue?

    /// Returns the text of module `name` for `use "name"`: the console looks in `stdlib/` first,
    /// then relative to `relativeTo` (the `Source.name` of the script that says `use`). The
    /// returned `Source.name` identifies the module: a module is run once per name, and a
    /// cycle of names is an error. Throws when there is no such module (the error's description
    /// becomes the message).
    func loadModule(name: String, relativeTo: String) throws -> Source

    /// Polled every few thousand loop iterations; returning true stops the run with
    /// `runtime.interrupted` (Ctrl-C at the console). Defaults to false.
    func shouldInterrupt() -> Bool

    /// The current time, for builtins that need one. Defaults to the system clock.
    var now: Date { get }

    /// Asks a question whose answer may be seen (a confirmation, words of a backup); nil when
    /// nobody can answer (batch) or at end of input; throws `PromptInterrupted` at Ctrl-C.
    /// Defaults to nil.
    func ask(prompt: String) throws -> String?

    /// Shows progress of a slow step (a KDF, an import) where a person can see it; a no-op
    /// by default and in batch runs.
    func status(_ text: String)

    /// Warns on standard error, in batch runs too (a passphrase file others can read). A no-op
    /// by default.
    func warn(_ text: String)

    /// Redraws a one-line progress display (a bar) where a person can see it; nil ends it.
    /// A no-op by default and in batch runs.
    func progress(_ text: String?)

    /// The session builtins work in (see `BuiltinContext`); nil by default.
    var context: (any BuiltinContext)? { get }

    /// Where program output goes: a terminal (its size) that may be coloured, or not a terminal.
    var display: Display { get }
}

/// What program output is shown on (for drawings such as QR codes).
public struct Display: Sendable, Equatable {
    /// Colour escapes are welcome (a terminal, no `NO_COLOR`, no `--no-color`).
    public let color: Bool
    /// Columns and rows of the terminal; nil when output is not a terminal.
    public let size: (columns: Int, rows: Int)?

    public init(color: Bool, size: (columns: Int, rows: Int)?) {
        self.color = color
        self.size = size
    }

    /// Not a terminal: no colour, no size.
    public static let plain = Display(color: false, size: nil)

    public static func == (a: Display, b: Display) -> Bool {
        a.color == b.color && a.size?.columns == b.size?.columns && a.size?.rows == b.size?.rows
    }
}

extension ScriptHost {
    public func shouldInterrupt() -> Bool { false }
    public var now: Date { Date() }
    public func ask(prompt: String) throws -> String? { nil }
    public func status(_ text: String) {}
    public func warn(_ text: String) {}
    public func progress(_ text: String?) {}
    public var context: (any BuiltinContext)? { nil }
    public var display: Display { .plain }
}
