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
        Builtin("keystore.load", traits: [.opensVault],
                params: [ParamSpec("file", .string), ParamSpec("password", .oneOf([.string, .secret(nil)]), secret: true)],
                options: [
                    OptionSpec("name", .string, "the key's name (default from its address)"),
                    OptionSpec("allow-expensive-kdf", nil,
                               "derive even when the file's KDF costs more than the ceiling (scrypt n·r·p > 2^24 or n·r > 2^23, pbkdf2 c > 10000000)"),
                ],
                summary: "Decrypts a keystore V3 file (scrypt or pbkdf2) and stores its private key as an ECDSA key.",
                example: "keystore load wallet.json (env \"KEYSTORE_PASSWORD\" --secret password) --name geth") { args in
            let session = try args.session()
            let path = expandedPath(args.string("file") ?? "")
            // Parse first: a missing file, a bad field or a KDF past the ceiling is reported
            // before any slow work and before the password is asked.
            let file = try KeystoreV3(contentsOf: path)
            let ceiling: KeystoreV3.CostCeiling = args.flag("allow-expensive-kdf") ? .unbounded : .standard
            do throws(KeystoreError) { try file.checkCost(ceiling) } catch {
                throw KeystoreCommandError.kdfTooExpensive(error)
            }
            let password = try keystorePassword(args, position: 2)
            warnIfEmpty(password, session: session)
            session.prompts?.status("deriving the keystore key (\(describe(file.kdf)))…")
            // The KDF runs where Ctrl-C can leave it behind; the ceiling bounds what it wastes.
            let key: PrivateKey
            do {
                key = try session.abandonable() { try file.decrypt(password: password, ceiling: ceiling) }
            } catch KeystoreError.macMismatch {
                throw KeystoreCommandError.wrongPassword(path: path)
            }
            let store = try session.unlockedStore()
            let record = try store.addKey(
                NewKey(name: args.string("name"), kind: .ecdsa, source: .keystore, storage: .software,
                       publicKey: key.publicKey, address: EthereumAddress(publicKey: key.publicKey).checksummed),
                secret: .privateKey(key.secret))
            return keyValue(record)
        },

        Builtin("keystore.save", traits: [.opensVault],
                params: [ParamSpec("name", .string), ParamSpec("file", .string),
                         ParamSpec("password", .oneOf([.string, .secret(nil)]), default: .null, secret: true)],
                options: [
                    OptionSpec("force", nil, "replace FILE when it exists"),
                    OptionSpec("light", nil, "geth's light scrypt cost (n=4096, p=6) instead of the standard n=262144"),
                ],
                summary: "Exports a stored ECDSA or HD-CHILD key as a keystore V3 file (scrypt) under a new password.",
                example: "keystore save savings-0 backup.json (env \"KEYSTORE_PASSWORD\" --secret password)") { args in
            let session = try args.session()
            let path = expandedPath(args.string("file") ?? "")
            let record = try session.store().key(named: args.string("name") ?? "")
            try checkExportable(record)
            if !args.flag("force"), FileManager.default.fileExists(atPath: path) {
                throw KeystoreCommandError.fileExists(path: path)
            }
            let password = try newKeystorePassword(args, session: session)
            let store = try session.unlockedStore(reconfirming: args.command)
            let key = try store.read { tx in try Session.signingKey(tx.key(id: record.id), tx) }
            let kdf: KeystoreV3.KDF = args.flag("light") ? .light : .standard
            session.prompts?.status("deriving the keystore key (\(describe(kdf)))…")
            let random = session.random
            let file = try session.abandonable() { try KeystoreV3.seal(key, password: password, kdf: kdf, random: random) }
            // The secret leaves the vault: mark it revealed first, so a crash between the two
            // never leaves an exported key that the rotation policy does not know about.
            _ = try store.markRevealed(named: record.name)
            try file.write(to: path)
            return .map(ValueMap([
                ("name", .string(record.name)), ("file", .string(path)),
                ("address", .string(EthereumAddress(publicKey: key.publicKey).checksummed)),
                ("kdf", .string(describe(kdf))),
            ]))
        },
    ]
}

extension Builtins {

    // MARK: - Helpers

