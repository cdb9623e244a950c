import CardProtocol
import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `card` namespace, the card's wallet (docs/card-console.md): creating the card's key four
// ways, deriving on the card, the PIN-less path and exporting. The card key in kcs's books is the
// session's (`WalletSession/Card/CardKeys.swift`).

extension Builtins {
    static let cardKeys: [Builtin] = [
        Builtin(
            "card.mnemonic", traits: [.changesCard],
            options: [
                OptionSpec(
                    "words", .int, "12, 15, 18, 21 or 24 (default 12)", choices: ["12", "15", "18", "21", "24"]),
                OptionSpec("load", nil, "load it as the card's key (its words are shown once)"),
                OptionSpec(
                    "passphrase", passphraseType, "BIP-39 passphrase, with --load", secret: true,
                    rules: [.onlyWith("load", because: "it goes with --load")]),
                OptionSpec("force", nil, "replace a key the card already holds"),
                OptionSpec("name", .string, "the stored card key's name, with --load"),
            ],
            summary:
                "A mnemonic from the card's random generator, as a secret; --load makes it the card's key (words shown once).",
            example: "card.mnemonic --words 24 --load"
        ) { args in
            let session = try args.session()
            let words = wordCount(args)
            guard args.flag("load") else {
                let card = try session.requireChannel()
                return .mnemonic(try card.commands.generateMnemonic(wordCount: words))
            }
            return cardKeyValue(
                try session.loadCardMnemonic(
                    words: words, force: args.flag("force"), name: args.string("name"),
                    seed: { try Builtins.seed($0, args) }))
        },

        Builtin(
            "card.load", traits: [.changesCard],
            params: [
                ParamSpec("what", .string, choices: ["mnemonic", "seed", "keypair"]),
                ParamSpec("material", .oneOf([.string, .bytes, .secret(nil)]), secret: true),
            ],
            options: [
                OptionSpec(
                    "passphrase", passphraseType, "BIP-39 passphrase, with a mnemonic", secret: true,
                    rules: [.onlyWhen("what", is: ["mnemonic"], because: "it goes with a mnemonic")]),
                OptionSpec(
                    "chain-code", .bytes, "32-byte chain code, with a keypair (without it the card cannot derive)",
                    rules: [.onlyWhen("what", is: ["keypair"], because: "it goes with a keypair")]),
                OptionSpec(
                    "lee", nil,
                    "Keycard 4.0: load the mnemonic's or seed's keys in LEE mode (its own key tree, and card.lee)",
                    rules: [
                        .onlyWhen(
                            "what", is: ["mnemonic", "seed"], because: "LEE mode is loaded from a mnemonic or a seed")
                    ]),
                OptionSpec("force", nil, "replace a key the card already holds"),
                OptionSpec("name", .string, "the stored card key's name"),
            ],
            summary:
                "Loads a key into the card: mnemonic \"WORDS\", seed 0x…, or keypair 0xPRIVATE [--chain-code 0x…].",
            example:
                "card.load mnemonic \"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\" --passphrase TREZOR"
        ) { args in
            let session = try args.session()
            let (load, seed, source) = try loadMaterial(args)
            let card = args.flag("lee") ? try session.requireVersion4("LEE mode") : try session.requireLoggedIn()
            let loaded = try session.loadCardKey(
                card, force: args.flag("force"), seed: seed, source: source,
                name: args.string("name"), load: load)
            return withWarnings(
                keyFields(loaded.record) + [("keyUID", .bytes(loaded.keyUID))],
                loaded.warning.map { [$0] } ?? [], session: session)
        },

        Builtin(
            "card.generate", traits: [.changesCard],
            options: [
                OptionSpec("force", nil, "replace a key the card already holds"),
                OptionSpec("name", .string, "the stored card key's name"),
            ],
            summary: "GENERATE KEY: a new master key made on the card, which never leaves it (no backup exists).",
            example: "card.generate --name cold"
        ) { args in
            let session = try args.session()
            let card = try session.requireLoggedIn()
            try card.ensureReplaceable(force: args.flag("force"))
            let uid = try card.commands.generateKey()
            return cardKeyValue(
                try session.recordCardKey(of: card, keyUID: uid, source: .generated, name: args.string("name")))
        },

        Builtin(
            "card.remove-key", traits: [.changesCard],
            options: [OptionSpec("force", nil, "confirm: the key is erased from the card for good")],
            summary: "REMOVE KEY: erases the card's key (and its PIN-less path); its stored card key is retired.",
            example: "card.remove-key --force"
        ) { args in
            let session = try args.session()
            let card = try session.requireLoggedIn()
            guard args.flag("force") else { throw CardKeyError.removeNeedsForce }
            try card.commands.removeKey()
            let retired = try session.retireCardKeys(of: card, keeping: nil)
            try session.store().deleteCardKeyCheck(instanceUID: card.info.instanceUID)
            try? card.forgetPinlessPath(in: session.store())
            return .map(ValueMap([("removed", .bool(true)), ("retired", .list(retired.map { .string($0) }))]))
        },

        Builtin(
            "card.path",
            summary: "The card's current key path (GET STATUS), m for the master.",
            example: "card.path"
        ) { args in
            let card = try args.session().requireChannel()
            return .string(try card.commands.getKeyPath().description)
        },

        Builtin(
            "card.derive", traits: [.changesCard],
            options: [
                OptionSpec(
                    "coin", .oneOf([.string, .int, .domain("coin")]),
                    "SLIP-44 symbol or coin type (ETH, BTC, LTC, …; default: the coin of the current BIP-44 path)"),
                OptionSpec(
                    "account", .int, "the account number (default: the current one, else 0)",
                    in: 0...Int(ChildIndex.hardenedOffset - 1)),
                OptionSpec("new-account", nil, "the next account after the current one, address 0"),
                OptionSpec("next", nil, "the next address index of the account"),
            ],
            summary:
                "Makes m/44'/COIN'/ACCOUNT'/0/INDEX current on the card (the app's coin screen): {path, coin, account, index, address}.",
            example: "card.derive --coin ETH --next"
        ) { args in
            let account = args.int("account").map { UInt32($0) }
            let card = try args.session().requireLoggedIn()
            let current = try card.commands.getKeyPath().components
            let coin = try deriveCoin(args.value("coin"), current: current)
            let target = try CardKeyPath.coinPath(
                current: current, coinType: coin.index, account: account,
                newAccount: args.flag("new-account"), next: args.flag("next"))
            let (sent, key) = try card.deriveToCurrent(target, from: current)
            var fields: [(String, Value)] = [
                ("path", .string(DerivationPath(absolute: true, target).description)),
                ("coin", .string(coin.symbol.isEmpty ? "coin type \(coin.index)" : coin.symbol)),
                ("account", .int(Int(target[2].index))), ("index", .int(Int(target[4].index))),
                ("sent", .string(sent.description)), ("publicKey", .bytes(key.compressed)),
            ]
            if let a = try? pathAddress(key, path: DerivationPath(absolute: true, target), coin: coin) {
                fields.append(("address", .domain(a)))
            }
            return .map(ValueMap(fields))
        },

        Builtin(
            "card.pinless", traits: [.changesCard], params: [ParamSpec("path", pathType, default: .null)],
            options: [
                OptionSpec(
                    "clear", nil, "remove the PIN-less path",
                    rules: [.notWith(["path"], because: "give a PATH or --clear, not both")])
            ],
            summary:
                "SET PINLESS PATH: `sign --pinless` then signs with the key at PATH without PIN or channel; no PATH shows it.",
            example: "card.pinless \"m/44'/60'/0'/0/0\""
        ) { args in
            let session = try args.session()
            let store = try session.store()
            if !args.flag("clear"), args.value("path") == nil {
                // The card does not say its PIN-less path; show what kcs set last (no login needed).
                let card = try session.requireCard()
                return try card.pinless(in: store).map(pinlessValue) ?? .null
            }
            let card = try session.requireLoggedIn()
            if args.flag("clear") {
                try card.clearPinlessPath(store: store)
                return .null
            }
            return pinlessValue(try card.setPinlessPath(try parseCardPath(args["path"]), store: store))
        },

        Builtin(
            "card.export", qr: .field("xpub"), params: [ParamSpec("path", pathType, default: .null)],
            options: [
                OptionSpec("public", nil, "the public key (the default)"),
                OptionSpec("xpub", nil, "the extended public key (not under EIP-1581)"),
                OptionSpec("private", nil, "the private key, as a secret (only under EIP-1581, m/43'/60'/1581'/…)"),
                OptionSpec("address", nil, "only the address"),
                OptionSpec(
                    "coin", .oneOf([.string, .int, .domain("coin")]),
                    "address format (default: the path's coin, else ETH)"),
            ],
            summary:
                "EXPORT KEY at PATH (default: the current key): {path, publicKey, address}, an xpub, or an EIP-1581 private key.",
            example: "card.export \"m/44'/60'/0'\" --xpub"
        ) { args in
            let session = try args.session()
            let kinds = ["public", "xpub", "private"].filter { args.flag($0) }
            guard kinds.count <= 1 else { throw CardKeyError.oneExportKind(given: kinds) }
            let coin = try coinArgument(args.value("coin"))
            let card = try session.requireLoggedIn()
            let requested =
                args.value("path") == nil
                ? CardPathRequest(source: .current, components: [])
                : try parseCardPath(args["path"])
            let target = try card.absolutePath(requested).components
            let kind: CardExportKind =
                switch kinds.first {
                case "private": .privateKey
                case "xpub": .extendedPublicKey
                default: .publicKey
                }
            let exported = try card.export(kind, at: target)
            if kind == .publicKey, args.flag("address") {
                return .domain(try pathAddress(exported.publicKey, path: exported.path, coin: coin))
            }
            var fields = try exportFields(exported.path, exported.publicKey, coin: coin)
            if let key = exported.privateKey { fields.append(("privateKey", SecretKind.privateKey.value(key.secret))) }
            if let xpub = exported.xpub { fields.append(("xpub", .string(xpub))) }
            return .map(ValueMap(fields + keyWarningField(card)))
        },
        Builtin(
            "card.bip85", params: [ParamSpec("application", .string, choices: ["mnemonic", "wif", "xprv", "hex"])],
            options: [
                OptionSpec("index", .int, "the BIP-85 index (default 0)", in: 0...0x7FFF_FFFF),
                OptionSpec(
                    "words", .int, "mnemonic: 12, 15, 18, 21 or 24 (default 12)",
                    choices: ["12", "15", "18", "21", "24"]),
                OptionSpec("bytes", .int, "hex: 16 to 64 bytes (default 32)", in: 16...64),
            ],
            summary:
                "Keycard 4.0: a child secret by BIP-85 (EXPORT BIP85): a mnemonic, a WIF key, an xprv or hex; the card derives, kcs encodes.",
            example: "card.bip85 mnemonic --words 24 --index 1"
        ) { args in
            let index = UInt32(args.int("index") ?? 0)
            let application: BIP85Application =
                switch args.string("application") ?? "" {
                case "mnemonic": .mnemonic(words: args.int("words") ?? 12, index: index)
                case "wif": .wif(index: index)
                case "xprv": .xprv(index: index)
                default: .hex(bytes: args.int("bytes") ?? 32, index: index)
                }
            return switch try args.session().cardBIP85(application) {
            case .mnemonic(let m): .mnemonic(m)
            case .wif(let w): SecretKind.wif.value(w)
            case .xprv(let k): SecretKind.xprv.value(Secret(utf8: try k.serialized(.xprv)))
            case .hex(let h): SecretKind.entropy.value(h)
            }
        },

        Builtin(
            "card.ecdh", params: [ParamSpec("peer", .bytes), ParamSpec("path", pathType)],
            summary:
                "Keycard 4.0: ECDH of PEER's public key with the card's key at PATH (m/44'/1237'/… Nostr NIP-44, or m/43'/60'/1581'/…): the shared X, a secret.",
            example: "card.ecdh $peer \"m/44'/1237'/0'/0/0\""
        ) { args in
            let session = try args.session()
            guard case .bytes(let peerBytes)? = args["peer"], let peer = try? PublicKey(bytes: peerBytes) else {
                throw BuiltinError.outOfRange(
                    name: "the peer", expected: "a secp256k1 public key (33 or 65 bytes)", got: "other bytes")
            }
            let path = try session.requireCard().absolutePath(try parseCardPath(args["path"]))
            return SecretKind.sharedSecret.value(try session.cardECDH(peer: peer, path: path))
        },

        Builtin(
            "card.lee", params: [ParamSpec("path", pathType, default: .string("m"))],
            summary:
                "Keycard 4.0 in LEE mode: the nullifier and viewing secret keys at PATH of the LEE tree (EXPORT LEE), as secrets.",
            example: "card.lee \"m/1/2/3\""
        ) { args in
            let session = try args.session()
            let path = try session.requireCard().absolutePath(try parseCardPath(args["path"]))
            let keys = try session.cardLEE(path: path)
            return .map(
                ValueMap([
                    ("path", .string(path.description)), ("nullifierKey", SecretKind.entropy.value(keys.nullifierKey)),
                    ("viewingKey", SecretKind.entropy.value(keys.viewingKey)),
                ]))
        },

        Builtin(
            "card.challenge", params: [ParamSpec("length", .int, default: .int(32))],
            summary: "Keycard 4.0: LENGTH (1 to 245, default 32) random bytes from the card (GET CHALLENGE).",
            example: "card.challenge 16"
        ) { args in
            let length = try smallInt(args.integer("length") ?? 32, "the length", in: 1...245)
            return .bytes(try args.session().cardChallenge(length: length))
        },
    ]
}

