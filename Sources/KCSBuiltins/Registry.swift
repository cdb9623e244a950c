import KCSErrors
import KCSRuntime
import KCSSyntax
import WalletCore
import WalletCrypto

/// The builtin namespaces (STYLE §3). Each namespace is one file in this module that owns its
/// table (`card.*` is the folder `Card/`); commands without a namespace live with their family
/// (`Core.swift` the language's functions, `HD.swift` derive/address/coins, `Sign.swift`
/// sign/verify/recover/history, `Wallet.swift` accounts). This file is touched only when a
/// namespace is added.
public enum Builtins {
    /// Every builtin of the language, in help order.
    public static var all: [Builtin] { tables + [help(answering: nil)] }

    /// The namespace tables, in help order (one place to add a namespace).
    static var tables: [Builtin] {
        (core + input + mnemonic + hd + xkey + path + presets + key + importing + use + vault + keystore + rotation
            + store
            + cardConnection + cardAccess + cardKeys + cardNDEF + cardTrace + apdu + trace + signing + signAuth + safe
            + userOp + psbt + descriptor + bitcoinMessage + tx + eth + wallet
            + qr + qrWallet
            + qrWatchOnly + ur + mpc)
            .map(withQROption)
    }

    /// The registry the interpreter and the console use.
    public static func registry() -> BuiltinRegistry {
        // `help` describes the whole table, itself included: it reads the registry it is part
        // of, handed to it once built (the tables are built once, at start-up).
        let described = DescribedRegistry()
        var registry = BuiltinRegistry(tables + [help(answering: described)])
        registry.addressLiteralCheck = addressLiteralCheck
        described.registry = registry
        return registry
    }

    /// The registry `help` describes, set once the registry holding `help` is built.
    final class DescribedRegistry: @unchecked Sendable {
        var registry: BuiltinRegistry?
    }

    /// An unquoted `0x` literal of 20 bytes is checked as the quoted text would be wherever an
    /// address is taken: mixed case must carry its EIP-55 checksum (all-lower and all-upper
    /// carry none), with the same message (docs/language.md §1).
    @Sendable static func addressLiteralCheck(_ spelling: String) -> (any IdentifiableError)? {
        do { _ = try EthereumAddress(spelling) } catch { return error as AddressError }
        return nil
    }

    /// `help [TOPIC]`: the namespaces and their commands, or one command (usage, summary,
    /// options, example), or one namespace's commands, as text. `described` holds what it describes.
    static func help(answering described: DescribedRegistry?) -> Builtin {
        Builtin(
            "help", params: [ParamSpec("topic", .string, default: .null)],
            summary: "List the namespaces and their commands, or show one command with its example.",
            example: "help derive"
        ) { args in
            guard let registry = described?.registry else { return .null }
            let topic: String? = if case .string(let t) = args.value("topic") { t } else { nil }
            if let topic, let other = otherToolsWords[topic] { return .string(other) }
            guard let text = registry.help(topic) else {
                let names = registry.builtins.map(\.name) + registry.namespaces
                throw BuiltinError.noHelpTopic(
                    topic: topic ?? "", suggestion: suggestion(for: topic ?? "", among: names))
            }
            return .string(text)
        }
    }
}

extension Builtins {
    /// Commands of other Keycard tools that people look for, with the kcs way to do the same:
    /// what `help NAME` answers for them.
    static let otherToolsWords: [String: String] = [
        "card.sign": """
        card.sign is keycard-cli's command; in kcs the card is a signer like any key:
          card.login "PIN"             open the secure channel and verify the PIN
          use card                     make the card's key the active signer
          sign 0x<32-byte digest>      sign with it (also: sign message, sign typed, sign tx)
          sign DIGEST --path m/…       with a key derived on the card; --pinless for the PIN-less path
        see help sign, help use, help card.login
        """
    ]

    /// A secret value holding the UTF-8 of `text` (what a terminal prompt produces).
    public static func secret(kind: String, text: String) -> SecretValue {
        SecretValue(kind: kind, payload: Secret(utf8: text))
    }
}
