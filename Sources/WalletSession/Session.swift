import CardProtocol
import EthRPC
import Foundation
import KCSErrors
import WalletCore
import WalletCrypto
import WalletStore

/// The application's session (docs/architecture.md, "The application layer"): the kcs home and
/// its store, the vault's unlock state and idle timer, the active signer, the card link, the
/// node, the clock and the RNG, and the way to ask the person (`SessionPrompts`). The console
/// makes one per run and lends it to every builtin call; nothing here is global, and nothing
/// here knows the language.
public final class Session {
    /// Where `kcs.db` lives; nil when the host has no home (then store commands fail clearly).
    public let home: String?
    /// The process environment (batch passphrase variables).
    public let environment: ProcessEnvironment
    public let random: any RandomSource
    public let clock: @Sendable () -> Date
    /// scrypt cost for a new vault (the standard n=2¹⁵, r=8, p=1 outside tests).
    public let vaultParameters: ScryptParameters
    /// After this long without using the vault, the passphrase is asked again.
    public var idleTimeout: TimeInterval
    /// The person's side: prompts, confirmations, output. Weak: the console owns the session.
    public weak var prompts: (any SessionPrompts)?
    /// The key `sign` uses (`use key NAME`), by name.
    public var activeKey: String?
    /// The card this session is connected to (`card.connect`), if any.
    public var card: CardLink?
    /// How long `card.connect pcsc` waits for a card in the reader (seconds).
    public var cardWaitTimeout: Double = 10
    /// Two-party sessions explain each round as it runs (`mpc.explain on`).
    public var explainTwoParty = false
    /// `card.trace` and `card.step` (Card/CardTrace.swift); `kcs --trace LEVEL` sets the level.
    public internal(set) var cardTraceSettings = CardTraceSettings()
    /// The card trace while it is on or stepping: kept across card connections, so a save holds the session.
    var cardTracer: CardTracer?

    /// The Ethereum node's JSON-RPC URL (`--rpc`, KCS_RPC_URL, `eth.node URL`), if any.
    public private(set) var rpcURL: String?
    /// Seconds to wait for each node answer (KCS_RPC_TIMEOUT, `eth.node --timeout`; default 10).
    public private(set) var rpcTimeout: TimeInterval = 10
    private var openedNode: EthereumNode?

    private var openedStore: WalletStore?
    private var lastVaultUse: Date?
    /// How many times a command had the vault opened for it (`unlockedStore`): what the effects
    /// log compares (EffectsLog.swift).
    private(set) var vaultOpenings = 0
    /// `$KCS_EFFECTS_LOG`, read once: every builtin call asks for it (EffectsLog.swift).
    let effectsLogPath: String?
    /// The passphrase file was found open to others and said so (once a session).
    private var warnedPassphraseFile = false

    public init(
        home: String?, environment: ProcessEnvironment = .current,
        random: any RandomSource = SystemRandom(), clock: @escaping @Sendable () -> Date = { Date() },
        vaultParameters: ScryptParameters = .standard, idleTimeout: TimeInterval = 15 * 60
    ) {
        self.home = home
        self.environment = environment
        self.random = random
        self.clock = clock
        self.vaultParameters = vaultParameters
        self.idleTimeout = idleTimeout
        rpcURL = environment.nonEmpty("KCS_RPC_URL")
        effectsLogPath = environment.nonEmpty(Session.effectsLogVariable)
        if let t = environment["KCS_RPC_TIMEOUT"].flatMap(Double.init), t > 0 { rpcTimeout = t }
    }

    // MARK: The Ethereum node

    /// Whether a node is configured.
    public var hasNode: Bool { rpcURL != nil }

    /// Uses `url` for the node from now on (nil forgets it); `timeout` also changes the time-out.
    public func setNode(url: String?, timeout: TimeInterval? = nil) {
        rpcURL = url
        if let timeout { rpcTimeout = timeout }
        openedNode = nil
    }