extension Builtins {

    /// `card.load`'s material, checked before anything is sent: LOAD KEY with the BIP-39 seed
    /// of a mnemonic, a raw seed, or a keypair (with an optional chain code); the BIP-32 seed
    /// loaded (nil for a keypair and in LEE mode, whose keys are not BIP-32's), which the card's
    /// keys are checked against; and the source kcs records for the key.
    static func loadMaterial(
        _ args: CallArguments
    ) throws
        -> (load: (KeycardCommandSet) throws -> [UInt8], seed: Secret?, source: KeySource)
    {
        // The table declares the choices and which options go with which (--passphrase, --lee, --chain-code).
        let what = args.string("what") ?? ""
        guard let material = args["material"] else {
            throw ArgumentError.missing(position: 2, name: "material", type: .oneOf([.string, .bytes, .secret(nil)]))
        }
        let load: (KeycardCommandSet) throws -> [UInt8]
        let source: KeySource
        var bip32Seed: Secret?
        switch what {
        case "mnemonic":
            let seed = try Builtins.seed(try parseMnemonic(material, language: nil), args)
            load = args.flag("lee") ? { try $0.loadLEESeed(seed) } : { try $0.loadKey(seed: seed) }
            bip32Seed = args.flag("lee") ? nil : seed
            source = .mnemonic
        case "seed":
            let seed: Secret =
                switch material {
                case .bytes(let b): Secret(bytes: b)
                case .secret(let s): try secretBytes(s)
                default:
                    try Secret(bytes: Hex.decode((args.string("material") ?? "").trimmingCharacters(in: .whitespaces)))
                }
            guard (16...64).contains(seed.count) else {
                throw BuiltinError.outOfRange(
                    name: "the seed", expected: "16 to 64 bytes (a BIP-39 seed is 64)",
                    got: "\(seed.count) bytes")
            }
            load = args.flag("lee") ? { try $0.loadLEESeed(seed) } : { try $0.loadKey(seed: seed) }
            bip32Seed = args.flag("lee") ? nil : seed
            source = .card
        default:
            let key = try privateKeyArgument(material)
            var chainCode: [UInt8]?
            if case .bytes(let cc)? = args.value("chain-code") {
                guard cc.count == 32 else {
                    throw BuiltinError.outOfRange(name: "--chain-code", expected: "32 bytes", got: "\(cc.count) bytes")
                }
                chainCode = cc
            }
            load = { try $0.loadKey(privateKey: key, chainCode: chainCode) }
            source = .privkey
        }
        return (load, bip32Seed, source)
    }

