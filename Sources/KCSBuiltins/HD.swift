import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession

// Software HD keys (BIP-32) and addresses: `hd.master`, `derive` (with `--trace`, whose report
// is in Teaching.swift), `address` and `coins` (docs/wallet-core.md). An HD key is a domain value
// whose fields are public facts; its private half leaves only through `xkey.encode --private`.

extension Builtins {
    static let hd: [Builtin] = [
        Builtin(
            "derive", qr: .field("address"), params: [ParamSpec("path", pathType)],
            options: [
                OptionSpec(
                    "from", deriveSourceType,
                    "the key to derive from (a master key for m/… paths), or a mnemonic, seed, xprv or xpub",
                    secret: true),
                OptionSpec(
                    "trace", nil,
                    "show each BIP-32 step: HMAC-SHA512 key and data, I_L, I_R, child key, chain code, xprv/xpub"),
                OptionSpec(
                    "reveal", nil, "with --trace, show the private values instead of masking them",
                    rules: [.onlyWith("trace", because: "it goes with --trace (derive PATH --trace --reveal)")]),
            ],
            summary: "The HD key at PATH (m/… from a master key, or relative like 0/5) below --from KEY.",
            example: "let key = derive \"m/44'/60'/0'/0/0\" --from $root"
        ) { args in
            if args.flag("trace") { return try traceDerive(args) }
            // The session's current HD key (the default for --from) arrives with the store.
            guard let from = try deriveSource(args.value("from")) else {
                // With the card as the active signer (`use card`), the card derives (DERIVE KEY).
                if let session = args.context as? Session, let (card, _) = try activeCardSigner(session) {
                    return try cardDerive(args["path"], card: card)
                }
                throw BuiltinError.noCurrentKey
            }
            let path = try pathArgument(args["path"])
            let key = try from.key.derive(path)
            let full: DerivationPath? = path.isAbsolute ? path : from.path.map { $0.appending(path) }
            return .domain(HDKeyValue(key, path: full))
        },

        Builtin(
            "address", qr: .value, params: [ParamSpec("key", .domain("hdkey"))],
            options: [
                OptionSpec(
                    "coin", .oneOf([.string, .int, .domain("coin")]), "SLIP-44 symbol or coin type (default ETH)"),
                OptionSpec(
                    "kind", .string,
                    "Bitcoin kind: p2pkh, p2sh-p2wpkh, p2wpkh or p2tr (default: from the path's purpose)"),
            ],
            summary: "The address of an HD key for a coin: EIP-55 for ETH (the default), or a Bitcoin-family kind.",
            example: "address $key --coin BTC --kind p2wpkh"
        ) { args in
            guard let key = args.domain("key", as: HDKeyValue.self) else { return .null }
            return .domain(try address(of: key, coin: coinArgument(args.value("coin")), kindName: args.string("kind")))
        },

        Builtin(
            "coins", params: [ParamSpec("coin", .oneOf([.string, .int]), default: .null)],
            summary: "The SLIP-44 registry: every coin, or the one with a symbol or coin type.",
            example: "coins ETH   # index 60, symbol ETH, name Ethereum"
        ) { args in
            guard let which = args.value("coin") else {
                return .list(SLIP44.coins.map { .domain(CoinValue(coin: $0)) })
            }
            return .domain(CoinValue(coin: try coinArgument(which) ?? SLIP44.coin(index: 60)))
        },

        Builtin(
            "hd.master",
            params: [
                ParamSpec("source", .oneOf([mnemonicType, .secret(SecretKind.seed.rawValue), .bytes]), secret: true)
            ],
            options: [OptionSpec("passphrase", passphraseType, "BIP-39 passphrase, with a mnemonic", secret: true)],
            summary: "The BIP-32 master key (path m) of a mnemonic, a secret seed, or seed bytes.",
            example: "let root = hd.master $m"
        ) { args in
            let command = "hd.master"
            let seedBytes: Secret
            switch args["source"] {
            case .secret(let s) where s.kind == SecretKind.seed.rawValue:
                seedBytes = try secretBytes(s)
            case .bytes(let b):
                seedBytes = Secret(bytes: b)
            default:
                let m = try parseMnemonic(args["source"], language: nil)
                return .domain(HDKeyValue(try ExtendedKey.master(seed: seed(m, args)), path: nil))
            }
            if args.value("passphrase") != nil {
                throw BuiltinError.optionNotApplicable(
                    option: "passphrase",
                    reason: "a seed already includes its passphrase")
            }
            return .domain(HDKeyValue(try ExtendedKey.master(seed: seedBytes), path: nil))
        },
    ]
}

