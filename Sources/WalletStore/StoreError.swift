import Foundation
import GRDB
import KCSErrors
import WalletCore
import WalletCrypto

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every way a store operation can fail (docs/habits.md §2). Cases carry facts — names,
/// positions, states, SQLite codes — never secrets and never SQL arguments; the text is
/// written once, in `description`, and `id` is stable for tests and callers.
///
/// Whatever the case, the operation that threw changed nothing: every mutating call is
/// one transaction, rolled back on error.
public enum StoreError: WalletError, Equatable {
    // MARK: files and database

    /// The kcs home directory could not be created or is not a directory.
    case homeUnusable(path: String, errno: Int32)
    /// The database file could not be created or given mode 0600.
    case fileUnusable(path: String, errno: Int32)
    /// The database file (or its `-wal`/`-shm` file) is a symbolic link: kcs does not follow it.
    case symbolicLink(path: String)
    /// SQLite refused an operation; `code` is the extended result code. The SQL arguments
    /// are never included (they may be sealed secrets or names the user typed).
    case database(code: Int32, message: String)
    /// SQLite did not switch the database file to WAL mode.
    case notWAL(mode: String)
    /// The database was migrated by a newer kcs: it holds migrations this build does not know.
    case schemaTooNew(unknownMigrations: [String])
    /// A row that cannot be read back (a value outside its domain: tampered or corrupt).
    case corruptRow(table: String, id: String, reason: String)
    /// The store was closed; open it again.
    case closed
    /// A failure inside a WalletCrypto primitive (scrypt, AES-GCM) other than authentication.
    case crypto(WalletCryptoError)

    // MARK: vault

    /// A secret was to be sealed or opened, but no vault passphrase was ever set.
    case vaultMissing
    /// `createVault` on a store that already has one.
    case vaultExists
    /// The vault is locked: unlock it with the passphrase first.
    case vaultLocked
    /// The passphrase does not open the vault; nothing was changed.
    case wrongPassphrase
    /// An empty passphrase was given.
    case emptyPassphrase
    /// scrypt parameters below the minimum (n = 2¹⁵, r = 8, p = 1).
    case weakKDF(parameter: String, given: Int, minimum: Int)

    // MARK: keys

    /// A key name that breaks the naming rules (see `KeyNaming`).
    case invalidName(given: String, reason: String)
    /// A key with this name (compared without case) already exists.
    case duplicateName(String)
    /// No key has this name; `suggestion` is the closest existing name, if one is close.
    case unknownKey(String, suggestion: String?)
    /// No key has this row id.
    case unknownKeyID(Int64)
    /// A position outside 1…count.
    case invalidPosition(given: Int, count: Int)
    /// A field of a new key that does not fit its kind (e.g. an HD-CHILD without a parent).
    case invalidKey(field: String, reason: String)
    /// A secret of this kind cannot be stored with a key of that kind.
    case secretNotAllowed(kind: KeyKind, secret: SecretKind)
    /// The key has no sealed secret (watch-only, card, HD-CHILD or retired).
    case secretMissing(name: String)
    /// AES-GCM refused this key's sealed secret: the ciphertext, nonce or row was changed.
    case secretTampered(name: String)
    /// Deleting an HD-MASTER that still has derived keys, without asking for them to go too.
    case keyHasChildren(name: String, count: Int)
    /// The operation needs a key that is not retired.
    case keyRetired(name: String)

    // MARK: pairings

    /// A card instance UID that is not 16 bytes.
    case invalidInstanceUID(byteCount: Int)
    /// A pairing that cannot be stored (e.g. the ephemeral slot FF).
    case invalidPairing(reason: String)
    /// No pairing is stored for this card.
    case unknownPairing(instanceUID: String)
    /// AES-GCM refused the sealed pairing key of this card.
    case pairingTampered(instanceUID: String)

    // MARK: rotation

    /// No rotation has this id.
    case unknownRotation(Int64)
    /// The key already takes part in an unfinished rotation.
    case rotationInProgress(name: String, rotationID: Int64)
    /// A rotation step asked in the wrong state.
    case rotationState(id: Int64, step: String, expected: [RotationState], actual: RotationState)
    /// This key cannot be rotated by the store (card, watch-only, HD-CHILD, no secret).
    case notRotatable(name: String, reason: String)