    // MARK: - Sessions

    /// The stored key of the active signer when it is a card key, with the logged-in card that
    /// holds it; nil when the active signer is not a card key (or there is none).
    static func activeCardSigner(_ session: Session) throws -> (CardLink, KeyRecord)? {
        guard let name = session.activeKey, let store = session.existingStore(),
            let record = try store.findKey(named: name), record.kind == .card
        else { return nil }
        let card = try session.requireLoggedIn()
        try card.checkHolds(record)
        return (card, record)
    }

    // MARK: - The store

    /// `[("warning", …)]` while the session's keys differ from the recorded ones, else empty.
    static func keyWarningField(_ card: CardLink) -> [(String, Value)] {
        card.known.keyWarning.map { [("warning", .string($0))] } ?? []
    }

    /// A card key as a record value, with the card's key UID.
    static func cardKeyValue(_ r: (record: KeyRecord, keyUID: [UInt8])) -> Value {
        .map(ValueMap(keyFields(r.record) + [("keyUID", .bytes(r.keyUID))]))
    }

    static func pinlessValue(_ p: PinlessRecord) -> Value {
        .map(
            ValueMap([
                ("path", .string(p.path.description)), ("publicKey", .bytes(p.publicKey.compressed)),
                ("address", .domain(AddressValue(ethereum: p.publicKey))),
            ]))
    }

