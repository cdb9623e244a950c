import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// Key rotation (issue 5 §6) as console commands: flag a key, rotate it, follow its lineage,
// list the keys that need rotating, and resume or roll back a rotation that was interrupted.
// Every step of a rotation is one store call, so the journal (`rotations`, docs/store.md)
// always says how far it got:
//
//     key.rotate ─► beginRotation ─► createSuccessor ─► (backup confirmed) ─► confirmSuccessorBackedUp ─► completeRotation
//                     started         successor-created                        backed-up                    completed
//
// A kill at any point leaves the rotation in the last state that committed;
// `rotation.resume` continues from there and `rotation.rollback` abandons it. Nothing here
// prints except a new mnemonic, shown once through the session.

extension Builtins {
    static let rotation: [Builtin] = [
        // MARK: - Flagging and policy

        Builtin("key.flag", params: [ParamSpec("name", .string)],
                options: [
                    OptionSpec("exposed", nil, "the secret is known (or feared) to be exposed, not just due for rotation"),
                    OptionSpec("clear", nil, "remove the flag"),
                ],
                summary: "Flags a key for rotation (listed by keys.rotation and when the console starts), or clears the flag.",
                example: "key.flag hot-wallet --exposed") { args in
            let c = args.command
            let store = try args.session(c).store(for: c)
            let record = try store.key(named: args.string("name") ?? "")
            guard !record.retired else { throw StoreError.keyRetired(name: record.name) }
            if args.flag("clear") {
                guard !args.flag("exposed") else {
                    throw BuiltinError.optionNotApplicable(command: c, option: "exposed", reason: "--clear removes the flag")
                }
                return rotationKeyValue(try store.clearRotationFlag(named: record.name), open: nil)
            }
            let flagged = try store.flagForRotation(named: record.name, reason: args.flag("exposed") ? .exposed : .user)
            return rotationKeyValue(flagged, open: nil)
        },

        Builtin("keys.rotation",
                options: [OptionSpec("max-age-days", .int,
                                     "also list software keys older than this many days (default: the rotation.max-age-days setting)")],
                summary: "The keys that need rotation, each with its reasons: flagged, revealed, imported raw, or too old.",
                example: "keys.rotation --max-age-days 365") { args in
            let c = args.command
            let session = try args.session(c)
            let store = try session.store(for: c)
            let maxAge = try maxAgeDays(args, store: store, command: c)
            return .list(try store.keysNeedingRotation(now: session.clock(), maxAgeDays: maxAge).map { candidate in
                var fields: [(String, Value)] = [("name", .string(candidate.key.name)),
                                                 ("kind", .string(candidate.key.kind.rawValue))]
                if let a = candidate.key.address { fields.append(("address", .string(a))) }
                fields.append(("reasons", .list(candidate.reasons.map { .string($0.description) })))
                return .map(ValueMap(fields))
            })
        },

        // MARK: - Rotating

        Builtin("key.rotate", params: [ParamSpec("name", .string)],
                options: [
                    OptionSpec("successor", .string, "the new key's name (default from its kind and address)"),
                    OptionSpec("yes", nil, "confirm that the successor is backed up without asking (batch runs)"),
                    OptionSpec("skip-confirm", nil, "do not ask two words of a new mnemonic back (batch runs)"),
                ],
                summary: "Replaces a key by a new one of the same kind and preset; the old secret is wiped once the new one is backed up.",
                example: "key.rotate hot-wallet --successor hot-2026") { args in
            let c = args.command
            let session = try args.session(c)
            let store = try session.store(for: c)
            let old = try store.key(named: args.string("name") ?? "")
            try checkBackupCanBeConfirmed(of: old, skipConfirm: args.flag("skip-confirm"), session: session, command: c)
            let unlocked = try session.unlockedStore(for: c, reconfirm: true)
            let begun = try unlocked.beginRotation(ofKeyNamed: old.name)
            let done = try advanceRotation(begun.id, successorName: args.string("successor"), yes: args.flag("yes"),
                                           skipConfirm: args.flag("skip-confirm"), session: session, store: unlocked,
                                           command: c)
            return rotationValue(done)
        },

        Builtin("key.lineage", params: [ParamSpec("name", .string)],
                summary: "The rotation chain through a key, oldest first: each key with its rotation state and successor.",
                example: "key.lineage hot-wallet") { args in
            let c = args.command
            let store = try args.session(c).store(for: c)
            let chain = try store.lineage(ofKeyNamed: args.string("name") ?? "")
            let open = try store.pendingRotations()
            let names = Dictionary(chain.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            return .list(try chain.map { r in
                var value = rotationKeyValue(r, open: open.first { $0.oldKeyID == r.id || $0.newKeyID == r.id })
                if let next = r.successorID, case .map(var fields) = value {
                    fields["successor"] = .string(try names[next] ?? store.key(id: next).name)
                    value = .map(fields)
                }
                return value
            })
        },

        // MARK: - The journal

        Builtin("rotation.pending",
                summary: "Unfinished rotations, oldest first: id, old and new key, the step reached and what comes next.",
                example: "let open = rotation pending") { args in
            let c = args.command
            return .list(try args.session(c).store(for: c).pendingRotations().map(rotationValue))
        },

        Builtin("rotation.resume", params: [ParamSpec("id", .int)],
                options: [
                    OptionSpec("successor", .string, "the new key's name, when the successor is still to be created"),
                    OptionSpec("yes", nil, "confirm that the successor is backed up without asking (batch runs)"),
                    OptionSpec("skip-confirm", nil, "do not ask two words of a new mnemonic back (batch runs)"),
                ],
                summary: "Continues an unfinished rotation from the step it reached (see rotation.pending).",
                example: "rotation.resume 3 --yes") { args in
            let c = args.command
            let session = try args.session(c)
            let store = try session.store(for: c)
            let rotation = try store.rotation(id: try rotationID(args, c))
            guard !rotation.state.isFinished else {
                throw RotationCommandError.finished(command: c, rotationID: rotation.id, state: rotation.state.rawValue)
            }
            if rotation.state == .started {
                let old = try store.key(id: rotation.oldKeyID)
                try checkBackupCanBeConfirmed(of: old, skipConfirm: args.flag("skip-confirm"), session: session, command: c)
            } else if args.string("successor") != nil {
                throw BuiltinError.optionNotApplicable(
                    command: c, option: "successor",
                    reason: "rotation \(rotation.id) already has its successor \(rotation.newKeyName ?? "")")
            }
            let unlocked = try session.unlockedStore(for: c, reconfirm: true)
            let done = try advanceRotation(rotation.id, successorName: args.string("successor"), yes: args.flag("yes"),
                                           skipConfirm: args.flag("skip-confirm"), session: session, store: unlocked,
                                           command: c)
            return rotationValue(done)
        },

        Builtin("rotation.rollback", params: [ParamSpec("id", .int)],
                options: [OptionSpec("yes", nil, "confirm deleting the successor without asking (batch runs)")],
                summary: "Abandons an unfinished rotation: deletes the successor, if one was made; the old key stays as it was.",
                example: "rotation.rollback 3 --yes") { args in
            let c = args.command
            let session = try args.session(c)
            let store = try session.store(for: c)
            let rotation = try store.rotation(id: try rotationID(args, c))
            guard !rotation.state.isFinished else {
                throw RotationCommandError.finished(command: c, rotationID: rotation.id, state: rotation.state.rawValue)
            }
            var doomed: [String] = []
            if let successor = rotation.newKeyName {
                doomed = [successor] + (try store.children(ofKeyNamed: successor).map(\.name))
                try session.confirm("roll back rotation \(rotation.id)? \(successor) and its secret are deleted; "
                                    + "\(rotation.oldKeyName) stays as it is", for: c, yes: args.flag("yes"))
                _ = try session.unlockedStore(for: c, reconfirm: true)
            }
            let done = try store.rollBackRotation(rotationID: rotation.id)
            session.forgetActiveKey(ifAmong: doomed)
            return rotationValue(done)
        },

        // MARK: - Checking the store

        Builtin("store.check",
                summary: "Checks the store file: SQLite's integrity_check and the store's invariants (positions, secrets, parents).",
                example: "print (store.check).ok, (store.check).problems") { args in
            let c = args.command
            let check = try args.session(c).store(for: c).check()
            return .map(ValueMap([
                ("ok", .bool(check.integrity == ["ok"] && check.problems.isEmpty)),
                ("integrity", .string(check.integrity.joined(separator: "\n"))),
                ("problems", .list(check.problems.map { .string($0) })),
            ]))
        },
    ]

    // MARK: - Driving a rotation

    /// Drives rotation `id` from the state it is in to `completed`, one store transaction per
    /// step: creates the successor (from `started`), asks the person to confirm it is backed
    /// up (from `successor-created`), then wipes and retires the old key (from `backed-up`).
    ///
    /// - Throws: `RotationCommandError.backupNotConfirmed` when the confirmation is declined
    ///   or cannot be asked (batch without `--yes`): the rotation then stays pending at
    ///   `successor-created` with the old secret intact. Store and wallet-core errors pass
    ///   through; each leaves the rotation at the last step that committed.
    static func advanceRotation(_ id: Int64, successorName: String?, yes: Bool, skipConfirm: Bool,
                                session: Session, store: WalletStore, command c: String) throws -> RotationRecord {
        var rotation = try store.rotation(id: id)
        if rotation.state == .started {
            try createSuccessor(for: rotation, name: successorName, skipConfirm: skipConfirm, session: session,
                                store: store, command: c)
            rotation = try store.rotation(id: id)
        }
        if rotation.state == .successorCreated {
            let successor = rotation.newKeyName ?? "the successor"
            do {
                try session.confirm("Is \(successor) backed up? Confirming wipes the secret of \(rotation.oldKeyName)",
                                    for: c, yes: yes)
            } catch let error as SessionError {
                let declined = if case .cancelled = error { true } else { false }
                throw RotationCommandError.backupNotConfirmed(command: c, rotationID: id, old: rotation.oldKeyName,
                                                              successor: successor, declined: declined)
            } catch is PromptInterrupted {
                throw PromptInterrupted(note: "rotation \(id) stays pending: \(successor) was made and \(rotation.oldKeyName) "
                                        + "keeps its secret; finish with rotation resume \(id), or undo with rotation rollback \(id)")
            }
            rotation = try store.confirmSuccessorBackedUp(rotationID: id)
        }
        if rotation.state == .backedUp {
            rotation = try store.completeRotation(rotationID: id)
            try followActiveKey(after: rotation, session: session, store: store)
        }
        return rotation
    }

    /// Adds the successor of the rotation's old key: a new random ECDSA key, or for an
    /// HD-MASTER a new mnemonic (same word count, same BIP-39 passphrase, shown once and, unless
    /// `skipConfirm`, two words asked back) with HD-CHILD keys at the old children's paths,
    /// placed below it. Master, children and the journal's `successor-created` commit together.
    /// A wrong word rolls the rotation back (nothing of the new mnemonic is kept).
    static func createSuccessor(for rotation: RotationRecord, name: String?, skipConfirm: Bool, session: Session,
                                store: WalletStore, command c: String) throws {
        let old = try store.key(id: rotation.oldKeyID)
        switch old.kind {
        case .ecdsa:
            let key = PrivateKey.generate(using: session.random)
            try store.createSuccessor(
                rotationID: rotation.id,
                key: NewKey(name: name, kind: .ecdsa, source: .generated, storage: .software, publicKey: key.publicKey,
                            address: EthereumAddress(publicKey: key.publicKey).checksummed),
                secret: .privateKey(key.secret))
        case .hdMaster:
            try createHDSuccessor(of: old, rotation: rotation, name: name, skipConfirm: skipConfirm, session: session,
                                  store: store, command: c)
        default:
            // beginRotation refuses these; a journal row pointing at one was written by something else.
            throw StoreError.notRotatable(name: old.name, reason: "\(old.kind.withArticle) key has no secret to replace")
        }
    }

    private static func createHDSuccessor(of old: KeyRecord, rotation: RotationRecord, name: String?, skipConfirm: Bool,
                                          session: Session, store: WalletStore, command c: String) throws {
        let oldSecret = try store.openSecret(named: old.name)
        let words: Mnemonic.WordCount = if oldSecret.kind == .mnemonic,
            let m = try? Mnemonic(phrase: oldSecret.payload) { m.wordCount } else { .twentyFour }
        // The BIP-39 passphrase is something the person remembers; the successor keeps it.
        let passphrase = oldSecret.kind == .mnemonic ? oldSecret.passphrase : nil
        let children = try store.children(ofKeyNamed: old.name)
        let addressKind = old.preset.flatMap(PathPreset.named)?.addressKind ?? .ethereum

        let mnemonic = Mnemonic(generating: words, language: .english, using: session.random)
        let seed = try passphrase.map { p throws(MnemonicError) in try mnemonic.seed(passphrase: p) } ?? mnemonic.seed()
        let master = try ExtendedKey.master(seed: seed)
        var derived: [(old: KeyRecord, path: DerivationPath, key: ExtendedKey)] = []
        for child in children {
            guard let path = child.path else { continue }
            derived.append((child, path, try master.derive(path)))
        }
        let firstAddress = try derived.first.map { try address(of: $0.key.publicKey, kind: addressKind) }
            ?? EthereumAddress(publicKey: master.publicKey).checksummed
        let xpub = try master.serialized(.xpub)

        mnemonic.withWords { list in
            let intro = "The successor of \(old.name) is a new mnemonic"
                + (passphrase == nil ? "" : ", used with the same BIP-39 passphrase") + "."
            session.show(([intro] + backupLines(list)).joined(separator: "\n"))
        }
        if !skipConfirm {
            do {
                try confirmBackup(mnemonic, session: session, command: c)
            } catch {
                _ = try? store.rollBackRotation(rotationID: rotation.id)
                throw error
            }
        }

        let phrase = mnemonic.withPhrase { Secret(utf8: $0) }
        try store.write { tx in
            let placed = try tx.createSuccessor(
                rotationID: rotation.id,
                key: NewKey(name: name, kind: .hdMaster, source: .generated, storage: .software,
                            publicKey: master.publicKey, address: firstAddress, path: DerivationPath(absolute: true, []),
                            extendedPublicKey: xpub),
                secret: .mnemonic(phrase, passphrase: passphrase))
            // The store puts a successor right below the old key; an HD successor goes below the
            // old master's children instead, so each family stays together.
            let lastOld = try tx.children(ofKeyNamed: old.name).map(\.position).max() ?? 0
            let root = lastOld > placed.position ? try tx.moveKey(named: placed.name, to: lastOld) : placed
            for (i, child) in derived.enumerated() {
                let added = try tx.addKey(NewKey(
                    name: try successorChildName(master: root.name, oldMaster: old.name, oldChild: child.old.name,
                                                 index: i, tx),
                    kind: .hdChild, source: .generated, storage: .software, publicKey: child.key.publicKey,
                    address: try address(of: child.key.publicKey, kind: addressKind), path: child.path,
                    parentID: root.id, preset: child.old.preset ?? root.preset))
                try tx.moveKey(named: added.name, to: root.position + 1 + i)
            }
        }
    }

    /// `savings-2` → `<successor>-2`: the old child's suffix when it was named after its master,
    /// else the child's index; nil (a default name) when that name is taken.
    private static func successorChildName(master: String, oldMaster: String, oldChild: String, index: Int,
                                           _ tx: StoreTransaction) throws -> String? {
        let prefix = oldMaster.lowercased() + "-"
        let suffix = oldChild.lowercased().hasPrefix(prefix) ? String(oldChild.dropFirst(prefix.count)) : String(index)
        let candidate = "\(master)-\(suffix)"
        guard KeyNaming.problem(with: candidate) == nil, try tx.findKey(named: candidate) == nil else { return nil }
        return candidate
    }

    /// Refuses, before anything is asked or stored, an HD rotation whose new mnemonic could not
    /// be confirmed: two words are asked back at a terminal, and a batch run must say `--skip-confirm`.
    static func checkBackupCanBeConfirmed(of old: KeyRecord, skipConfirm: Bool, session: Session,
                                          command c: String) throws {
        guard old.kind == .hdMaster, !skipConfirm, session.prompts?.isInteractive != true else { return }
        throw KeyCommandError.backupNeedsTerminal(command: c)
    }

    /// After a completed rotation, a session whose active signer was the old key (or one of
    /// its HD children) signs with the successor (or its child at the same path).
    private static func followActiveKey(after rotation: RotationRecord, session: Session, store: WalletStore) throws {
        guard let active = session.activeKey, let successorID = rotation.newKeyID else { return }
        let old = try store.key(id: rotation.oldKeyID)
        let successor = try store.key(id: successorID)
        if active.lowercased() == old.name.lowercased() {
            session.activeKey = successor.kind == .hdMaster ? nil : successor.name
            return
        }
        let oldChildren = try store.children(ofKeyNamed: old.name)
        guard let child = oldChildren.first(where: { $0.name.lowercased() == active.lowercased() }) else { return }
        session.activeKey = try store.children(ofKeyNamed: successor.name).first { $0.path == child.path }?.name
    }

    // MARK: - Values and arguments

    /// A journal entry as a record: id, old and new key names, state, what comes next, times.
    static func rotationValue(_ r: RotationRecord) -> Value {
        var f: [(String, Value)] = [
            ("id", .int(Int(r.id))), ("old", .string(r.oldKeyName)), ("new", r.newKeyName.map { .string($0) } ?? .null),
            ("state", .string(r.state.rawValue)),
        ]
        switch r.state {
        case .started: f.append(("next", .string("create the successor: rotation resume \(r.id)")))
        case .successorCreated:
            f.append(("next", .string("confirm \(r.newKeyName ?? "the successor") is backed up: rotation resume \(r.id) --yes")))
        case .backedUp: f.append(("next", .string("wipe the old secret: rotation resume \(r.id)")))
        case .completed, .rolledBack: break
        }
        f.append(("started", .string(isoDate(r.startedAt))))
        f.append(("updated", .string(isoDate(r.updatedAt))))
        if let finished = r.finishedAt { f.append(("finished", .string(isoDate(finished)))) }
        return .map(ValueMap(f))
    }

    /// A key record with its rotation state: `retired`, `rotating (#3, successor-created)`,
    /// `flagged (user)` or `ok`.
    static func rotationKeyValue(_ r: KeyRecord, open: RotationRecord?) -> Value {
        var f = keyFields(r)
        let state: String = if r.retired { "retired" }
            else if let open { "rotating (#\(open.id), \(open.state.rawValue))" }
            else if let flag = r.rotationFlag { "flagged (\(flag.rawValue))" }
            else { "ok" }
        f.append(("rotation", .string(state)))
        f.append(("retired", .bool(r.retired)))
        if let revealed = r.revealedAt { f.append(("revealed", .string(isoDate(revealed)))) }
        return .map(ValueMap(f))
    }

    /// The rotation id argument as the store's row id.
    private static func rotationID(_ args: CallArguments, _ command: String) throws -> Int64 {
        Int64(try smallInt(args.integer("id") ?? 0, command, "argument 1 (id)", in: 1...Int(Int32.max)))
    }

    /// `--max-age-days N`, else the `rotation.max-age-days` setting, else no age rule.
    private static func maxAgeDays(_ args: CallArguments, store: WalletStore, command c: String) throws -> Int? {
        if let n = args.integer("max-age-days") { return try smallInt(n, c, "--max-age-days", in: 1...1_000_000) }
        guard let text = try store.setting(Session.maxAgeSetting) else { return nil }
        guard let days = Int(text.trimmingCharacters(in: .whitespaces)), days >= 1 else {
            throw BuiltinError.outOfRange(command: c, name: "the setting \(Session.maxAgeSetting)",
                                          expected: "a whole number of days, 1 or more", got: text)
        }
        return days
    }
}

/// Errors of the rotation commands that the store does not already name.
public enum RotationCommandError: WalletError, Equatable {
    /// The successor exists but its backup was not confirmed (declined at the terminal, or a
    /// batch run without `--yes`): the rotation stays at `successor-created`.
    case backupNotConfirmed(command: String, rotationID: Int64, old: String, successor: String, declined: Bool)
    /// Resuming or rolling back a rotation that already completed or was rolled back.
    case finished(command: String, rotationID: Int64, state: String)

    public var id: String {
        switch self {
        case .backupNotConfirmed: "rotation.backupNotConfirmed"
        case .finished: "rotation.finished"
        }
    }

    public var description: String {
        switch self {
        case .backupNotConfirmed(let c, let id, let old, let successor, let declined):
            "\(c): \(successor) is stored, but "
                + (declined ? "its backup was not confirmed" : "confirming its backup needs a terminal or --yes")
                + "; rotation \(id) stays pending (successor-created) and \(old) keeps its secret. "
                + "Once \(successor) is backed up run `rotation resume \(id) --yes`, or undo it with `rotation rollback \(id)`"
        case .finished(let c, let id, let state):
            "\(c): rotation \(id) is already \(state); only unfinished rotations (rotation.pending) can be resumed or rolled back"
        }
    }
}