    /// The configured node, or `RPCError.noNode` naming the command.
    public func node() throws -> EthereumNode {
        if let openedNode { return openedNode }
        guard let rpcURL else { throw RPCError.noNode() }
        let node = try EthereumNode(url: rpcURL, timeout: rpcTimeout)
        openedNode = node
        return node
    }

    /// Batch runs read the vault passphrase from this file …
    public static let passphraseFileVariable = "KCS_VAULT_PASSPHRASE_FILE"
    /// … or, less safely, from this variable.
    public static let passphraseVariable = "KCS_VAULT_PASSPHRASE"
    /// `vault.change-passphrase` in a batch run reads the new passphrase from this file …
    public static let newPassphraseFileVariable = "KCS_VAULT_NEW_PASSPHRASE_FILE"
    /// … or from this variable: never from the old one's.
    public static let newPassphraseVariable = "KCS_VAULT_NEW_PASSPHRASE"
    /// A passphrase shorter than this is accepted with a warning (ssh-keygen and gpg warn too).
    public static let weakPassphraseLength = 8

    // MARK: The store

    /// The store, opened on first use (so `kcs -e 'print 1'` never touches the disk).
    public func store() throws -> WalletStore {
        if let openedStore { return openedStore }
        guard let home else { throw SessionError.noHome }
        let store = try WalletStore.open(home: home, options: WalletStore.Options(random: random, clock: clock))
        openedStore = store
        return store
    }

    /// The store if `kcs.db` already exists (never creates one: Tab completion and the
    /// start-up notice only look).
    public func existingStore() -> WalletStore? {
        if let openedStore { return openedStore }
        guard let home,
            FileManager.default.fileExists(
                atPath: (home as NSString).appendingPathComponent(WalletStore.databaseFileName))
        else {
            return nil
        }
        return try? store()
    }

    /// Names of the stored keys (Tab completion); empty without a store.
    public func keyNames() -> [String] {
        (try? existingStore()?.keys(includeRetired: false).map(\.name)) ?? []
    }

    /// The store with the vault unlocked: creates the vault on first use (the passphrase asked
    /// twice), asks the passphrase when the vault is locked or has been idle longer than
    /// `idleTimeout`, and — given the `reconfirming` operation's name — again before that
    /// destructive or revealing operation even when unlocked (the console's stand-in for the
    /// app's biometric check); the prompt names the operation.
    public func unlockedStore(reconfirming operation: String? = nil) throws -> WalletStore {
        let store = try store()
        let now = clock()
        switch try store.vaultStatus() {
        case .missing:
            let first = try passphrase(prompt: "new vault passphrase: ")
            if prompts?.isInteractive == true, !passphraseFileSet {
                let again = try passphrase(prompt: "the same passphrase again: ", typed: true)
                guard first == again else { throw SessionError.passphrasesDiffer }
            }
            warnIfWeak(first)
            // createVault leaves the vault unlocked: a second scrypt (unlock) would only repeat it.
            try store.createVault(passphrase: first, scrypt: vaultParameters)
        case .locked:
            let typed = try passphrase(prompt: "vault passphrase: ")
            prompts?.status("unlocking the vault (scrypt)…")
            try store.unlock(passphrase: typed)
        case .unlocked:
            let idle = lastVaultUse.map { now.timeIntervalSince($0) > idleTimeout } ?? false
            if idle { store.lock() }
            if idle || operation != nil {
                // A reconfirmation is a person's: typed at a terminal even when a file is set.
                try store.unlock(
                    passphrase: try passphrase(
                        prompt: idle
                            ? "vault locked after \(Int(idleTimeout / 60)) idle minutes; passphrase: "
                            : "\(operation ?? "") needs the vault passphrase again: ", typed: operation != nil))
            }
        }
        lastVaultUse = now
        vaultOpenings += 1
        return store
    }

