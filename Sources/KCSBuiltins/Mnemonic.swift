import CardProtocol
import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `mnemonic` namespace: BIP-39 phrases (docs/wallet-core.md). A phrase is a secret value
// (`<secret mnemonic>`) from the moment it is made or parsed; only `reveal` shows its words.

extension Builtins {
    static let mnemonic: [Builtin] = [
        Builtin(
            "mnemonic.generate",
            options: [
                OptionSpec(
                    "words", .int, "12, 15, 18, 21 or 24 (default 12)", choices: ["12", "15", "18", "21", "24"]),
                OptionSpec("language", .string, "BIP-39 word list (default english)"),
            ],
            summary: "A new random BIP-39 mnemonic from the system's secure random source, as a secret.",
            example: "let m = mnemonic.generate --words 24"
        ) { args in
            let words = wordCount(args)
            let language = try language(args) ?? .english
            return .mnemonic(Mnemonic(generating: words, language: language, using: SystemRandom()))
        },

        Builtin(
            "mnemonic.check", params: [ParamSpec("phrase", mnemonicType, secret: true)],
            options: [OptionSpec("language", .string, "require this word list instead of detecting it")],
            summary:
                "Checks a phrase: {valid, words, language}, or an error naming the first bad word and its position.",
            example:
                "mnemonic.check \"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\""
        ) { args in
            let m = try parseMnemonic(args["phrase"], language: language(args))
            return .map(
                ValueMap([
                    ("valid", .bool(true)), ("words", .int(m.wordCount.rawValue)),
                    ("language", .string(m.language.rawValue)),
                ]))
        },

        Builtin(
            "mnemonic.seed", params: [ParamSpec("mnemonic", mnemonicType, secret: true)],
            options: [OptionSpec("passphrase", passphraseType, "BIP-39 passphrase (the \"25th word\")", secret: true)],
            summary: "The 64-byte BIP-39 seed of a mnemonic and optional passphrase, as a secret.",
            example: "let seed = mnemonic.seed $m --passphrase \"TREZOR\""
        ) { args in
            let m = try parseMnemonic(args["mnemonic"], language: nil)
            return SecretKind.seed.value(try seed(m, args))
        },

        Builtin(
            "mnemonic.explain", params: [ParamSpec("mnemonic", mnemonicType, secret: true)],
            options: [
                OptionSpec("language", .string, "require this word list instead of detecting it"),
                OptionSpec("reveal", nil, "explain a secret mnemonic value (its words and entropy are shown)"),
            ],
            summary:
                "A BIP-39 phrase bit by bit: each word's 11-bit index, the entropy, the checksum bits and whether they match.",
            example:
                "mnemonic.explain \"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\""
        ) { args in
            let language = try language(args)
            let anatomy: MnemonicAnatomy
            switch args["mnemonic"] {
            case .string(let phrase):
                anatomy = try MnemonicAnatomy(phrase: phrase, language: language)
            case .secret(let s):
                guard args.flag("reveal") else {
                    throw TeachingError.secretNeedsReveal(
                        argument: "argument 1 (mnemonic)",
                        shows: "its words and entropy")
                }
                anatomy = try MnemonicAnatomy(phrase: secretBytes(s), language: language)
            default:
                throw ArgumentError.missing(position: 1, name: "mnemonic", type: mnemonicType)
            }
            return .domain(mnemonicExplanation(anatomy))
        },
    ]
}

extension Builtins {
    /// What a mnemonic parameter accepts: a secret mnemonic, or a phrase typed as a string
    /// (the history keeps `<secret>` in its place, since the parameter is secret).
    static let mnemonicType = ValueType.oneOf([.secret(SecretKind.mnemonic.rawValue), .string])

    /// What a passphrase option accepts.
    static let passphraseType = ValueType.oneOf([.string, .secret(SecretKind.passphrase.rawValue)])

    // MARK: - Helpers

    /// The mnemonic in `value`: a phrase string or a secret mnemonic, parsed and checked.
    static func parseMnemonic(_ value: Value?, language: Wordlist.Language?) throws -> Mnemonic {
        switch value {
        case .string(let phrase): return try Mnemonic(phrase: phrase, language: language)
        case .secret(let s): return try Mnemonic(phrase: secretBytes(s), language: language)
        default: throw ArgumentError.missing(position: 1, name: "mnemonic", type: mnemonicType)
        }
    }

    /// The seed of `m` with the `--passphrase` option, if any.
    static func seed(_ m: Mnemonic, _ args: CallArguments) throws -> Secret {
        switch args.value("passphrase") {
        case .string(let p): return m.seed(passphrase: p)
        case .secret(let s): return try m.seed(passphrase: secretBytes(s))
        default: return m.seed()
        }
    }

    /// `--words`: one of BIP-39's word counts (12 when absent); every command with `--words`
    /// declares its choices, which `bind` has checked.
    static func wordCount(_ args: CallArguments) -> Mnemonic.WordCount {
        args.int("words").flatMap(Mnemonic.WordCount.init(rawValue:)) ?? .twelve
    }

    /// `--language`: a BIP-39 word list by name (`english`, `chinese_simplified`, …).
    static func language(_ args: CallArguments) throws(BuiltinError) -> Wordlist.Language? {
        guard let name = args.string("language") else { return nil }
        let key = String(name.lowercased().map { $0 == "-" ? "_" : $0 })
        guard let language = Wordlist.Language(rawValue: key) else {
            throw .badChoice(
                option: "language",
                expected: Wordlist.Language.allCases.map(\.rawValue), got: name)
        }
        return language
    }
}
