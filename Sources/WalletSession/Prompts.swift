import WalletCrypto

/// The person's side of a session, as the application layer needs it: questions, hidden
/// input, status lines and Ctrl-C. The console implements it (`ConsoleHost`); tests and the
/// benchmark implement it with scripted answers. Nothing here knows the language.
public protocol SessionPrompts: AnyObject {
    /// True when a person can answer (standard input is a terminal); a batch run is never asked.
    var isInteractive: Bool { get }
    /// Text shown once on purpose (a new mnemonic, a question's explanation).
    func write(_ text: String)
    /// A secret typed without echo; nil when it cannot be asked or the input ended. Throws when
    /// the person pressed Ctrl-C at the prompt.
    func askSecret(prompt: String) throws -> Secret?
    /// A visible answer; nil when it cannot be asked or the input ended. Throws on Ctrl-C.
    func ask(prompt: String) throws -> String?
    /// A progress line for a person (nothing in a batch run).
    func status(_ text: String)
    /// A warning whoever runs kcs (standard error).
    func warn(_ text: String)
    /// A line redrawn in place while a long step runs; nil ends it.
    func progress(_ text: String?)
    /// True once when Ctrl-C was pressed since the last call: long work stops cleanly.
    func shouldInterrupt() -> Bool
    /// Plays frames where a person watches (standard output a terminal): each frame `next`
    /// draws (told whether colour is welcome) replaces the last, every `interval` seconds, until
    /// it returns nil or Ctrl-C; the terminal is left as it was. False when nobody watches.
    func play(_ next: (_ color: Bool) throws -> String?, interval: Double) throws -> Bool
    /// Card trace lines (`card.trace`): standard error, so standard output stays what a script reads.
    func trace(_ text: String)
    /// A visible answer to a question something else may settle first (the local signer's
    /// approval: its client gave up, or its time ran out): nil when `settled` became true, when
    /// it cannot be asked or the input ended. Keys typed before the prompt was drawn, and in the
    /// `ignoring` seconds after, are not an answer (a keystroke meant for the last question).
    /// Throws on Ctrl-C.
    func ask(prompt: String, ignoring: Double, until settled: @escaping () -> Bool) throws -> String?
}

extension SessionPrompts {
    public func trace(_ text: String) { warn(text) }
    public func ask(prompt: String, ignoring: Double, until settled: @escaping () -> Bool) throws -> String? {
        settled() ? nil : try ask(prompt: prompt)
    }
    public func play(_ next: (_ color: Bool) throws -> String?, interval: Double) throws -> Bool { false }
}
