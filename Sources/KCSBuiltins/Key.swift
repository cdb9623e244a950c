import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletMPC
import WalletSession
import WalletStore

// The `key` namespace: the key dashboard of the store (docs/store.md, "Keys") — list, generate,
// show, rename, move, delete, reveal, and the rotation steps of one key. The work is the
// session's key book (`WalletSession/Keys/KeyBook.swift`); bodies convert arguments and results.

extension Builtins {
    static let key: [Builtin] = [
        Builtin(
            "key.list",
            options: [
                OptionSpec("json", nil, "as JSON text"),
                OptionSpec("active", nil, "leave retired keys out"),
            ],
            summary: "The key dashboard: position, active mark (*), name, address, kind, storage of each stored key.",
            example: "key.list --active"
        ) { args in
            try keyDashboard(args)
        },

        Builtin(
            "key.generate", traits: [.opensVault],
            options: [
                OptionSpec(
                    "type", .string, "ecdsa (one key) or hd (a mnemonic; the default; also written hd-master)",
                    choices: ["ecdsa", "hd", "hd-master"]),
                OptionSpec("words", .int, "12 or 24 words for --type hd (default 12)", choices: ["12", "24"]),
                OptionSpec("name", .string, "the key's name (default from kind and address)"),
                OptionSpec("skip-confirm", nil, "do not ask two words of a new mnemonic back (batch runs)"),
                OptionSpec(
                    "two-party", nil,
                    "a joint key made with a paired co-signer (2-party DKG; --type hd: a joint HD master): neither side ever holds it"
                ),
                OptionSpec(
                    "cosigner", .string,
                    "with --two-party: which paired co-signer, by name or HOST:PORT (needed when there are several)",
                    rules: [.onlyWith("two-party", because: "it goes with --two-party")]),
            ],
            summary:
                "A new key from the secure random source: an HD master (its mnemonic shown once) or one ECDSA key; --two-party: a joint key with a co-signer.",
            example: "key.generate --type hd --words 24 --name savings"
        ) { args in
            let session = try args.session()
            if args.flag("two-party") {
                let kind: TwoPartyKind = args.string("type") == "ecdsa" ? .ecdsa : .hdMaster
                return keyValue(
                    try session.generateTwoPartyKey(
                        kind: kind, name: args.string("name"), cosigner: args.string("cosigner")))
            }
            switch args.string("type") ?? "hd" {
            case "ecdsa":
                return keyValue(try session.generateECDSAKey(name: args.string("name")))
            default:  // hd; the table declares the choices
                return .list(
                    try session.generateHDKey(
                        words: wordCount(args), name: args.string("name"),
                        skipConfirm: args.flag("skip-confirm")
                    ).map(keyValue))
            }
        },

        Builtin(
            "key.show", params: [ParamSpec("name", .string)],
            options: [
                OptionSpec(
                    "reveal", nil,
                    "also show the private key and its WIF (mainnet, testnet), after the vault passphrase again")
            ],
            summary:
                "One key: kind, public key, curve, address, path, storage, created, parent, rotation, last 10 signatures.",
            example: "key.show savings"
        ) { args in
            let session = try args.session()
            let store = try session.store()
            let name = args.string("name") ?? ""
            let revealed =
                try args.flag("reveal")
                ? revealedFields(session.revealSigningKey(ofKeyNamed: name, operation: args.command)) : []
            let due = try rotationDue(session, store, args)
            return try store.read { tx in
                let r = try tx.key(named: name)
                var fields = keyFields(r)
                if let parent = r.parentID { fields.append(("parent", .string(try tx.key(id: parent).name))) }
                if case .twoParty = r.storage, let parameters = try tx.twoPartyParameters(keyID: r.parentID ?? r.id) {
                    fields += twoPartyFields(parameters, try tx.twoPartyPeer(named: parameters.peer))
                }
                fields.append(("rotation", .string(rotationText(r, due: due))))
                let recent = try tx.history(HistoryQuery(keyName: r.name, limit: 10))
                fields.append(("signatures", .list(recent.map { historyValue($0) })))
                return .map(ValueMap(fields + revealed))
            }
        },

        Builtin(
            "key.rename", params: [ParamSpec("name", .string), ParamSpec("new", .string)],
            summary: "Renames a key (its signing history follows).",
            example: "key.rename eth-9858-da94 spending"
        ) { args in
            let store = try args.session().store()
            return keyValue(try store.renameKey(named: args.string("name") ?? "", to: args.string("new") ?? ""))
        },

        Builtin(
            "key.move", params: [ParamSpec("name", .string)],
            options: [
                OptionSpec("to", .int, "the new position (1 is the top)"),
                OptionSpec("up", nil, "one place up"),
                OptionSpec("down", nil, "one place down"),
            ],
            summary: "Moves a key in the dashboard's order.",
            example: "key.move savings --to 1"
        ) { args in
            let store = try args.session().store()
            let name = args.string("name") ?? ""
            let given = [args.value("to") != nil, args.flag("up"), args.flag("down")].filter { $0 }.count
            guard given == 1 else { throw KeyCommandError.moveNeedsOneOption(given: given) }
            if args.flag("up") { return keyValue(try store.moveKeyUp(named: name)) }
            if args.flag("down") { return keyValue(try store.moveKeyDown(named: name)) }
            let to = try smallInt(args.integer("to") ?? 0, "--to", in: 1...Int(Int32.max))
            return keyValue(try store.moveKey(named: name, to: to))
        },

        Builtin(
            "key.delete", params: [ParamSpec("name", .string)],
            options: [
                OptionSpec("yes", nil, "confirm without asking (batch runs)"),
                OptionSpec("children", nil, "also delete an HD master's child keys"),
            ],
            summary: "Deletes a key and its sealed secret; its signing history stays under its name.",
            example: "key.delete old-key --yes"
        ) { args in
            let session = try args.session()
            let deleted = try session.deleteKey(
                named: args.string("name") ?? "", children: args.flag("children"),
                yes: args.flag("yes"), operation: args.command)
            return .list(deleted.map { .string($0.name) })
        },

        Builtin(
            "key.reveal", traits: [.opensVault], params: [ParamSpec("name", .string)],
            summary: "The key's secret (mnemonic, seed or private key) as a secret value; marks the key revealed.",
            example: "print (reveal (key.reveal savings))"
        ) { args in
            let session = try args.session()
            let secret = try session.revealSecret(ofKeyNamed: args.string("name") ?? "", operation: args.command)
            switch secret.kind {
            case .mnemonic: return SecretKind.mnemonic.value(secret.payload)
            case .seed: return SecretKind.seed.value(secret.payload)
            default: return SecretKind.privateKey.value(secret.payload)
            }
        },

        Builtin(
            "key.flag", params: [ParamSpec("name", .string)],
            options: [
                OptionSpec(
                    "exposed", nil, "the secret is known (or feared) to be exposed, not just due for rotation",
                    rules: [.notWith(["clear"], because: "--clear removes the flag")]),
                OptionSpec("clear", nil, "remove the flag"),
            ],
            summary:
                "Flags a key for rotation (listed by keys.rotation and when the console starts), or clears the flag.",
            example: "key.flag hot-wallet --exposed"
        ) { args in
            let store = try args.session().store()
            let record = try store.key(named: args.string("name") ?? "")
            guard !record.retired else { throw StoreError.keyRetired(name: record.name) }
            if args.flag("clear") {
                return rotationKeyValue(try store.clearRotationFlag(named: record.name), open: nil)
            }
            let flagged = try store.flagForRotation(named: record.name, reason: args.flag("exposed") ? .exposed : .user)
            return rotationKeyValue(flagged, open: nil)
        },

        Builtin(
            "key.rotate", traits: [.opensVault], params: [ParamSpec("name", .string)],
            options: [
                OptionSpec("successor", .string, "the new key's name (default from its kind and address)"),
                OptionSpec("yes", nil, "confirm that the successor is backed up without asking (batch runs)"),
                OptionSpec("skip-confirm", nil, "do not ask two words of a new mnemonic back (batch runs)"),
            ],
            summary:
                "Replaces a key by a new one of the same kind and preset; the old secret is wiped once the new one is backed up.",
            example: "key.rotate hot-wallet --successor hot-2026"
        ) { args in
            let session = try args.session()
            let store = try session.store()
            let old = try store.key(named: args.string("name") ?? "")
            try session.checkBackupCanBeConfirmed(of: old, skipConfirm: args.flag("skip-confirm"))
            let unlocked = try session.unlockedStore(reconfirming: args.command)
            let begun = try unlocked.beginRotation(ofKeyNamed: old.name)
            let done = try session.advanceRotation(
                begun.id, successorName: args.string("successor"), yes: args.flag("yes"),
                skipConfirm: args.flag("skip-confirm"), store: unlocked)
            return rotationValue(done)
        },

        Builtin(
            "key.lineage", params: [ParamSpec("name", .string)],
            summary: "The rotation chain through a key, oldest first: each key with its rotation state and successor.",
            example: "key.lineage hot-wallet"
        ) { args in
            let store = try args.session().store()
            let chain = try store.lineage(ofKeyNamed: args.string("name") ?? "")
            let open = try store.pendingRotations()
            let names = Dictionary(chain.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            return .list(
                try chain.map { r in
                    var value = rotationKeyValue(r, open: open.first { $0.oldKeyID == r.id || $0.newKeyID == r.id })
                    if let next = r.successorID, case .map(var fields) = value {
                        fields["successor"] = .string(try names[next] ?? store.key(id: next).name)
                        value = .map(fields)
                    }
                    return value
                })
        },
    ]
}

extension Builtins {