    // MARK: history and settings

    /// A signing record with a field out of its domain.
    case invalidHistory(field: String, reason: String)
    /// A history query with an out-of-range value (e.g. a limit of 0).
    case invalidQuery(field: String, reason: String)
    /// A setting key that is empty or too long.
    case invalidSetting(key: String, reason: String)

    // MARK: account discovery

    /// A discovery result with a field out of its domain; `field` names it, e.g. `addresses[2].path`.
    case invalidDiscovery(field: String, reason: String)

    /// Stable identifier, e.g. `store.duplicateName`.
    public var id: String {
        switch self {
        case .homeUnusable: "store.homeUnusable"
        case .fileUnusable: "store.fileUnusable"
        case .symbolicLink: "store.symbolicLink"
        case .database: "store.database"
        case .notWAL: "store.notWAL"
        case .schemaTooNew: "store.schemaTooNew"
        case .corruptRow: "store.corruptRow"
        case .closed: "store.closed"
        case .crypto: "store.crypto"
        case .vaultMissing: "store.vaultMissing"
        case .vaultExists: "store.vaultExists"
        case .vaultLocked: "store.vaultLocked"
        case .wrongPassphrase: "store.wrongPassphrase"
        case .emptyPassphrase: "store.emptyPassphrase"
        case .weakKDF: "store.weakKDF"
        case .invalidName: "store.invalidName"
        case .duplicateName: "store.duplicateName"
        case .unknownKey: "store.unknownKey"
        case .unknownKeyID: "store.unknownKeyID"
        case .invalidPosition: "store.invalidPosition"
        case .invalidKey: "store.invalidKey"
        case .secretNotAllowed: "store.secretNotAllowed"
        case .secretMissing: "store.secretMissing"
        case .secretTampered: "store.secretTampered"
        case .keyHasChildren: "store.keyHasChildren"
        case .keyRetired: "store.keyRetired"
        case .invalidInstanceUID: "store.invalidInstanceUID"
        case .invalidPairing: "store.invalidPairing"
        case .unknownPairing: "store.unknownPairing"
        case .pairingTampered: "store.pairingTampered"
        case .unknownRotation: "store.unknownRotation"
        case .rotationInProgress: "store.rotationInProgress"
        case .rotationState: "store.rotationState"
        case .notRotatable: "store.notRotatable"
        case .invalidHistory: "store.invalidHistory"
        case .invalidQuery: "store.invalidQuery"
        case .invalidSetting: "store.invalidSetting"
        case .invalidDiscovery: "store.invalidDiscovery"
        }
    }

