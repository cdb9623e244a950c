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
            try session.checkBackupCanBeConfirmed(of: old, skipConfirm: args.flag("skip-confirm"), command: c)
            let unlocked = try session.unlockedStore(for: c, reconfirm: true)
            let begun = try unlocked.beginRotation(ofKeyNamed: old.name)
            let done = try session.advanceRotation(begun.id, successorName: args.string("successor"), yes: args.flag("yes"),
                                           skipConfirm: args.flag("skip-confirm"), store: unlocked,
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
                try session.checkBackupCanBeConfirmed(of: old, skipConfirm: args.flag("skip-confirm"), command: c)
            } else if args.string("successor") != nil {
                throw BuiltinError.optionNotApplicable(
                    command: c, option: "successor",
                    reason: "rotation \(rotation.id) already has its successor \(rotation.newKeyName ?? "")")
            }
            let unlocked = try session.unlockedStore(for: c, reconfirm: true)
            let done = try session.advanceRotation(rotation.id, successorName: args.string("successor"), yes: args.flag("yes"),
                                           skipConfirm: args.flag("skip-confirm"), store: unlocked,
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