extension Builtins {
    /// What a path parameter accepts: path text or a parsed path.
    static let pathType = ValueType.oneOf([.string, .domain("path")])

    // MARK: - Helpers

    /// A `path` argument: text parsed (the core's `HDError` on a bad segment) or a path value.
    static func pathArgument(_ value: Value?) throws -> DerivationPath {
        switch value {
        case .domain(let d as PathValue): return d.path
        case .string(let text): return try DerivationPath(text)
        default: throw HDError.pathEmpty
        }
    }

    /// The text of an xpub/xprv argument (a string, or a secret xprv read as UTF-8) without the
    /// blanks and line breaks pasted keys often carry; nil for any other value.
    static func extendedKeyText(_ value: Value?) throws -> String? {
        switch value {
        case .string(let text): return text.trimmed
        case .secret(let s): return try secretText(s).trimmed
        default: return nil
        }
    }

    /// The bytes of a secret as UTF-8 text (an xprv, a phrase); `builtin.secretNotText` otherwise.
    static func secretText(_ s: SecretValue) throws -> String {
        let secret = try secretBytes(s)
        guard let text = secret.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw BuiltinError.secretNotText(kind: s.kind)
        }
        return text
    }

    /// A `--coin` value: a SLIP-44 symbol, a coin type number, or a coin record; nil when absent.
    static func coinArgument(_ value: Value?) throws -> SLIP44.Coin? {
        switch value {
        case .string(let symbol): return try SLIP44.coin(symbol: symbol)
        case .domain(let d as CoinValue): return d.coin
        case let v?:
            guard let n = v.bigIntValue else { return nil }
            guard let index = UInt32(exactly: n), index < ChildIndex.hardenedOffset else {
                throw BuiltinError.outOfRange(
                    name: "a coin type", expected: "0 to 2147483647",
                    got: String(n))
            }
            return try SLIP44.coin(index: index)
        case nil: return nil
        }
    }

    /// The address of `key` for `coin` (Ethereum when nil). For Bitcoin-family coins the kind
    /// is `kindName`, or else follows the path's purpose: 49' nested segwit, 84' segwit,
    /// 86' taproot, anything else P2PKH.
    static func address(of key: HDKeyValue, coin: SLIP44.Coin?, kindName: String?) throws -> AddressValue {
        try address(ofPublicKey: key.key.publicKey, path: key.path, coin: coin, kindName: kindName)
    }

    /// The address of `publicKey` (the key at `path`, when known) for `coin` (Ethereum when
    /// nil), as `address(of:coin:kindName:)` gives it.
    static func address(
        ofPublicKey publicKey: PublicKey, path: DerivationPath?, coin: SLIP44.Coin?,
        kindName: String?
    ) throws -> AddressValue {
        let coin = try coin ?? SLIP44.coin(index: 60)
        let symbol = coin.symbol.isEmpty ? "coin type \(coin.index)" : coin.symbol
        if CoinAddress.ethereumCoinTypes.contains(coin.index) {
            if let kindName, kindName != "ethereum" { throw AddressError.unsupportedKind(coin: symbol, kind: kindName) }
            return AddressValue(
                address: EthereumAddress(publicKey: publicKey).checksummed, coin: symbol,
                kind: "ethereum")
        }
        if coin.index == 145, kindName == "p2pkh" {  // Bitcoin Cash's legacy form: Bitcoin's P2PKH
            return AddressValue(
                address: try BitcoinAddress.make(.p2pkh, publicKey: publicKey, network: .bitcoin),
                coin: symbol, kind: "p2pkh")
        }
        if let own = CoinAddress.ownKind(coinType: coin.index), kindName == nil || kindName == own {
            return AddressValue(
                address: try CoinAddress.make(coin: coin, publicKey: publicKey), coin: symbol, kind: own)
        }
        let kind: BitcoinAddressKind
        if let kindName {
            guard let k = BitcoinAddressKind(rawValue: kindName) else {
                throw BuiltinError.badChoice(
                    option: "kind",
                    expected: BitcoinAddressKind.allCases.map(\.rawValue), got: kindName)
            }
            kind = k
        } else {
            switch path?.components.first.map({ $0.hardened ? $0.index : 0 }) {
            case 49: kind = .p2shP2wpkh
            case 84: kind = .p2wpkh
            case 86: kind = .p2tr
            default: kind = .p2pkh
            }
        }
        let text = try CoinAddress.make(coin: coin, publicKey: publicKey, bitcoinKind: kind)
        return AddressValue(address: text, coin: symbol, kind: kind.rawValue)
    }
}

extension String {
    /// Without leading and trailing blanks and line breaks (pasted keys often carry them).
    fileprivate var trimmed: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s = s.dropFirst() }
        while let c = s.last, c.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