    // MARK: - Helpers

    /// `key.list`: the stored keys as a table (records), or JSON text with `--json`.
    static func keyDashboard(_ args: CallArguments) throws -> Value {
        let session = try args.session()
        let store = try session.store()
        let records = try store.keys(includeRetired: !args.flag("active"))
        if args.flag("json") {
            let due = try rotationDue(session, store, args)
            return .string(Value.list(records.map { keyListRecord($0, due: due) }).json)
        }
        // `*` marks the active signer (`use key`, `use card`).
        let active = session.activeKey
        return .list(
            records.map { r in
                .map(
                    ValueMap([
                        ("#", .int(r.position)), ("active", .string(r.name == active ? "*" : "")),
                        ("name", .string(r.name)),
                        ("address", r.address.map(Value.string) ?? .null),
                        ("kind", .string(r.kind.rawValue + (r.retired ? " (retired)" : ""))),
                        ("storage", .string(r.storage.rawValue)),
                    ]))
            })
    }

    /// What `key.show --reveal` adds: the private key and its compressed WIF on both networks,
    /// as text (the person asked to see them).
    static func revealedFields(_ key: PrivateKey) -> [(String, Value)] {
        func text(_ secret: Secret) -> Value { .string(secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }) }
        return [
            ("privateKey", .bytes(key.secret.withUnsafeBytes { Array($0) })),
            ("wif", text(WIF(privateKey: key).encoded())),
            ("wifTestnet", text(WIF(privateKey: key, network: .testnet).encoded())),
        ]
    }

