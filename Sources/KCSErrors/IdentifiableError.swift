// The shape every kcs error vocabulary shares (docs/architecture.md, "Errors"): a stable `id`,
// one rendered sentence, and the class of exit a run stopped by it ends with. Each module keeps
// its own error enums; this module only says what they all offer, so the wallet layers and the
// language can meet without knowing each other.

/// An error with a stable identifier, e.g. a module's own error enum. When a builtin body
/// throws one, the runtime error keeps its `id`, its `description` as the message and its
/// `exitClass`.
public protocol IdentifiableError: Error, CustomStringConvertible {
    /// Stable dotted identifier such as `mnemonic.badChecksum`; never changes once published.
    var id: String { get }
    /// How a run that this error stops ends (the console turns it into an exit code);
    /// `.runtimeError` unless the error says otherwise.
    var exitClass: ExitClass { get }
    /// True when `description` is a sentence about the command that raised the error, written
    /// to follow the command's name: whoever runs commands renders it as `NAME: sentence`, so
    /// no command writes its own name (docs/architecture.md, "Errors"). False for errors of
    /// the lower layers, whose sentences stand alone.
    var followsCommandName: Bool { get }
}

extension IdentifiableError {
    public var exitClass: ExitClass { .runtimeError }
    public var followsCommandName: Bool { false }

    /// The sentence as a person reads it when `command` raised this error.
    public func rendered(by command: String) -> String {
        followsCommandName ? command + ": " + description : description
    }
}

/// What kind of failure stopped a run, as the exit code reports it (docs/card-console.md,
/// "Exit codes"). Errors state theirs; only the console maps a class to a number.
public enum ExitClass: Sendable, Equatable, CaseIterable {
    /// Anything not named below: a script error, a wrong argument, a failed operation.
    case runtimeError
    /// No reader, no card, or the connection to it was lost; or no answer from the Ethereum node.
    case noCard
    /// The person cancelled (declined a confirmation, typed the wrong reset UID).
    case cancelled
    /// Ctrl-C at a prompt of a batch run.
    case interrupted
    /// Any other card error: a status word, a refused pairing, no free slot, a blank card.
    case cardError
    /// A wrong PIN or PUK, or one kcs refused to send with one try left.
    case wrongPIN
    /// The PIN or the PUK is blocked.
    case blocked
}
