import Foundation
import KCSErrors
import WalletCore
import WalletCrypto
import WalletStore

// The key rotation driver (docs/store.md, "Rotation"): the journal's steps from `started` to
// `completed`, each committed on its own, so an interrupted rotation resumes or rolls back.

extension Session {
    /// Drives rotation `id` from the state it is in to `completed`, one store transaction per
    /// step: creates the successor (from `started`), asks the person to confirm it is backed
    /// up (from `successor-created`), then wipes and retires the old key (from `backed-up`).
    ///
    /// - Throws: `RotationCommandError.backupNotConfirmed` when the confirmation is declined
    ///   or cannot be asked (batch without `--yes`): the rotation then stays pending at
    ///   `successor-created` with the old secret intact. Store and wallet-core errors pass
    ///   through; each leaves the rotation at the last step that committed.
    public func advanceRotation(
        _ id: Int64, successorName: String?, yes: Bool, skipConfirm: Bool,
        store: WalletStore
    ) throws -> RotationRecord {
        var rotation = try store.rotation(id: id)
        if rotation.state == .started {
            try createSuccessor(for: rotation, name: successorName, skipConfirm: skipConfirm, store: store)
            rotation = try store.rotation(id: id)
        }
        if rotation.state == .successorCreated {
            let successor = rotation.newKeyName ?? "the successor"
            do {
                try confirm(
                    "Is \(successor) backed up? Confirming wipes the secret of \(rotation.oldKeyName)",
                    yes: yes)
            } catch let error as SessionError {
                let declined = if case .cancelled = error { true } else { false }
                throw RotationCommandError.backupNotConfirmed(
                    rotationID: id, old: rotation.oldKeyName,
                    successor: successor, declined: declined)
            } catch is PromptInterrupted {
                throw PromptInterrupted(
                    note: "rotation \(id) stays pending: \(successor) was made and \(rotation.oldKeyName) "
                        + "keeps its secret; finish with rotation resume \(id), or undo with rotation rollback \(id)")
            }
            rotation = try store.confirmSuccessorBackedUp(rotationID: id)
        }
        if rotation.state == .backedUp {
            rotation = try store.completeRotation(rotationID: id)
            try followActiveKey(after: rotation, store: store)
        }
        return rotation
    }

    /// Adds the successor of the rotation's old key: a new random ECDSA key, or for an
    /// HD-MASTER a new mnemonic (same word count, same BIP-39 passphrase, shown once and, unless
    /// `skipConfirm`, two words asked back) with HD-CHILD keys at the old children's paths,
    /// placed below it. Master, children and the journal's `successor-created` commit together.
    /// A wrong word rolls the rotation back (nothing of the new mnemonic is kept).
    func createSuccessor(for rotation: RotationRecord, name: String?, skipConfirm: Bool, store: WalletStore) throws {
        let old = try store.key(id: rotation.oldKeyID)
        switch old.kind {
        case .ecdsa:
            let key = PrivateKey.generate(using: self.random)
            try store.createSuccessor(
                rotationID: rotation.id,
                key: NewKey(
                    name: name, kind: .ecdsa, source: .generated, storage: .software, publicKey: key.publicKey,
                    address: EthereumAddress(publicKey: key.publicKey).checksummed),
                secret: .privateKey(key.secret))
        case .hdMaster:
            try createHDSuccessor(of: old, rotation: rotation, name: name, skipConfirm: skipConfirm, store: store)
        default:
            // beginRotation refuses these; a journal row pointing at one was written by something else.
            throw StoreError.notRotatable(
                name: old.name, reason: "\(old.kind.withArticle) key has no secret to replace")
        }
    }