    /// One key of `key.list --json`: every field, under the names `key.show` uses (`rotation`
    /// as it says it), plus what only a program needs: ids, `retired`, `hasSecret`, `revealed`.
    static func keyListRecord(_ r: KeyRecord, due: [RotationCandidate]) -> Value {
        var f: [(String, Value)] = [("id", .int(Int(r.id)))] + keyFields(r)
        f.append(("rotation", .string(rotationText(r, due: due))))
        f.append(("retired", .bool(r.retired)))
        f.append(("hasSecret", .bool(r.hasSecret)))
        f.append(("revealed", r.revealedAt.map { .string(isoDate($0)) } ?? .null))
        f.append(("parentID", r.parentID.map { .int(Int($0)) } ?? .null))
        f.append(("successorID", r.successorID.map { .int(Int($0)) } ?? .null))
        return .map(ValueMap(f))
    }

    /// A key's rotation status as `key.show` says it: `retired`, `due: REASONS` when
    /// `keys.rotation` lists it (flagged, revealed, imported raw, too old), else `ok`.
    static func rotationText(_ r: KeyRecord, due: [RotationCandidate]) -> String {
        if r.retired { return "retired" }
        guard let candidate = due.first(where: { $0.key.id == r.id }) else { return "ok" }
        return "due: " + candidate.reasons.map(\.description).joined(separator: "; ")
    }

    /// The keys the rotation policy lists now (`keys.rotation` without options).
    static func rotationDue(
        _ session: Session, _ store: WalletStore, _ args: CallArguments
    ) throws -> [RotationCandidate] {
        try store.keysNeedingRotation(now: session.clock(), maxAgeDays: maxAgeDays(args, store: store))
    }

    /// A key as a record value (what `keys`, `key.show` and the import commands return).
    static func keyValue(_ r: KeyRecord) -> Value { .map(ValueMap(keyFields(r))) }

    static func keyFields(_ r: KeyRecord) -> [(String, Value)] {
        var f: [(String, Value)] = [
            ("name", .string(r.name)), ("kind", .string(r.kind.rawValue)), ("position", .int(r.position)),
        ]
        if let pk = r.publicKey {
            f.append(("publicKey", .bytes(pk)))
            f.append(("curve", .string("secp256k1")))
        }
        if let a = r.address { f.append(("address", .string(a))) }
        if let p = r.path { f.append(("path", .string(p.description))) }
        if let x = r.extendedPublicKey { f.append(("xpub", .string(x))) }
        f.append(("storage", .string(r.storage.rawValue)))
        if let p = r.preset { f.append(("preset", .string(p))) }
        f.append(("source", .string(r.source.rawValue)))
        f.append(("created", .string(isoDate(r.createdAt))))
        return f
    }