    /// Locks the vault now (`vault.lock`).
    public func lockVault() {
        openedStore?.lock()
        lastVaultUse = nil
    }

    // MARK: Asking

    /// The vault passphrase: from `$KCS_VAULT_PASSPHRASE_FILE` (its first line) when it is set,
    /// at a terminal too (as restic's and gpg's passphrase files are used), unless it must be
    /// `typed` by a person; else asked without echo at a terminal; in a batch run read from
    /// that file or `$KCS_VAULT_PASSPHRASE`, never prompted.
    public func passphrase(prompt: String, typed: Bool = false) throws -> Secret {
        if !typed, let fromFile = try batchSecret(file: Session.passphraseFileVariable, text: nil) { return fromFile }
        if let prompts, prompts.isInteractive {
            guard let secret = try prompts.askSecret(prompt: prompt) else {
                throw SessionError.cancelled
            }
            return secret
        }
        guard let secret = try batchSecret(file: Session.passphraseFileVariable, text: Session.passphraseVariable)
        else {
            throw SessionError.passphraseNeeded
        }
        return secret
    }

    /// Whether `$KCS_VAULT_PASSPHRASE_FILE` names a file to read the passphrase from.
    var passphraseFileSet: Bool { environment[Session.passphraseFileVariable].map { !$0.isEmpty } ?? false }

    /// Whether the vault passphrase can be had in this run: a person at the terminal to ask, or
    /// a batch run's file or variable.
    public var passphraseAvailable: Bool {
        if prompts?.isInteractive == true { return true }
        return [Session.passphraseFileVariable, Session.passphraseVariable].contains {
            environment[$0].map { !$0.isEmpty } ?? false
        }
    }

