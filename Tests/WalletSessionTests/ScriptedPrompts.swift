// A person at a terminal, played from a script, for the application layer's questions.
import KCSErrors
import WalletCrypto
import WalletSession

/// Questions answered from a script; what is shown is kept.
final class ScriptedPrompts: SessionPrompts {
    /// An answer that is Ctrl-C at the prompt.
    static let ctrlC = "<ctrl-c>"
    var answers: [String]
    var shown = ""
    var asked: [String] = []
    init(_ answers: [String]) { self.answers = answers }
    var isInteractive: Bool { true }
    func write(_ text: String) { shown += text }
    func askSecret(prompt: String) throws -> Secret? {
        asked.append(prompt)
        return nil
    }
    func ask(prompt: String) throws -> String? {
        asked.append(prompt)
        guard !answers.isEmpty else { return nil }
        let answer = answers.removeFirst()
        if answer == ScriptedPrompts.ctrlC { throw PromptInterrupted() }
        return answer
    }
    func status(_ text: String) {}
    func warn(_ text: String) {}
    func progress(_ text: String?) {}
    func shouldInterrupt() -> Bool { false }
}