    public var description: String {
        switch self {
        case .homeUnusable(let path, let code):
            "kcs home \(path) must be a directory kcs can create and write, but: \(Self.text(code))"
        case .fileUnusable(let path, let code):
            "store file \(path) must be a file kcs can create with mode 0600, but: \(Self.text(code))"
        case .symbolicLink(let path):
            "store file \(path) is a symbolic link; kcs opens its store only as a plain file (a link could send "
                + "its secrets, or its mode 0600, to another file): replace the link with the file itself"
        case .database(let code, let message):
            "the store's database failed (SQLite code \(code)): \(message)"
        case .notWAL(let mode):
            "the store must use SQLite's WAL journal mode, but SQLite kept \"\(mode)\""
        case .schemaTooNew(let names):
            "the store was written by a newer kcs (unknown migrations: \(names.joined(separator: ", "))); "
                + "upgrade kcs to open it"
        case .corruptRow(let table, let id, let reason):
            "row \(id) of table \(table) cannot be read: \(reason)"
        case .closed:
            "the store is closed; open it again to use it"
        case .crypto(let error):
            error.description
        case .vaultMissing:
            "the vault has no passphrase yet; create the vault before storing or opening secrets"
        case .vaultExists:
            "the vault already has a passphrase; change it instead of creating a new vault"
        case .vaultLocked:
            "the vault is locked; unlock it with the vault passphrase first"
        case .wrongPassphrase:
            "the vault passphrase is wrong; nothing was changed"
        case .emptyPassphrase:
            "the vault passphrase must not be empty"
        case .weakKDF(let parameter, let given, let minimum):
            "scrypt parameter \(parameter) must be at least \(minimum), got \(given)"
        case .invalidName(let given, let reason):
            "key name must be 1 to \(KeyNaming.maxLength) letters, digits, '-', '_' or '.', "
                + "starting with a letter or digit; got \(Self.quote(given)): \(reason)"
        case .duplicateName(let name):
            "key name \(Self.quote(name)) is already taken; choose another name or rename the existing key"
        case .unknownKey(let name, let suggestion):
            "no key is named \(Self.quote(name))" + (suggestion.map { "; did you mean \(Self.quote($0))?" } ?? "")
        case .unknownKeyID(let id):
            "no key has id \(id)"
        case .invalidPosition(let given, let count):
            count == 0
                ? "position must name a key, but the store has no keys; got \(given)"
                : "position must be between 1 and \(count), got \(given)"
        case .invalidKey(let field, let reason):
            "key field \(field) \(reason)"
        case .secretNotAllowed(let kind, let secret):
            "\(kind.withArticle) key cannot hold a \(secret) secret"
                + (kind == .ecdsa
                    ? "; it holds a privkey"
                    : kind == .hdMaster
                        ? "; it holds a mnemonic or a seed"
                        : "; it holds no secret in the store")
        case .secretMissing(let name):
            "key \(Self.quote(name)) has no secret in the store (watch-only, card, derived or retired)"
        case .secretTampered(let name):
            "the sealed secret of key \(Self.quote(name)) fails AES-GCM authentication: "
                + "its ciphertext or row was changed; other keys are unaffected"
        case .keyHasChildren(let name, let count):
            "key \(Self.quote(name)) has \(count) derived key\(count == 1 ? "" : "s"); "
                + "delete \(count == 1 ? "it" : "them") first or delete them together"
        case .keyRetired(let name):
            "key \(Self.quote(name)) is retired (its secret was wiped)"
        case .invalidInstanceUID(let count):
            "card instance UID must be 16 bytes, got \(count)"
        case .invalidPairing(let reason):
            "pairing cannot be stored: \(reason)"
        case .unknownPairing(let uid):
            "no pairing is stored for card \(uid)"
        case .pairingTampered(let uid):
            "the sealed pairing key of card \(uid) fails AES-GCM authentication: its row was changed"
        case .unknownRotation(let id):
            "no rotation has id \(id)"
        case .rotationInProgress(let name, let rotation):
            "key \(Self.quote(name)) is already in rotation \(rotation); resume or roll it back first"
        case .rotationState(let id, let step, let expected, let actual):
            "rotation \(id) must be \(expected.map(\.rawValue).joined(separator: " or ")) to \(step), "
                + "but it is \(actual.rawValue)"
        case .notRotatable(let name, let reason):
            "key \(Self.quote(name)) cannot be rotated: \(reason)"
        case .invalidHistory(let field, let reason):
            "signing record field \(field) \(reason)"
        case .invalidQuery(let field, let reason):
            "history query \(field) \(reason)"
        case .invalidSetting(let key, let reason):
            "setting name \(Self.quote(key)) \(reason)"
        case .invalidDiscovery(let field, let reason):
            "discovery field \(field) \(reason)"
        }
    }

    /// `"name"`, with quotes and control characters escaped so a message stays on one line.
    static func quote(_ text: String) -> String { JSONString.quoted(text) }

    private static func text(_ code: Int32) -> String {
        guard let p = strerror(code) else { return "errno \(code)" }
        return String(cString: p)
    }
}

extension StoreError {
    /// Maps any error met inside the store to a `StoreError`: our own pass through,
    /// SQLite errors keep their code and message (never the statement's arguments:
    /// `Configuration.publicStatementArguments` stays false), crypto errors are wrapped.
    init(_ error: any Error) {
        switch error {
        case let error as StoreError:
            self = error
        case let error as DatabaseError:
            self = .database(code: error.extendedResultCode.rawValue, message: error.message ?? "unknown error")
        case let error as WalletCryptoError:
            self = .crypto(error)
        default:
            self = .database(code: -1, message: String(describing: type(of: error)))
        }
    }
}

/// Runs `body` and turns whatever it throws into a `StoreError`.
@inline(__always)
func storeErrors<T>(_ body: () throws -> T) throws(StoreError) -> T {
    do { return try body() } catch { throw StoreError(error) }
}