    private func createHDSuccessor(
        of old: KeyRecord, rotation: RotationRecord, name: String?, skipConfirm: Bool,
        store: WalletStore
    ) throws {
        let oldSecret = try store.openSecret(named: old.name)
        let words: Mnemonic.WordCount =
            if oldSecret.kind == .mnemonic,
                let m = try? Mnemonic(phrase: oldSecret.payload)
            { m.wordCount } else { .twentyFour }
        // The BIP-39 passphrase is something the person remembers; the successor keeps it.
        let passphrase = oldSecret.kind == .mnemonic ? oldSecret.passphrase : nil
        let children = try store.children(ofKeyNamed: old.name)
        let addressKind = old.preset.flatMap(PathPreset.named)?.addressKind ?? .ethereum

        let mnemonic = Mnemonic(generating: words, language: .english, using: self.random)
        let seed = try passphrase.map { p throws(MnemonicError) in try mnemonic.seed(passphrase: p) } ?? mnemonic.seed()
        let master = try ExtendedKey.master(seed: seed)
        var derived: [(old: KeyRecord, path: DerivationPath, key: ExtendedKey)] = []
        for child in children {
            guard let path = child.path else { continue }
            derived.append((child, path, try master.derive(path)))
        }
        let firstAddress =
            try derived.first.map { try Session.address(of: $0.key.publicKey, kind: addressKind) }
            ?? EthereumAddress(publicKey: master.publicKey).checksummed
        let xpub = try master.serialized(.xpub)

        mnemonic.withWords { list in
            let intro =
                "The successor of \(old.name) is a new mnemonic"
                + (passphrase == nil ? "" : ", used with the same BIP-39 passphrase") + "."
            show(([intro] + Session.backupLines(list)).joined(separator: "\n"))
        }
        if !skipConfirm {
            do {
                try confirmBackup(mnemonic)
            } catch {
                _ = try? store.rollBackRotation(rotationID: rotation.id)
                throw error
            }
        }

        let phrase = mnemonic.withPhrase { Secret(utf8: $0) }
        try store.write { tx in
            let placed = try tx.createSuccessor(
                rotationID: rotation.id,
                key: NewKey(
                    name: name, kind: .hdMaster, source: .generated, storage: .software,
                    publicKey: master.publicKey, address: firstAddress, path: DerivationPath(absolute: true, []),
                    extendedPublicKey: xpub),
                secret: .mnemonic(phrase, passphrase: passphrase))
            // The store puts a successor right below the old key; an HD successor goes below the
            // old master's children instead, so each family stays together.
            let lastOld = try tx.children(ofKeyNamed: old.name).map(\.position).max() ?? 0
            let root = lastOld > placed.position ? try tx.moveKey(named: placed.name, to: lastOld) : placed
            for (i, child) in derived.enumerated() {
                let added = try tx.addKey(
                    NewKey(
                        name: try successorChildName(
                            master: root.name, oldMaster: old.name, oldChild: child.old.name,
                            index: i, tx),
                        kind: .hdChild, source: .generated, storage: .software, publicKey: child.key.publicKey,
                        address: try Session.address(of: child.key.publicKey, kind: addressKind), path: child.path,
                        parentID: root.id, preset: child.old.preset ?? root.preset))
                try tx.moveKey(named: added.name, to: root.position + 1 + i)
            }
        }
    }

    /// `savings-2` → `<successor>-2`: the old child's suffix when it was named after its master,
    /// else the child's index; nil (a default name) when that name is taken.
    private func successorChildName(
        master: String, oldMaster: String, oldChild: String, index: Int,
        _ tx: StoreTransaction
    ) throws -> String? {
        let prefix = oldMaster.lowercased() + "-"
        let suffix = oldChild.lowercased().hasPrefix(prefix) ? String(oldChild.dropFirst(prefix.count)) : String(index)
        let candidate = "\(master)-\(suffix)"
        guard KeyNaming.problem(with: candidate) == nil, try tx.findKey(named: candidate) == nil else { return nil }
        return candidate
    }

    /// Refuses, before anything is asked or stored, an HD rotation whose new mnemonic could not
    /// be confirmed: two words are asked back at a terminal, and a batch run must say `--skip-confirm`.
    /// `rotation.resume`: an unfinished rotation continued from the step it reached, after
    /// checking a new mnemonic's backup can be confirmed and asking the vault passphrase again
    /// before `operation`.
    public func resumeRotation(
        _ id: Int64, successorName: String?, yes: Bool, skipConfirm: Bool,
        operation: String
    ) throws -> RotationRecord {
        let store = try store()
        let rotation = try store.rotation(id: id)
        guard !rotation.state.isFinished else {
            throw RotationCommandError.finished(rotationID: rotation.id, state: rotation.state.rawValue)
        }
        if rotation.state == .started {
            try checkBackupCanBeConfirmed(of: try store.key(id: rotation.oldKeyID), skipConfirm: skipConfirm)
        } else if successorName != nil {
            throw RotationCommandError.successorExists(rotationID: rotation.id, successor: rotation.newKeyName ?? "")
        }
        let unlocked = try unlockedStore(reconfirming: operation)
        return try advanceRotation(
            rotation.id, successorName: successorName, yes: yes, skipConfirm: skipConfirm, store: unlocked)
    }