    // MARK: - Paths (the arithmetic is CardProtocol's CardPathRequest and CardKeyPath; docs/card.md)

    /// A path value keeps its absolute/relative kind; a string is read as the card's path text
    /// (`CardPathRequest`).
    static func parseCardPath(_ value: Value?) throws -> CardPathRequest {
        if case .domain(let d as PathValue)? = value { return CardPathRequest(d.path) }
        guard case .string(let raw)? = value else { throw HDError.pathEmpty }
        return try CardPathRequest(raw)
    }

    /// `derive PATH` with the card as the active signer: DERIVE KEY with the shortest source,
    /// then the new current key's public key and address.
    static func cardDerive(_ value: Value?, card: CardLink) throws -> Value {
        let requested = try parseCardPath(value)
        let current = try card.commands.getKeyPath().components
        let target = try requested.resolve(current: current)
        let (sent, key) = try card.deriveToCurrent(target, from: current)
        let path = DerivationPath(absolute: true, target)
        var fields: [(String, Value)] = [
            ("path", .string(path.description)), ("source", .string(sent.source.description)),
            ("sent", .string(sent.description)), ("publicKey", .bytes(key.compressed)),
        ]
        fields.append(
            (
                "address",
                .domain(
                    (try? pathAddress(key, path: path, coin: nil)) ?? AddressValue(ethereum: key))
            ))
        return .map(ValueMap(fields))
    }

