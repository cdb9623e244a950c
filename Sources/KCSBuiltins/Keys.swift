import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `key`, `import`, `use` and `vault` namespaces, `keys`, `sign` and `history`: the wallet
// store as console commands (issue 5). Every command is one store transaction; secrets come
// in as secret values and go to the store sealed; nothing here prints.

extension Builtins {
    static let keyStore: [Builtin] = [
        // MARK: - Creating keys

        Builtin("key.list",
                options: [
                    OptionSpec("json", nil, "as JSON text"),
                    OptionSpec("active", nil, "leave retired keys out"),
                ],
                summary: "The key dashboard: position, name, address, kind, storage of each stored key.",
                example: "key.list --active") { args in
            try keyDashboard(args)
        },

        Builtin("key.generate",
                options: [
                    OptionSpec("type", .string, "ecdsa (one key) or hd (a mnemonic; the default)", choices: ["ecdsa", "hd"]),
                    OptionSpec("words", .int, "12 or 24 words for --type hd (default 12)", choices: ["12", "24"]),
                    OptionSpec("name", .string, "the key's name (default from kind and address)"),
                    OptionSpec("skip-confirm", nil, "do not ask two words of a new mnemonic back (batch runs)"),
                ],
                summary: "A new key from the secure random source: an HD master (its mnemonic shown once) or one ECDSA key.",
                example: "key.generate --type hd --words 24 --name savings") { args in
            let c = args.command
            let session = try args.session(c)
            switch args.string("type") ?? "hd" {
            case "ecdsa":
                return keyValue(try session.generateECDSAKey(name: args.string("name"), command: c))
            default:  // hd; the table declares the choices
                let words = try wordCount(args, c)
                guard words == .twelve || words == .twentyFour else {
                    throw BuiltinError.badChoice(command: c, option: "words", expected: ["12", "24"], got: String(words.rawValue))
                }
                return .list(try session.generateHDKey(words: words, name: args.string("name"),
                                                       skipConfirm: args.flag("skip-confirm"), command: c).map(keyValue))
            }
        },

        Builtin("import.mnemonic", params: [ParamSpec("mnemonic", mnemonicType, secret: true)],
                options: [
                    OptionSpec("passphrase", passphraseType, "BIP-39 passphrase (the \"25th word\")", secret: true),
                    OptionSpec("preset", .string, "metamask, trezor, ledger-live, ledger-legacy, bip44, bip49, bip84, bip86 or custom"),
                    OptionSpec("path", .string, "the path template for --preset custom, with {i} for the account (e.g. m/44'/60'/{i}'/0/0)"),
                    OptionSpec("accounts", .int, "how many accounts (HD-CHILD keys) to add under the preset (default 1)"),
                    OptionSpec("name", .string, "the master key's name"),
                ],
                summary: "Stores a mnemonic as an HD-MASTER key and N HD-CHILD keys at the preset's paths.",
                example: "import mnemonic \"abandon … about\" --preset ledger-live --accounts 3") { args in
            let c = args.command
            let session = try args.session(c)
            let mnemonic = try parseMnemonic(args["mnemonic"], language: nil, c)
            let (preset, custom) = try presetArgument(args, c)
            let accounts = try args.integer("accounts").map { try smallInt($0, c, "--accounts", in: 0...1000) } ?? 1
            let passphrase: Secret? = switch args.value("passphrase") {
            case .string(let p): Secret(utf8: p)
            case .secret(let s): try secretBytes(s, c)
            default: nil
            }
            let records = try session.importMnemonic(mnemonic, passphrase: passphrase, preset: preset, customPath: custom,
                                                     accounts: accounts, name: args.string("name"), source: .mnemonic, command: c)
            return .list(records.map(keyValue))
        },

        Builtin("import.privkey", params: [ParamSpec("key", .oneOf([.string, .bytes, .secret(nil)]), secret: true)],
                options: [OptionSpec("name", .string, "the key's name")],
                summary: "Stores a raw private key (0x + 64 hex digits, or WIF) as an ECDSA key.",
                example: "import privkey 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318") { args in
            let c = args.command
            let session = try args.session(c)
            let key = try privateKeyArgument(args["key"], c)
            return keyValue(try session.importPrivateKey(key, name: args.string("name"), source: .privkey, command: c))
        },

        Builtin("import.xpub", params: [ParamSpec("xpub", .string)],
                options: [OptionSpec("name", .string, "the key's name")],
                summary: "Stores an extended public key as a watch-only key (its first address shown).",
                example: "import xpub xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj") { args in
            let c = args.command
            let session = try args.session(c)
            let text = args.string("xpub") ?? ""
            let key = try ExtendedKey(text)
            guard !key.isPrivate else { throw KeyCommandError.privateWhereWatchOnly(command: c) }
            return keyValue(try session.importWatchOnly(xpub: key, text: text, name: args.string("name"), command: c))
        },

        Builtin("import.address", params: [ParamSpec("address", .oneOf([.string, .bytes]))],
                options: [OptionSpec("name", .string, "the key's name")],
                summary: "Stores an Ethereum address as a watch-only key (EIP-55 checksum checked when mixed case).",
                example: "import address 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 --name cold") { args in
            let c = args.command
            let session = try args.session(c)
            // A bare 0x… word arrives as bytes (no checksum to check); quoted text keeps EIP-55's.
            let address = if case .bytes(let b)? = args["address"] { try EthereumAddress(bytes: b) }
                else { try EthereumAddress(args.string("address") ?? "") }
            return keyValue(try session.importWatchOnly(address: address, name: args.string("name"), command: c))
        },

        // MARK: - The dashboard

        Builtin("key.show", params: [ParamSpec("name", .string)],
                summary: "One key: kind, public key, curve, address, path, storage, created, parent, rotation, last 10 signatures.",
                example: "key.show savings") { args in
            let c = args.command
            let store = try args.session(c).store(for: c)
            let name = args.string("name") ?? ""
            return try store.read { tx in
                let r = try tx.key(named: name)
                var fields = keyFields(r)
                if let parent = r.parentID { fields.append(("parent", .string(try tx.key(id: parent).name))) }
                let rotation: String = if r.retired { "retired" } else if let f = r.rotationFlag { "flagged (\(f))" } else { "ok" }
                fields.append(("rotation", .string(rotation)))
                let recent = try tx.history(HistoryQuery(keyName: r.name, limit: 10))
                fields.append(("signatures", .list(recent.map(historyValue))))
                return .map(ValueMap(fields))
            }
        },

        Builtin("key.rename", params: [ParamSpec("name", .string), ParamSpec("new", .string)],
                summary: "Renames a key (its signing history follows).",
                example: "key.rename eth-9858-da94 savings") { args in
            let c = args.command
            let store = try args.session(c).store(for: c)
            return keyValue(try store.renameKey(named: args.string("name") ?? "", to: args.string("new") ?? ""))
        },

        Builtin("key.move", params: [ParamSpec("name", .string)],
                options: [
                    OptionSpec("to", .int, "the new position (1 is the top)"),
                    OptionSpec("up", nil, "one place up"),
                    OptionSpec("down", nil, "one place down"),
                ],
                summary: "Moves a key in the dashboard's order.",
                example: "key.move savings --to 1") { args in
            let c = args.command
            let store = try args.session(c).store(for: c)
            let name = args.string("name") ?? ""
            let given = [args.value("to") != nil, args.flag("up"), args.flag("down")].filter { $0 }.count
            guard given == 1 else { throw KeyCommandError.moveNeedsOneOption(command: c, given: given) }
            if args.flag("up") { return keyValue(try store.moveKeyUp(named: name)) }
            if args.flag("down") { return keyValue(try store.moveKeyDown(named: name)) }
            let to = try smallInt(args.integer("to") ?? 0, c, "--to", in: 1...Int(Int32.max))
            return keyValue(try store.moveKey(named: name, to: to))
        },

        Builtin("key.delete", params: [ParamSpec("name", .string)],
                options: [
                    OptionSpec("yes", nil, "confirm without asking (batch runs)"),
                    OptionSpec("children", nil, "also delete an HD master's child keys"),
                ],
                summary: "Deletes a key and its sealed secret; its signing history stays under its name.",
                example: "key.delete old-key --yes") { args in
            let c = args.command
            let session = try args.session(c)
            let deleted = try session.deleteKey(named: args.string("name") ?? "", children: args.flag("children"),
                                                yes: args.flag("yes"), command: c)
            return .list(deleted.map { .string($0.name) })
        },

        Builtin("key.reveal", params: [ParamSpec("name", .string)],
                summary: "The key's secret (mnemonic, seed or private key) as a secret value; marks the key revealed.",
                example: "print (reveal (key.reveal savings))") { args in
            let c = args.command
            let session = try args.session(c)
            let secret = try session.revealSecret(ofKeyNamed: args.string("name") ?? "", command: c)
            switch secret.kind {
            case .mnemonic: return SecretKind.mnemonic.value(secret.payload)
            case .seed: return SecretKind.seed.value(secret.payload)
            default: return SecretKind.privateKey.value(secret.payload)
            }
        },

        Builtin("use.key", params: [ParamSpec("name", .string)],
                summary: "Makes a stored key (software, or a card key: the card signs) the active signer for `sign`.",
                example: "use key savings") { args in
            let c = args.command
            let session = try args.session(c)
            return keyValue(try session.useKey(named: args.string("name") ?? "", command: c))
        },

        // MARK: - Signing and history

        Builtin("sign", params: [ParamSpec("digest", .bytes)],
                options: [
                    OptionSpec("key", .string, "sign with this stored key instead of the active one"),
                    OptionSpec("path", pathType, "card: derive the key at this path and sign with it (one SIGN)"),
                    OptionSpec("make-current", nil, "card: with --path, the path becomes the card's current path"),
                    OptionSpec("pinless", nil, "card: sign with the PIN-less path (no PIN, no secure channel)"),
                ],
                summary: "Signs a 32-byte digest with the active key (or card): {digest, signature, r, s, v, yParity, signer, …}; recorded in the history.",
                example: "sign 0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8") { args in
            let c = args.command
            let session = try args.session(c)
            guard case .bytes(let digest)? = args["digest"], digest.count == 32 else {
                let n = if case .bytes(let b)? = args["digest"] { b.count } else { 0 }
                throw KeyCommandError.digestLength(command: c, got: n)
            }
            let signed = try signer(args, c).sign(digest: digest, kind: .hash, chainID: nil)
            return .map(ValueMap([("digest", .bytes(digest))] + signatureFields(signed)))
        },

        Builtin("history",
                options: [
                    OptionSpec("key", .string, "only this key's signatures"),
                    OptionSpec("since", .string, "only from this date on (YYYY-MM-DD, or ISO 8601)"),
                    OptionSpec("kind", .string, "hash, message, typed or transaction", choices: SignatureKind.allCases.map(\.rawValue)),
                    OptionSpec("limit", .int, "at most this many, newest first (default 50)"),
                    OptionSpec("json", nil, "as JSON text"),
                    OptionSpec("csv", nil, "as CSV text"),
                ],
                summary: "The signing history, newest first: time, key, kind, digest, signer, verified.",
                example: "history --key savings --since 2026-01-01 --csv") { args in
            let c = args.command
            let store = try args.session(c).store(for: c)
            var query = HistoryQuery(keyName: args.string("key"), limit: 50)
            if let n = args.integer("limit") { query.limit = try smallInt(n, c, "--limit", in: 1...10_000_000) }
            if let since = args.string("since") { query.since = try parseDate(since, c) }
            if let kind = args.string("kind") {
                guard let k = SignatureKind(rawValue: kind) else {
                    throw BuiltinError.badChoice(command: c, option: "kind", expected: SignatureKind.allCases.map(\.rawValue), got: kind)
                }
                query.kind = k
            }
            let records = try store.history(query)
            if args.flag("csv") { return .string(HistoryExport.csv(records)) }
            if args.flag("json") { return .string(HistoryExport.json(records)) }
            return .list(records.map(historyValue))
        },

        // MARK: - The vault

        Builtin("vault.status",
                summary: "Whether the vault exists and is unlocked, with its scrypt parameters.",
                example: "vault.status") { args in
            let c = args.command
            let store = try args.session(c).store(for: c)
            var fields: [(String, Value)] = [("state", .string(try store.vaultStatus().rawValue))]
            if let info = try store.vaultInfo() { fields.append(("kdf", .string(info.parameters.description))) }
            return .map(ValueMap(fields))
        },

        Builtin("vault.lock", summary: "Locks the vault now: the next command that needs a secret asks the passphrase.",
                example: "vault.lock") { args in
            try args.session("vault.lock").lockVault()
            return .null
        },

        Builtin("vault.change-passphrase",
                summary: "Re-seals every secret under a new vault passphrase (the old one asked first).",
                example: "vault.change-passphrase") { args in
            let c = args.command
            let session = try args.session(c)
            let store = try session.store(for: c)
            let old = try session.passphrase(for: c, prompt: "current vault passphrase: ")
            let new = try session.passphrase(for: c, prompt: "new vault passphrase: ")
            if session.prompts?.isInteractive == true {
                guard try session.passphrase(for: c, prompt: "the new passphrase again: ") == new else {
                    throw SessionError.passphrasesDiffer(command: c)
                }
            }
            try store.changePassphrase(old: old, new: new)
            return .null
        },
    ]

