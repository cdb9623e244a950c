import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `import` namespace: keys from a mnemonic (with its preset's children), a private key, an
// xpub or an address (docs/store.md, "Keys"), through the session's key book.

extension Builtins {
    static let importing: [Builtin] = [
        Builtin(
            "import.mnemonic", traits: [.opensVault], params: [ParamSpec("mnemonic", mnemonicType, secret: true)],
            options: [
                OptionSpec("passphrase", passphraseType, "BIP-39 passphrase (the \"25th word\")", secret: true),
                OptionSpec(
                    "preset", .string,
                    "metamask, trezor, ledger-live, ledger-legacy, bip44, bip49, bip84, bip86 or custom"),
                OptionSpec(
                    "path", .string,
                    "the path template for --preset custom, with * for the account (e.g. \"m/44'/60'/*'/0/0\")",
                    rules: [.onlyWhen("preset", is: ["custom"], because: "it goes with --preset custom")]),
                OptionSpec(
                    "accounts", .int, "how many accounts (HD-CHILD keys) to add under the preset (default 1)",
                    in: 0...1000),
                OptionSpec("name", .string, "the master key's name"),
            ],
            summary: "Stores a mnemonic as an HD-MASTER key and N HD-CHILD keys at the preset's paths.",
            example:
                "import mnemonic \"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\" --preset custom --path \"m/44'/60'/*'/0/0\" --accounts 3"
        ) { args in
            let session = try args.session()
            let mnemonic = try parseMnemonic(args["mnemonic"], language: nil)
            let (preset, custom) = try presetArgument(args)
            let accounts = args.int("accounts") ?? 1
            let passphrase: Secret? =
                switch args.value("passphrase") {
                case .string(let p): Secret(utf8: p)
                case .secret(let s): try secretBytes(s)
                default: nil
                }
            let records = try session.importMnemonic(
                mnemonic, passphrase: passphrase, preset: preset, customPath: custom,
                accounts: accounts, name: args.string("name"), source: .mnemonic)
            return .list(records.map(keyValue))
        },

        Builtin(
            "import.privkey", traits: [.opensVault],
            params: [ParamSpec("key", .oneOf([.string, .bytes, .secret(nil)]), secret: true)],
            options: [OptionSpec("name", .string, "the key's name")],
            summary: "Stores a raw private key (0x + 64 hex digits, or WIF) as an ECDSA key.",
            example: "import privkey 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
        ) { args in
            let session = try args.session()
            let key = try privateKeyArgument(args["key"])
            return keyValue(try session.importPrivateKey(key, name: args.string("name"), source: .privkey))
        },

        Builtin(
            "import.xpub", params: [ParamSpec("xpub", .string)],
            options: [OptionSpec("name", .string, "the key's name")],
            summary: "Stores an extended public key as a watch-only key (its first address shown).",
            example:
                "import xpub xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj"
        ) { args in
            let session = try args.session()
            let text = args.string("xpub") ?? ""
            let key = try ExtendedKey(text)
            guard !key.isPrivate else { throw KeyCommandError.privateWhereWatchOnly }
            return keyValue(try session.importWatchOnly(xpub: key, text: text, name: args.string("name")))
        },

        Builtin(
            "import.qr", traits: [.mayOpenVault], params: [ParamSpec("files", .oneOf([.string, .list]))],
            options: [
                OptionSpec("preset", .string, "for a mnemonic: metamask, trezor, ledger-live, … or custom"),
                OptionSpec(
                    "path", .string, "the path template for --preset custom",
                    rules: [.onlyWhen("preset", is: ["custom"], because: "it goes with --preset custom")]),
                OptionSpec("accounts", .int, "for a mnemonic: how many accounts (default 1)", in: 0...1000),
                OptionSpec("name", .string, "the key's name"),
                OptionSpec(
                    "as", .string, "how to read a code of 32 bytes: seedqr (24 words) or privkey",
                    choices: Session.QRKeyReading.allCases.map(\.rawValue)),
            ],
            summary:
                "Stores the key QR codes in PNG files hold: a seed, BIP-39 words or a SeedQR as an HD-MASTER key; an xpub (crypto-hdkey) or an address as watch-only; 32 bytes only with --as.",
            example: "import qr \"seed.png\" --name from-qr"
        ) { args in
            let session = try args.session()
            // The preset only when one is asked for: it applies to a mnemonic, and is refused for anything else.
            let (preset, custom) =
                args.value("preset") == nil && args.value("path") == nil ? (nil, nil) : try presetArgument(args)
            let accounts = args.int("accounts")
            return .list(
                try session.importQR(
                    try pathList(args["files"]), name: args.string("name"), preset: preset, customPath: custom,
                    accounts: accounts, reading: args.string("as").flatMap(Session.QRKeyReading.init)
                ).map(keyValue))
        },

        Builtin(
            "import.address", params: [ParamSpec("address", .oneOf([.string, .bytes]))],
            options: [OptionSpec("name", .string, "the key's name")],
            summary: "Stores an Ethereum address as a watch-only key (EIP-55 checksum checked when mixed case).",
            example: "import address 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 --name cold"
        ) { args in
            let session = try args.session()
            // A bare 0x… word arrives as bytes (no checksum to check); quoted text keeps EIP-55's.
            let address =
                if case .bytes(let b)? = args["address"] { try EthereumAddress(bytes: b) } else {
                    try EthereumAddress(args.string("address") ?? "")
                }
            return keyValue(try session.importWatchOnly(address: address, name: args.string("name")))
        },
    ]
}
