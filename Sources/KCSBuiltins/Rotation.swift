import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `rotation` namespace and `keys.rotation`: key rotation as console commands (docs/store.md,
// "Rotation"). The steps are the session's rotation driver (`WalletSession/Rotation/Rotation.swift`);
// every step is one store call, so the journal always says how far a rotation got.

extension Builtins {
    static let rotation: [Builtin] = [
        Builtin(
            "keys.rotation",
            options: [
                OptionSpec(
                    "max-age-days", .int,
                    "also list software keys older than this many days (default: the rotation.max-age-days setting)",
                    in: 1...1_000_000)
            ],
            summary: "The keys that need rotation, each with its reasons: flagged, revealed, imported raw, or too old.",
            example: "keys.rotation --max-age-days 365"
        ) { args in
            let session = try args.session()
            let store = try session.store()
            let maxAge = try maxAgeDays(args, store: store)
            return .list(
                try store.keysNeedingRotation(now: session.clock(), maxAgeDays: maxAge).map { candidate in
                    var fields: [(String, Value)] = [
                        ("name", .string(candidate.key.name)),
                        ("kind", .string(candidate.key.kind.rawValue)),
                    ]
                    if let a = candidate.key.address { fields.append(("address", .string(a))) }
                    fields.append(("reasons", .list(candidate.reasons.map { .string($0.description) })))
                    return .map(ValueMap(fields))
                })
        },

        Builtin(
            "rotation.pending",
            summary: "Unfinished rotations, oldest first: id, old and new key, the step reached and what comes next.",
            example: "let open = rotation pending"
        ) { args in
            return .list(try args.session().store().pendingRotations().map(rotationValue))
        },

        Builtin(
            "rotation.resume", traits: [.opensVault], params: [ParamSpec("id", .int)],
            options: [
                OptionSpec("successor", .string, "the new key's name, when the successor is still to be created"),
                OptionSpec("yes", nil, "confirm that the successor is backed up without asking (batch runs)"),
                OptionSpec("skip-confirm", nil, "do not ask two words of a new mnemonic back (batch runs)"),
            ],
            summary: "Continues an unfinished rotation from the step it reached (see rotation.pending).",
            example: "rotation.resume 3 --yes"
        ) { args in
            rotationValue(
                try args.session().resumeRotation(
                    try rotationID(args), successorName: args.string("successor"),
                    yes: args.flag("yes"), skipConfirm: args.flag("skip-confirm"),
                    operation: args.command))
        },

        Builtin(
            "rotation.rollback", traits: [.opensVault], params: [ParamSpec("id", .int)],
            options: [OptionSpec("yes", nil, "confirm deleting the successor without asking (batch runs)")],
            summary:
                "Abandons an unfinished rotation: deletes the successor, if one was made; the old key stays as it was.",
            example: "rotation.rollback 3 --yes"
        ) { args in
            rotationValue(
                try args.session().rollBackRotation(
                    try rotationID(args), yes: args.flag("yes"), operation: args.command))
        },
    ]
}

extension Builtins {

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
            f.append(
                (
                    "next",
                    .string("confirm \(r.newKeyName ?? "the successor") is backed up: rotation resume \(r.id) --yes")
                ))
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
        let state: String =
            if r.retired { "retired" } else if let open {
                "rotating (#\(open.id), \(open.state.rawValue))"
            } else if let flag = r.rotationFlag { "flagged (\(flag.rawValue))" } else { "ok" }
        f.append(("rotation", .string(state)))
        f.append(("retired", .bool(r.retired)))
        if let revealed = r.revealedAt { f.append(("revealed", .string(isoDate(revealed)))) }
        return .map(ValueMap(f))
    }

    /// The rotation id argument as the store's row id.
    static func rotationID(_ args: CallArguments) throws -> Int64 {
        Int64(try smallInt(args.integer("id") ?? 0, "argument 1 (id)", in: 1...Int(Int32.max)))
    }

    /// `--max-age-days N`, else the `rotation.max-age-days` setting, else no age rule.
    static func maxAgeDays(_ args: CallArguments, store: WalletStore) throws -> Int? {
        if let n = args.int("max-age-days") { return n }
        guard let text = try store.setting(Session.maxAgeSetting) else { return nil }
        guard let days = Int(text.trimmingCharacters(in: .whitespaces)), days >= 1 else {
            throw BuiltinError.outOfRange(
                name: "the setting \(Session.maxAgeSetting)",
                expected: "a whole number of days, 1 or more", got: text)
        }
        return days
    }
}