    /// A history row as the table shows it; `full` adds its id and signature (`history --json`).
    /// One signature of the history: the same fields, names and order as `history --json` and
    /// the columns of `history --csv` (`HistoryExport.columns`); `chainId` nil when none.
    static func historyValue(_ h: HistoryRecord) -> Value {
        .map(
            ValueMap([
                ("id", .int(Int(h.id))), ("time", .string(HistoryExport.timeText(h.date))), ("key", .string(h.keyName)),
                ("kind", .string(h.kind.rawValue)), ("digest", .bytes(h.digest)),
                ("digestName", .string(h.kind.digestName)), ("signature", .bytes(h.signature)),
                ("signer", .string(h.signer)), ("verified", .bool(h.verified)),
                ("chainId", h.chainID.map { uintValue(UInt256($0)) } ?? .null),
            ]))
    }

    /// One request to `kcs signer serve` and its outcome (docs/signer.md, "The log").
    static func signerRequestValue(_ r: SignerRequestRecord) -> Value {
        let q = r.request
        return .map(
            ValueMap([
                ("id", .int(Int(r.id))), ("time", .string(HistoryExport.timeText(r.date))), ("method", .string(q.method)),
                ("caller", .string(q.caller)), ("key", .string(q.keyName)), ("account", .string(q.account)),
                ("outcome", .string(q.outcome.rawValue)), ("decidedBy", .string(q.decidedBy)),
                ("digest", q.digest.map { .bytes($0) } ?? .null),
                ("chainId", q.chainID.map { uintValue(UInt256($0)) } ?? .null),
                ("value", uintValue(UInt256(decimal: q.valueWei) ?? .zero)), ("sent", .bool(q.sent)),
                ("transactionHash", q.transactionHash.map { .bytes($0) } ?? .null),
            ]))
    }

    /// `2026-01-31T12:00:00Z` (UTC, whole seconds). A format style, not an `ISO8601DateFormatter`:
    /// it is a value (no shared mutable state) and about a hundred times cheaper than making
    /// a formatter for every history row.
    static func isoDate(_ d: Date) -> String { isoDateStyle.format(d) }

    static let isoDateStyle = Date.ISO8601FormatStyle()

    /// `YYYY-MM-DD` (midnight UTC) or a full ISO 8601 time.
    static func parseDate(_ text: String) throws -> Date {
        let full = ISO8601DateFormatter()
        if let d = full.date(from: text) { return d }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        if let d = day.date(from: text) { return d }
        throw BuiltinError.outOfRange(name: "--since", expected: "a date like 2026-01-31", got: text)
    }

    /// `--preset` (metamask when absent) or `--preset custom --path TEMPLATE`.
    static func presetArgument(_ args: CallArguments) throws -> (PathPreset?, String?) {
        let name = args.string("preset") ?? "metamask"
        if name == "custom" {
            guard let typed = args.string("path") else { throw KeyCommandError.customNeedsPath }
            // `*` marks the account number (`m/44'/60'/*'/0/0`): a form that can be typed in a
            // string, where `{i}` would be an interpolation. Presets spell it `{i}`.
            let path = typed.replacingOccurrences(of: "*", with: "{i}")
            guard path.components(separatedBy: "{i}").count == 2 else {
                throw BuiltinError.outOfRange(
                    name: "--path",
                    expected: "a template with one * where the account number goes, e.g. \"m/44'/60'/*'/0/0\"",
                    got: typed)
            }
            _ = try DerivationPath(path.replacingOccurrences(of: "{i}", with: "0"))
            return (nil, path)
        }
        guard let preset = PathPreset.named(name), preset.name != "eip1581" else {
            throw BuiltinError.badChoice(
                option: "preset",
                expected: PathPreset.all.filter { $0.name != "eip1581" }.map(\.name) + ["trezor", "custom"],
                got: name)
        }
        return (preset, nil)
    }

    /// A private key argument: `0x` + 32 bytes (text or bytes), WIF text, or a secret of either.
    static func privateKeyArgument(_ value: Value?) throws -> PrivateKey {
        switch value {
        case .bytes(let b):
            guard b.count == 32 else { throw KeyCommandError.privateKeyLength(got: b.count) }
            return try PrivateKey(bytes: b)
        case .string(let text):
            return try privateKey(text: text)
        case .secret(let s):
            let secret = try secretBytes(s)
            if secret.count == 32 { return try PrivateKey(secret) }
            let text = secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            return try privateKey(text: text)
        default:
            throw KeyCommandError.privateKeyLength(got: 0)
        }
    }

    static func privateKey(text: String) throws -> PrivateKey {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if t.hasPrefix("0x") || t.hasPrefix("0X") {
            let bytes = try Hex.decode(t)
            guard bytes.count == 32 else { throw KeyCommandError.privateKeyLength(got: bytes.count) }
            return try PrivateKey(bytes: bytes)
        }
        return try WIF(t).privateKey
    }

}