    /// A coin whose keys are not secp256k1 has none on the card: said before anything is sent.
    static func requireSecp256k1(_ coin: SLIP44.Coin) throws(AddressError) {
        if let curve = CoinAddress.otherCurves[coin.index] {
            throw .otherCurve(symbol: coin.symbol, curve: curve, coinType: coin.index)
        }
    }

    /// The coin `card.derive` moves in: `--coin`, else the coin of the current BIP-44 path
    /// (`--next` stays in the coin the card is at), else the option is needed.
    static func deriveCoin(_ value: Value?, current: [ChildIndex]) throws -> SLIP44.Coin {
        let coin: SLIP44.Coin
        if let given = try coinArgument(value) {
            coin = given
        } else if current.count >= 2, current[0] == ChildIndex(44, hardened: true), current[1].hardened {
            coin = try SLIP44.coin(index: current[1].index)
        } else {
            throw BuiltinError.optionNeeded(
                option: "coin",
                reason: "the card's current path \(DerivationPath(absolute: true, current))"
                    + " is not a BIP-44 path to take the coin from (--coin ETH, BTC, …)")
        }
        try requireSecp256k1(coin)
        return coin
    }

    /// The address of a key at `path` (on the card or not) for `coin`; without a coin, the coin
    /// of the path's second level when it is a hardened coin type with an address format
    /// (m/44'/0'/… gives a Bitcoin address, its kind from the purpose), else Ethereum
    /// (EIP-1581 keys included).
    static func pathAddress(_ key: PublicKey, path: DerivationPath, coin: SLIP44.Coin?) throws -> AddressValue {
        var coin = coin
        let p = path.components
        if coin == nil, p.count >= 2, p[0].hardened, p[1].hardened, p[0].index != 43,
            CoinAddress.hasAddress(coinType: p[1].index)
        {
            coin = try? SLIP44.coin(index: p[1].index)
        }
        return try address(ofPublicKey: key, path: path, coin: coin, kindName: nil)
    }

    /// `{path, publicKey, address}` of an exported key.
    /// An explicit `coin` without an address format is an error; an inferred one is left out.
    static func exportFields(_ path: DerivationPath, _ key: PublicKey, coin: SLIP44.Coin?) throws -> [(String, Value)] {
        var f: [(String, Value)] = [("path", .string(path.description)), ("publicKey", .bytes(key.compressed))]
        if coin != nil {
            f.append(("address", .domain(try pathAddress(key, path: path, coin: coin))))
        } else if let a = try? pathAddress(key, path: path, coin: nil) {
            f.append(("address", .domain(a)))
        }
        return f
    }

}