    /// `~/x.json` → `$HOME/x.json`; other paths as given (relative to the working directory).
    static func expandedPath(_ path: String) -> String { (path as NSString).expandingTildeInPath }

    /// `scrypt n=262144, r=8, p=1` or `pbkdf2-sha256 c=262144`, for progress and results.
    static func describe(_ kdf: KeystoreV3.KDF) -> String {
        switch kdf {
        case .scrypt(let n, let r, let p): "scrypt n=\(n), r=\(r), p=\(p)"
        case .pbkdf2(let iterations): "pbkdf2-sha256 c=\(iterations)"
        }
    }

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

    /// A keystore file under an empty password is as good as plaintext: both `keystore.load` and
    /// `keystore.save` take one (geth and others write such files), and both say so.
    static func warnIfEmpty(_ password: Secret, session: Session) {
        guard password.count == 0 else { return }
        session.prompts?.warn("the keystore password is empty: anyone who has the file has the key")
    }

    /// The new password of `keystore.save`: the argument, or asked twice without echo at a
    /// terminal. An empty one is taken with a warning, the rule `keystore.load` follows too.
    static func newKeystorePassword(_ args: CallArguments, session: Session) throws -> Secret {
        let password: Secret
        if args.value("password") != nil {
            password = try keystorePassword(args, position: 3)
        } else if let host = session.prompts, host.isInteractive {
            guard let first = try host.askSecret(prompt: "new keystore password: ") else {
                throw SessionError.cancelled
            }
            guard let again = try host.askSecret(prompt: "the same password again: ") else {
                throw SessionError.cancelled
            }
            guard first == again else { throw KeystoreCommandError.passwordsDiffer }
            password = first
        } else {
            password = try keystorePassword(args, position: 3)
        }
        warnIfEmpty(password, session: session)
        return password
    }

    /// A keystore file holds one private key: an ECDSA key, or an HD-CHILD's derived key,
    /// kept in software and not retired.
    static func checkExportable(_ record: KeyRecord) throws {
        let reason: String? = switch record.kind {
        case _ where record.retired: "it is retired and its secret was wiped"
        case .ecdsa, .hdChild: record.storage == .software ? nil : "its secret is not in the store"
        case .hdMaster: "a keystore file holds one private key; export one of its HD-CHILD keys"
        case .card: "its key never leaves the card"
        case .watch: "it is watch-only and has no secret"
        }
        if let reason {
            throw KeystoreCommandError.notExportable(name: record.name, kind: record.kind, reason: reason)
        }
    }
}

/// Errors of the keystore commands that `KeystoreError` does not already name.
public enum KeystoreCommandError: WalletError, Equatable {
    /// `keystore.save` to a path that exists, without `--force`.
    case fileExists(path: String)
    /// The new password and its repetition differ.
    case passwordsDiffer
    /// A key whose private key cannot go into a keystore file.
    case notExportable(name: String, kind: KeyKind, reason: String)
    /// A file whose KDF costs more than the ceiling, loaded without `--allow-expensive-kdf`;
    /// `error` is the wallet core's `.kdfTooExpensive` naming the parameter.
    case kdfTooExpensive(KeystoreError)
    /// The password does not open the file (its MAC does not match), naming the file.
    case wrongPassword(path: String)

    /// Its sentences follow the command's name (`IdentifiableError.followsCommandName`).
    public var followsCommandName: Bool { true }

    public var id: String {
        switch self {
        case .fileExists: "keystore.fileExists"
        case .passwordsDiffer: "keystore.passwordsDiffer"
        case .notExportable: "keystore.notExportable"
        case .kdfTooExpensive: "keystore.kdfTooExpensive"
        case .wrongPassword: "keystore.macMismatch"
        }
    }

    public var description: String {
        switch self {
        case .fileExists(let path):
            "\(path) already exists; add --force to replace it"
        case .passwordsDiffer:
            "the two passwords differ; nothing was written"
        case .notExportable(let name, let kind, let reason):
            "\(name) is \(kind.withArticle) key and cannot be exported: \(reason)"
        case .kdfTooExpensive(let error):
            "\(error.description); add --allow-expensive-kdf to derive it anyway"
        case .wrongPassword(let path):
            "wrong password for \(path), or the file was changed: its MAC does not match"
        }
    }
}
