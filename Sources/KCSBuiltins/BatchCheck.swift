import KCSRuntime
import KCSSyntax
import WalletSession

// A batch run checks, before anything runs, that it will be able to finish what it starts on a
// card (docs/card-console.md, "Batch runs"): a script that initializes a card and then pairs
// with it must not stop between the two for want of the vault passphrase.

extension Builtins {
    /// Commands that always open the vault: they read or write a sealed secret or pairing.
    static let vaultCommands: Set<String> = [
        "card.pair", "card.login", "card.open", "import.mnemonic", "import.privkey", "key.generate", "key.reveal",
        "keystore.load", "keystore.save", "key.rotate", "vault.change-passphrase", "rotation.resume",
    ]

    /// Commands that change a card (its credentials, keys, pairings or PIN-less path).
    static let cardChangingCommands: Set<String> = [
        "card.init", "card.load", "card.generate", "card.mnemonic", "card.change", "card.reset", "card.unpair",
        "card.remove-key", "card.pinless", "card.unblock",
    ]

    /// When `program` (a batch run's) changes a card and a later command needs the vault
    /// passphrase that this run cannot have, the error to stop with before anything runs: at the
    /// first card change, naming the later command. Nil when the run can finish.
    public static func batchPrecheck(_ program: Program, source: Source, registry: BuiltinRegistry,
                                     session: Session) -> RuntimeError? {
        guard !session.passphraseAvailable else { return nil }
        let commands = program.commands.compactMap { c in registry.canonicalName(c.name).map { ($0, c) } }
        guard let change = commands.first(where: { cardChangingCommands.contains($0.0) }),
              let later = commands.first(where: { vaultCommands.contains($0.0) && $0.1.range.start > change.1.range.start })
        else { return nil }
        let line = LineTable(source).location(of: later.1.range.start).line
        let error = SessionError.passphraseNeededLater(later: later.1.name, line: line)
        return RuntimeError(.builtin(id: error.id, command: change.1.name, message: error.rendered(by: change.1.name)),
                            at: change.1.range, source: source, exitClass: error.exitClass)
    }
}