    /// A batch run's secret from the file named by `$file` (its first line) or from `$text`;
    /// nil when neither is set. A file others can read is named once in a warning.
    private func batchSecret(file fileVariable: String, text textVariable: String?) throws -> Secret? {
        if let file = environment[fileVariable], !file.isEmpty {
            var info = stat()
            if !warnedPassphraseFile, stat(file, &info) == 0, info.st_mode & 0o077 != 0 {
                // As ssh does for a private key file: others can read (or write) the passphrase.
                warnedPassphraseFile = true
                prompts?.warn(
                    "\(fileVariable) \(file) is open to other users (mode "
                        + String(info.st_mode & 0o777, radix: 8) + "); anyone who can read it can unlock the vault: "
                        + "chmod 600 \(file)")
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw SessionError.passphraseFileUnreadable(path: file, variable: fileVariable)
            }
            var bytes = Array(data)
            if let end = bytes.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) { bytes.removeSubrange(end...) }
            return Secret(consuming: &bytes)
        }
        if let textVariable, let text = environment[textVariable], !text.isEmpty { return Secret(utf8: text) }
        return nil
    }

    /// Re-seals every secret under a new vault passphrase. The old one is asked (or read) as
    /// always; the new one is `given`, else asked twice at a terminal, else read from
    /// `$KCS_VAULT_NEW_PASSPHRASE_FILE` or `$KCS_VAULT_NEW_PASSPHRASE` — never from where the old
    /// one came. A new passphrase equal to the old is refused (nothing would change), and a
    /// short one is taken with a warning.
    public func changeVaultPassphrase(new given: Secret?) throws {
        let store = try self.store()
        let old = try passphrase(prompt: "current vault passphrase: ")
        let new: Secret
        if let given {
            new = given
        } else if let prompts, prompts.isInteractive {
            new = try passphrase(prompt: "new vault passphrase: ", typed: true)
            guard try passphrase(prompt: "the new passphrase again: ", typed: true) == new else {
                throw SessionError.passphrasesDiffer
            }
        } else if let read = try batchSecret(
            file: Session.newPassphraseFileVariable, text: Session.newPassphraseVariable)
        {
            new = read
        } else {
            throw SessionError.newPassphraseNeeded
        }
        guard new != old else { throw SessionError.samePassphrase }
        warnIfWeak(new)
        try store.changePassphrase(old: old, new: new)
    }

    /// Says so when a new vault passphrase is shorter than `weakPassphraseLength` characters.
    func warnIfWeak(_ passphrase: Secret) {
        // Characters counted as UTF-8 lead bytes: no unwiped `String` copy of the passphrase.
        let length = passphrase.withUnsafeBytes { bytes in bytes.reduce(0) { $0 + ($1 & 0xC0 != 0x80 ? 1 : 0) } }
        guard length > 0, length < Session.weakPassphraseLength else { return }
        prompts?.warn(
            "the vault passphrase has \(length) character\(length == 1 ? "" : "s"); anyone who copies kcs.db "
                + "can try passphrases that short quickly. \(Session.weakPassphraseLength) or more (several words "
                + "are easiest to remember) resist far longer; vault.change-passphrase changes it")
    }

    /// Asks the person to confirm `question`; `yes` is the command's `--yes` flag, the only
    /// way to confirm in a batch run.
    public func confirm(_ question: String, yes: Bool) throws {
        if yes { return }
        guard let prompts, prompts.isInteractive else { throw SessionError.needsConfirmation }
        let answer = try prompts.ask(prompt: question + " [y/N] ")?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else { throw SessionError.cancelled }
    }

    /// Runs `work` (a KDF, a computation that changes nothing) on its own thread and waits for
    /// it while watching for Ctrl-C the way every long step does (`SessionPrompts.shouldInterrupt`,
    /// as `eth.send --wait` does): on Ctrl-C the command ends at once with `session.cancelled`
    /// and the thread's result is thrown away when it finishes. The caller bounds what that
    /// wastes (the keystore KDF ceiling, `KeystoreV3.CostCeiling`); `work` must change nothing
    /// that outlives it.
    public func abandonable<T: Sendable>(_ work: @escaping @Sendable () throws -> T) throws -> T {
        guard let prompts else { return try work() }
        let outcome = AbandonableOutcome<T>()
        let thread = Thread { outcome.finish(Result { try work() }) }
        thread.stackSize = 1 << 20
        thread.start()
        while true {
            if let result = outcome.wait(seconds: 0.05) { return try result.get() }
            if prompts.shouldInterrupt() { throw SessionError.cancelled }
        }
    }

    /// Shows text to the person (a new mnemonic, shown once).
    public func show(_ text: String) {
        prompts?.write(text.hasSuffix("\n") ? text : text + "\n")
    }

    /// Forgets the active key when it is one of `names` (keys just deleted), comparing names
    /// without case as the store does.
    public func forgetActiveKey(ifAmong names: [String]) {
        guard let active = activeKey?.lowercased() else { return }
        if names.contains(where: { $0.lowercased() == active }) { activeKey = nil }
    }
}

/// The result of an `abandonable` computation, handed from its thread to the waiting one.
private final class AbandonableOutcome<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func finish(_ result: Result<T, any Error>) {
        lock.withLock { self.result = result }
        done.signal()
    }

    /// The result once there is one; nil after `seconds` without.
    func wait(seconds: Double) -> Result<T, any Error>? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return lock.withLock { result }
    }
}

/// Errors of the session: passphrases, confirmations, the home.
public enum SessionError: WalletError, Equatable {
    case noSession
    case noHome
    case passphraseNeeded
    case passphraseFileUnreadable(path: String, variable: String)
    case passphrasesDiffer
    /// `vault.change-passphrase` in a batch run with no new passphrase given.
    case newPassphraseNeeded
    /// A new vault passphrase equal to the old one.
    case samePassphrase
    /// A batch run would change the card at this command, then stop at `later` (line `line`)
    /// for want of the vault passphrase.
    case passphraseNeededLater(later: String, line: Int)
    case needsConfirmation
    case cancelled

    /// Its sentences follow the command's name (`IdentifiableError.followsCommandName`).
    public var followsCommandName: Bool { true }

