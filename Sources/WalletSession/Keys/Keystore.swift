import Foundation
import KCSErrors
import WalletCore
import WalletCrypto
import WalletStore

// Ethereum keystore V3 files in and out of the store (docs/store.md, docs/wallet-core.md): the
// file format, the KDFs, their cost ceilings and the checks are WalletCore's `KeystoreV3`; here
// is the order a person meets them in, and a KDF runs where Ctrl-C can abandon it
// (`Session.abandonable`).

extension Session {
    /// `keystore.load`: parses the file first (a missing file, a bad field or a KDF past
    /// `ceiling` is reported before any slow work and before `password` is asked), runs the KDF,
    /// and stores the private key as an ECDSA key named `name` (default from its address).
    public func loadKeystore(
        path: String, password: () throws -> Secret, name: String?,
        ceiling: KeystoreV3.CostCeiling
    ) throws -> KeyRecord {
        let file = try KeystoreV3(contentsOf: path)
        do throws(KeystoreError) { try file.checkCost(ceiling) } catch {
            throw KeystoreCommandError.kdfTooExpensive(error)
        }
        let password = try password()
        warnIfEmpty(password)
        prompts?.status("deriving the keystore key (\(file.kdf.summary))…")
        // The KDF runs where Ctrl-C can leave it behind; the ceiling bounds what it wastes.
        let key: PrivateKey
        do {
            key = try abandonable { try file.decrypt(password: password, ceiling: ceiling) }
        } catch KeystoreError.macMismatch {
            throw KeystoreCommandError.wrongPassword(path: path)
        }
        let address = EthereumAddress(publicKey: key.publicKey).checksummed
        return try unlockedStore().addKey(
            NewKey(
                name: name, kind: .ecdsa, source: .keystore, storage: .software, publicKey: key.publicKey,
                address: address),
            secret: .privateKey(key.secret))
    }

    /// `keystore.save`: the stored key `name` (an ECDSA or HD-CHILD software key) as a keystore
    /// file at `path` under a new password — `password()`'s, or asked twice at a terminal when it
    /// gives nil — after the vault passphrase again (`command` names the operation). The key is
    /// marked revealed before the file is written.
    public func saveKeystore(
        named name: String, to path: String, kdf: KeystoreV3.KDF, force: Bool, command: String,
        password: () throws -> Secret?
    ) throws -> (record: KeyRecord, address: EthereumAddress) {
        let record = try store().key(named: name)
        try Self.checkExportable(record)
        if !force, FileManager.default.fileExists(atPath: path) { throw KeystoreCommandError.fileExists(path: path) }
        let password = try password() ?? newPasswordTwice()
        warnIfEmpty(password)
        let store = try unlockedStore(reconfirming: command)
        let key = try store.read { tx in try Session.signingKey(tx.key(id: record.id), tx) }
        prompts?.status("deriving the keystore key (\(kdf.summary))…")
        let random = self.random
        let file = try abandonable { try KeystoreV3.seal(key, password: password, kdf: kdf, random: random) }
        // The secret leaves the vault: mark it revealed first, so a crash between the two never
        // leaves an exported key that the rotation policy does not know about.
        _ = try store.markRevealed(named: record.name)
        try file.write(to: path)
        return (record, EthereumAddress(publicKey: key.publicKey))
    }

    /// A new keystore password, asked twice without echo.
    private func newPasswordTwice() throws -> Secret {
        guard let host = prompts, let first = try host.askSecret(prompt: "new keystore password: ") else {
            throw SessionError.cancelled
        }
        guard let again = try host.askSecret(prompt: "the same password again: ") else { throw SessionError.cancelled }
        guard first == again else { throw KeystoreCommandError.passwordsDiffer }
        return first
    }

    /// A keystore file under an empty password is as good as plaintext: both `keystore.load` and
    /// `keystore.save` take one (geth and others write such files), and both say so.
    private func warnIfEmpty(_ password: Secret) {
        guard password.count == 0 else { return }
        prompts?.warn("the keystore password is empty: anyone who has the file has the key")
    }

    /// A keystore file holds one private key: an ECDSA key, or an HD-CHILD's derived key,
    /// kept in software and not retired.
    static func checkExportable(_ record: KeyRecord) throws {
        let reason: String? =
            switch record.kind {
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