    // MARK: - Helpers

    /// `key.list` (and `keys` without a map, its older spelling): the stored keys as a table (records), or JSON text with `--json`.
    static func keyDashboard(_ args: CallArguments) throws -> Value {
        let c = args.command
        let store = try args.session(c).store(for: c)
        let records = try store.keys(includeRetired: !args.flag("active"))
        if args.flag("json") { return .string(try jsonText(records)) }
        return .list(records.map { r in
            .map(ValueMap([
                ("#", .int(r.position)), ("name", .string(r.name)), ("address", .string(snippet(r.address))),
                ("kind", .string(r.kind.rawValue + (r.retired ? " (retired)" : ""))),
                ("storage", .string(r.storage.rawValue)),
            ]))
        })
    }

    /// A key as a record value (what `keys`, `key.show` and the import commands return).
    static func keyValue(_ r: KeyRecord) -> Value { .map(ValueMap(keyFields(r))) }

    static func keyFields(_ r: KeyRecord) -> [(String, Value)] {
        var f: [(String, Value)] = [("name", .string(r.name)), ("kind", .string(r.kind.rawValue)), ("position", .int(r.position))]
        if let pk = r.publicKey { f.append(("publicKey", .bytes(pk))); f.append(("curve", .string("secp256k1"))) }
        if let a = r.address { f.append(("address", .string(a))) }
        if let p = r.path { f.append(("path", .string(p.description))) }
        if let x = r.extendedPublicKey { f.append(("xpub", .string(x))) }
        f.append(("storage", .string(r.storage.rawValue)))
        if let p = r.preset { f.append(("preset", .string(p))) }
        f.append(("source", .string(r.source.rawValue)))
        f.append(("created", .string(isoDate(r.createdAt))))
        return f
    }

