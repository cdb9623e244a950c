import Foundation
import KCSRuntime
import KCSSyntax
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// The `keystore` namespace: Ethereum keystore V3 files in and out of the store (docs/store.md,
// docs/wallet-core.md). The file format, the KDFs, their cost ceilings and the checks are
// WalletCore's `KeystoreV3`; a KDF runs where Ctrl-C can abandon it (`Session.abandonable`).

extension Builtins {
    static let keystore: [Builtin] = [
        Builtin(
            "keystore.load", traits: [.opensVault],
            params: [
                ParamSpec("file", .string), ParamSpec("password", .oneOf([.string, .secret(nil)]), secret: true),
            ],
            options: [
                OptionSpec("name", .string, "the key's name (default from its address)"),
                OptionSpec(
                    "allow-expensive-kdf", nil,
                    "derive even when the file's KDF costs more than the ceiling (scrypt n·r·p > 2^24 or n·r > 2^23, pbkdf2 c > 10000000)"
                ),
            ],
            summary: "Decrypts a keystore V3 file (scrypt or pbkdf2) and stores its private key as an ECDSA key.",
            example: "keystore load wallet.json (env \"KEYSTORE_PASSWORD\" --secret password) --name geth"
        ) { args in
            let ceiling: KeystoreV3.CostCeiling = args.flag("allow-expensive-kdf") ? .unbounded : .standard
            let record = try args.session().loadKeystore(
                path: expandedPath(args.string("file") ?? ""), password: { try keystorePassword(args, position: 2) },
                name: args.string("name"), ceiling: ceiling)
            return keyValue(record)
        },

        Builtin(
            "keystore.save", traits: [.opensVault],
            params: [
                ParamSpec("name", .string), ParamSpec("file", .string),
                ParamSpec("password", .oneOf([.string, .secret(nil)]), default: .null, secret: true),
            ],
            options: [
                OptionSpec("force", nil, "replace FILE when it exists"),
                OptionSpec("light", nil, "geth's light scrypt cost (n=4096, p=6) instead of the standard n=262144"),
            ],
            summary: "Exports a stored ECDSA or HD-CHILD key as a keystore V3 file (scrypt) under a new password.",
            example: "keystore save savings-0 backup.json (env \"KEYSTORE_PASSWORD\" --secret password)"
        ) { args in
            let session = try args.session()
            // Not given at a terminal: the session asks for it twice; in a batch run it must be given.
            let asked = args.value("password") == nil && session.prompts?.isInteractive == true
            let path = expandedPath(args.string("file") ?? "")
            let kdf: KeystoreV3.KDF = args.flag("light") ? .light : .standard
            let saved = try session.saveKeystore(
                named: args.string("name") ?? "", to: path, kdf: kdf, force: args.flag("force"), command: args.command,
                password: { asked ? nil : try keystorePassword(args, position: 3) })
            return .map(
                ValueMap([
                    ("name", .string(saved.record.name)), ("file", .string(path)),
                    ("address", .string(saved.address.checksummed)), ("kdf", .string(kdf.summary)),
                ]))
        },
    ]
}

extension Builtins {

    // MARK: - Helpers

    /// `~/x.json` → `$HOME/x.json`; other paths as given (relative to the working directory).
    static func expandedPath(_ path: String) -> String { (path as NSString).expandingTildeInPath }

    /// A password argument (text or a secret of any kind) as its UTF-8 bytes, or the runtime's
    /// usual "secret not given" error (with its hint) when there is none.
    static func keystorePassword(_ args: CallArguments, position: Int) throws -> Secret {
        switch args.value("password") {
        case .string(let text)?: return Secret(utf8: text)
        case .secret(let s)?: return try secretBytes(s)
        default:
            throw SecretNotSupplied(parameter: "password", position: position)
        }
    }
}
