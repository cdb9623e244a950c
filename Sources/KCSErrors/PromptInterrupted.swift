/// Ctrl-C at a prompt (the console's questions and hidden input, whoever asks: a builtin or the
/// application layer). Whoever asked lets it pass (or adds a `note` saying what stays changed);
/// the run then ends with `runtime.interrupted`, shown on one line. It lives here, beside the
/// error vocabulary every layer shares, so the application layer can tell Ctrl-C from a "no".
public struct PromptInterrupted: Error, Sendable {
    /// What stays changed, when the command had already changed something before the prompt
    /// (a rotation left pending); nil means nothing was.
    public let note: String?
    public init(note: String? = nil) { self.note = note }
}