    static func historyValue(_ h: HistoryRecord) -> Value {
        var f: [(String, Value)] = [
            ("time", .string(isoDate(h.date))), ("key", .string(h.keyName)), ("kind", .string(h.kind.rawValue)),
            ("digest", .bytes(h.digest)), ("signer", .string(h.signer)), ("verified", .bool(h.verified)),
        ]
        if let chain = h.chainID { f.append(("chainId", .int(Int(chain)))) }
        return .map(ValueMap(f))
    }

    /// `2026-01-31T12:00:00Z` (UTC, whole seconds). A format style, not an `ISO8601DateFormatter`:
    /// it is a value (no shared mutable state) and about a hundred times cheaper than making
    /// a formatter for every history row.
    static func isoDate(_ d: Date) -> String { isoDateStyle.format(d) }

    private static let isoDateStyle = Date.ISO8601FormatStyle()

    /// `YYYY-MM-DD` (midnight UTC) or a full ISO 8601 time.
    static func parseDate(_ text: String, _ command: String) throws -> Date {
        let full = ISO8601DateFormatter()
        if let d = full.date(from: text) { return d }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        if let d = day.date(from: text) { return d }
        throw BuiltinError.outOfRange(command: command, name: "--since", expected: "a date like 2026-01-31", got: text)
    }