    /// `rotation.rollback`: an unfinished rotation abandoned — its successor (and the successor's
    /// children) deleted once confirmed and the passphrase asked again before `operation`; the
    /// old key stays as it was.
    public func rollBackRotation(_ id: Int64, yes: Bool, operation: String) throws -> RotationRecord {
        let store = try store()
        let rotation = try store.rotation(id: id)
        guard !rotation.state.isFinished else {
            throw RotationCommandError.finished(rotationID: rotation.id, state: rotation.state.rawValue)
        }
        var doomed: [String] = []
        if let successor = rotation.newKeyName {
            doomed = [successor] + (try store.children(ofKeyNamed: successor).map(\.name))
            try confirm(
                "roll back rotation \(rotation.id)? \(successor) and its secret are deleted; "
                    + "\(rotation.oldKeyName) stays as it is", yes: yes)
            _ = try unlockedStore(reconfirming: operation)
        }
        let done = try store.rollBackRotation(rotationID: rotation.id)
        forgetActiveKey(ifAmong: doomed)
        return done
    }

    public func checkBackupCanBeConfirmed(of old: KeyRecord, skipConfirm: Bool) throws {
        if case .twoParty = old.storage { throw StoreError.twoPartyNotRotatable(old.name) }
        guard old.kind == .hdMaster, !skipConfirm, prompts?.isInteractive != true else { return }
        throw KeyCommandError.backupNeedsTerminal
    }

    /// After a completed rotation, a session whose active signer was the old key (or one of
    /// its HD children) signs with the successor (or its child at the same path).
    private func followActiveKey(after rotation: RotationRecord, store: WalletStore) throws {
        guard let active = activeKey, let successorID = rotation.newKeyID else { return }
        let old = try store.key(id: rotation.oldKeyID)
        let successor = try store.key(id: successorID)
        if active.lowercased() == old.name.lowercased() {
            activeKey = successor.kind == .hdMaster ? nil : successor.name
            return
        }
        let oldChildren = try store.children(ofKeyNamed: old.name)
        guard let child = oldChildren.first(where: { $0.name.lowercased() == active.lowercased() }) else { return }
        activeKey = try store.children(ofKeyNamed: successor.name).first { $0.path == child.path }?.name
    }
}

/// Errors of the rotation commands that the store does not already name.
public enum RotationCommandError: WalletError, Equatable {
    /// The successor exists but its backup was not confirmed (declined at the terminal, or a
    /// batch run without `--yes`): the rotation stays at `successor-created`.
    case backupNotConfirmed(rotationID: Int64, old: String, successor: String, declined: Bool)
    /// Resuming or rolling back a rotation that already completed or was rolled back.
    case finished(rotationID: Int64, state: String)
    /// `--successor` given to resume a rotation whose successor exists already.
    case successorExists(rotationID: Int64, successor: String)

    /// Its sentences follow the command's name (`IdentifiableError.followsCommandName`).
    public var followsCommandName: Bool { true }

    public var id: String {
        switch self {
        case .backupNotConfirmed: "rotation.backupNotConfirmed"
        case .finished: "rotation.finished"
        case .successorExists: "builtin.optionNotApplicable"
        }
    }

    public var description: String {
        switch self {
        case .backupNotConfirmed(let id, let old, let successor, let declined):
            "\(successor) is stored, but "
                + (declined ? "its backup was not confirmed" : "confirming its backup needs a terminal or --yes")
                + "; rotation \(id) stays pending (successor-created) and \(old) keeps its secret. "
                + "Once \(successor) is backed up run `rotation resume \(id) --yes`, or undo it with `rotation rollback \(id)`"
        case .finished(let id, let state):
            "rotation \(id) is already \(state); only unfinished rotations (rotation.pending) can be resumed or rolled back"
        case .successorExists(let id, let successor):
            "--successor does not apply here: rotation \(id) already has its successor \(successor)"
        }
    }
}