    public var id: String {
        switch self {
        case .noSession: "session.none"
        case .noHome: "session.noHome"
        case .passphraseNeeded: "session.passphraseNeeded"
        case .passphraseFileUnreadable: "session.passphraseFileUnreadable"
        case .passphrasesDiffer: "session.passphrasesDiffer"
        case .newPassphraseNeeded: "session.newPassphraseNeeded"
        case .samePassphrase: "session.samePassphrase"
        case .passphraseNeededLater: "session.passphraseNeeded"
        case .needsConfirmation: "session.needsConfirmation"
        case .cancelled: "session.cancelled"
        }
    }

    public var description: String {
        switch self {
        case .noSession:
            "needs the console's session (run it in kcs)"
        case .noHome:
            "no kcs home to keep the store in; pass --home DIR or set KCS_HOME"
        case .passphraseNeeded:
            "the vault passphrase is needed and standard input is not a terminal; put it in a file and set "
                + "\(Session.passphraseFileVariable)=FILE (or set \(Session.passphraseVariable))"
        case .passphraseFileUnreadable(let path, let variable):
            "cannot read the passphrase file \(path) named by \(variable)"
        case .passphrasesDiffer:
            "the two passphrases differ; nothing was changed"
        case .newPassphraseNeeded:
            "the new vault passphrase is needed and standard input is not a terminal; give it with --new "
                + "(a secret: --new (env \"NAME\" --secret passphrase)), or put it in a file and set "
                + "\(Session.newPassphraseFileVariable)=FILE (or set \(Session.newPassphraseVariable)); nothing was changed"
        case .passphraseNeededLater(let later, let line):
            "this run would change the card here, then stop at \(later) (line \(line)), which needs the vault passphrase "
                + "that a batch run cannot ask for; put it in a file and set \(Session.passphraseFileVariable)=FILE (or set "
                + "\(Session.passphraseVariable)) and run it again. Nothing was run"
        case .samePassphrase:
            "the new vault passphrase is the old one; nothing was changed"
        case .needsConfirmation:
            "needs a confirmation and standard input is not a terminal; add --yes to confirm"
        case .cancelled:
            "cancelled; nothing changed"
        }
    }
}

extension Session {
    /// The setting that sets the rotation policy's maximum key age (days).
    public static let maxAgeSetting = "rotation.max-age-days"

    /// What the console says when it starts: keys that need rotation and rotations left
    /// unfinished (with the commands that deal with them). Nil when there is no store yet or
    /// nothing to say; reading needs no passphrase.
    public func startupNotice() -> String? {
        guard let store = existingStore() else { return nil }
        // One snapshot for the three reads; each may fail on its own, as before, without
        // silencing the others.
        let (pending, due) =
            (try? store.read { tx in
                let maxAge = (try? tx.setting(Session.maxAgeSetting)).flatMap { $0.flatMap { Int($0) } }
                return (try? tx.pendingRotations(), try? tx.keysNeedingRotation(maxAgeDays: maxAge))
            }) ?? (nil, nil)
        var lines: [String] = []
        if let pending, !pending.isEmpty {
            lines.append("\(pending.count) key rotation\(pending.count == 1 ? " was" : "s were") interrupted:")
            for r in pending {
                lines.append(
                    "  #\(r.id) \(r.oldKeyName) (\(r.state.rawValue)): rotation.resume \(r.id) or rotation.rollback \(r.id)"
                )
            }
        }
        if let due, !due.isEmpty {
            lines.append("\(due.count) key\(due.count == 1 ? " needs" : "s need") rotation (key.rotate NAME):")
            for c in due {
                lines.append("  \(c.key.name): " + c.reasons.map(\.description).joined(separator: "; "))
            }
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }
}

extension SessionError {
    public var exitClass: ExitClass {
        switch self {
        case .cancelled: .cancelled
        default: .runtimeError
        }
    }
}
