import KCSRuntime
import KCSSyntax
import WalletSession

// A batch run checks, before anything runs, that it will be able to finish what it starts on a
// card (docs/card-console.md, "Batch runs"): a script that initializes a card and then pairs
// with it must not stop between the two for want of the vault passphrase.

extension BuiltinTraits {
    /// The command always opens the vault: it reads or writes a sealed secret or pairing.
    public static let opensVault = BuiltinTraits(rawValue: 1 << 0)
    /// The command changes a card: its credentials, keys, pairings or PIN-less path.
    public static let changesCard = BuiltinTraits(rawValue: 1 << 1)
    /// The command opens the vault for some keys or options only (a software key signs, a card
    /// does not): declared, so the effects log's check holds, but no reason to stop a batch run early.
    public static let mayOpenVault = BuiltinTraits(rawValue: 1 << 2)
    /// The command changes a card in some cases only (`card.login` pairs when kcs holds no pairing).
    public static let mayChangeCard = BuiltinTraits(rawValue: 1 << 3)
}

extension Builtins {
    /// When `program` (a batch run's) changes a card and a later command needs the vault
    /// passphrase that this run cannot have, the error to stop with before anything runs: at the
    /// first card change, naming the later command. Nil when the run can finish.
    public static func batchPrecheck(
        _ program: Program, source: Source, registry: BuiltinRegistry,
        session: Session
    ) -> RuntimeError? {
        guard !session.passphraseAvailable else { return nil }
        let commands = program.commands.compactMap { c in registry.lookup(c.name).map { ($0.traits, c) } }
        guard let change = commands.first(where: { $0.0.contains(.changesCard) }),
            let later = commands.first(where: { $0.0.contains(.opensVault) && $0.1.range.start > change.1.range.start })
        else { return nil }
        let line = LineTable(source).location(of: later.1.range.start).line
        let error = SessionError.passphraseNeededLater(later: later.1.name, line: line)
        return RuntimeError(
            .builtin(id: error.id, command: change.1.name, message: error.rendered(by: change.1.name)),
            at: change.1.range, source: source, exitClass: error.exitClass)
    }
}