    /// `0x1234…abcd` for the dashboard.
    static func snippet(_ address: String?) -> String {
        guard let a = address else { return "-" }
        guard a.count > 14 else { return a }
        return String(a.prefix(6)) + "…" + String(a.suffix(4))
    }

    static func jsonText(_ records: [KeyRecord]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(records), as: UTF8.self)
    }

    /// `--preset` (metamask when absent) or `--preset custom --path TEMPLATE`.
    static func presetArgument(_ args: CallArguments, _ command: String) throws -> (PathPreset?, String?) {
        let name = args.string("preset") ?? "metamask"
        if name == "custom" {
            guard let path = args.string("path") else { throw KeyCommandError.customNeedsPath(command: command) }
            let probe = path.replacingOccurrences(of: "{i}", with: "0")
            _ = try DerivationPath(probe)
            return (nil, path)
        }
        if args.string("path") != nil {
            throw BuiltinError.optionNotApplicable(command: command, option: "path", reason: "it goes with --preset custom")
        }
        guard let preset = PathPreset.named(name), preset.name != "eip1581" else {
            throw BuiltinError.badChoice(command: command, option: "preset",
                                         expected: PathPreset.all.filter { $0.name != "eip1581" }.map(\.name) + ["trezor", "custom"],
                                         got: name)
        }
        return (preset, nil)
    }

    /// A private key argument: `0x` + 32 bytes (text or bytes), WIF text, or a secret of either.
    static func privateKeyArgument(_ value: Value?, _ command: String) throws -> PrivateKey {
        switch value {
        case .bytes(let b):
            guard b.count == 32 else { throw KeyCommandError.privateKeyLength(command: command, got: b.count) }
            return try PrivateKey(bytes: b)
        case .string(let text):
            return try privateKey(text: text, command)
        case .secret(let s):
            let secret = try secretBytes(s, command)
            if secret.count == 32 { return try PrivateKey(secret) }
            let text = secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            return try privateKey(text: text, command)
        default:
            throw KeyCommandError.privateKeyLength(command: command, got: 0)
        }
    }

    private static func privateKey(text: String, _ command: String) throws -> PrivateKey {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if t.hasPrefix("0x") || t.hasPrefix("0X") {
            let bytes = try Hex.decode(t)
            guard bytes.count == 32 else { throw KeyCommandError.privateKeyLength(command: command, got: bytes.count) }
            return try PrivateKey(bytes: bytes)
        }
        return try WIF(t).privateKey
    }

}
