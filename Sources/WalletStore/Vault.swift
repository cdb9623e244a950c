// Secrets at rest (docs/store.md): a vault passphrase → scrypt → a 32-byte key-encryption
// key (KEK); every secret is sealed with AES-256-GCM under the KEK, with a fresh random
// 12-byte nonce and associated data that names the row it belongs to.
import Foundation
import GRDB
import WalletCrypto

// MARK: - Parameters and status

/// scrypt cost parameters for the vault KDF (RFC 7914). The store refuses anything
/// cheaper than `standard` (n = 2¹⁵, r = 8, p = 1: about 32 MiB and ~0.1 s per unlock)
/// except through the explicitly named `insecureForTesting`.
public struct ScryptParameters: Sendable, Hashable, CustomStringConvertible {
    /// CPU/memory cost, a power of two.
    public let n: Int
    /// Block size.
    public let r: Int
    /// Parallelism.
    public let p: Int

    /// n = 2¹⁵, r = 8, p = 1: the default and the minimum.
    public static let standard = ScryptParameters(unchecked: 1 << 15, 8, 1)

    /// Parameters at least as strong as `standard`.
    ///
    /// - Throws: `StoreError.weakKDF` when n is below 2¹⁵ or not a power of two, r below 8 or p below 1.
    public init(n: Int, r: Int, p: Int) throws(StoreError) {
        guard n >= Self.standard.n else { throw .weakKDF(parameter: "n", given: n, minimum: Self.standard.n) }
        guard n & (n - 1) == 0 else {
            throw .weakKDF(parameter: "n (a power of two)", given: n, minimum: Self.standard.n)
        }
        guard r >= Self.standard.r else { throw .weakKDF(parameter: "r", given: r, minimum: Self.standard.r) }
        guard p >= Self.standard.p else { throw .weakKDF(parameter: "p", given: p, minimum: Self.standard.p) }
        self.init(unchecked: n, r, p)
    }

    /// Deliberately weak parameters so test suites can create many vaults quickly.
    /// Never use them for a real vault: the name says so at every call site.
    public static func insecureForTesting(n: Int = 16, r: Int = 1, p: Int = 1) -> ScryptParameters {
        ScryptParameters(unchecked: n, r, p)
    }

    private init(unchecked n: Int, _ r: Int, _ p: Int) {
        self.n = n
        self.r = r
        self.p = p
    }

    /// `scrypt n=32768 r=8 p=1`.
    public var description: String { "scrypt n=\(n) r=\(r) p=\(p)" }
}

/// Whether secrets can be sealed and opened right now.
public enum VaultStatus: String, Sendable, Hashable, CustomStringConvertible {
    /// No passphrase was ever set: the store holds no secret yet.
    case missing
    /// A passphrase exists, but the key-encryption key is not in memory.
    case locked
    /// The key-encryption key is in memory: secrets can be sealed and opened.
    case unlocked

    public var description: String { rawValue }
}

/// What the `vault` row says (no secret in it).
public struct VaultInfo: Sendable, Hashable {
    /// Always `scrypt` today.
    public let kdf: String
    /// The KDF cost.
    public let parameters: ScryptParameters
    /// When the vault was created.
    public let createdAt: Date
    /// When the passphrase was last set.
    public let changedAt: Date
}

// MARK: - Associated data

/// The associated data bound into each AES-GCM seal. A sealed value copied into another
/// row (another key id, another card, another part) fails authentication.
enum SealingContext {
    /// Bound into the vault's verifier.
    static let verifier = Array("kcs/vault/v1/verifier".utf8)

    /// Bound into a key's secret: `kcs/secret/v1/<key id>/<kind>/<part>`,
    /// `part` being `payload` or `passphrase`.
    static func secret(keyID: Int64, kind: SecretKind, part: Part) -> [UInt8] {
        Array("kcs/secret/v1/\(keyID)/\(kind.rawValue)/\(part.rawValue)".utf8)
    }

    /// Bound into the home's two-party identity key.
    static let identity = Array("kcs/2p-identity/v1".utf8)

    /// Bound into a pairing key: `kcs/pairing/v1/<instance UID hex>`.
    static func pairing(instanceUID: String) -> [UInt8] {
        Array("kcs/pairing/v1/\(instanceUID)".utf8)
    }

    /// Which of a key's two sealed values.
    enum Part: String {
        case payload, passphrase
    }
}

/// A sealed value as stored: the nonce and ciphertext ‖ 16-byte tag.
struct Sealed {
    let nonce: [UInt8]
    let ciphertext: [UInt8]
}

/// The `vault` row.
struct VaultRow {
    let parameters: ScryptParameters
    let salt: [UInt8]
    let verifier: Sealed
    let createdAt: Date
    let changedAt: Date

    static func load(_ db: Database) throws -> VaultRow? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT kdf, scrypt_n, scrypt_r, scrypt_p, salt, verifier_nonce, verifier, created_at, changed_at
                    FROM vault WHERE id = 1
                    """)
        else { return nil }
        let kdf: String = row["kdf"]
        guard kdf == "scrypt" else {
            throw StoreError.corruptRow(table: "vault", id: "1", reason: "unknown KDF \(kdf)")
        }
        return VaultRow(
            parameters: .insecureForTesting(n: row["scrypt_n"], r: row["scrypt_r"], p: row["scrypt_p"]),
            salt: [UInt8](row["salt"] as Data),
            verifier: Sealed(
                nonce: [UInt8](row["verifier_nonce"] as Data), ciphertext: [UInt8](row["verifier"] as Data)),
            createdAt: Timestamp.date(row["created_at"]),
            changedAt: Timestamp.date(row["changed_at"]))
    }
}

// MARK: - The vault operations

extension WalletStore {
    /// Whether a vault exists and whether it is unlocked.
    public func vaultStatus() throws(StoreError) -> VaultStatus {
        if isUnlocked { return .unlocked }
        let exists = try fetch { try VaultRow.load($0.db) != nil }
        return exists ? .locked : .missing
    }

    /// The KDF and dates of the vault, or nil when there is none.
    public func vaultInfo() throws(StoreError) -> VaultInfo? {
        try fetch { tx in
            try VaultRow.load(tx.db).map {
                VaultInfo(kdf: "scrypt", parameters: $0.parameters, createdAt: $0.createdAt, changedAt: $0.changedAt)
            }
        }
    }

    /// True between a successful `unlock` (or `createVault`) and `lock`.
    public var isUnlocked: Bool { vaultKey.withLock { $0 != nil } }

    /// Sets the vault passphrase of a store that has none, and leaves the vault unlocked.
    ///
    /// Draws a 32-byte salt, derives the key-encryption key with scrypt(`scrypt`), and
    /// stores the parameters, the salt and a verifier: 32 random bytes sealed under the
    /// key, which only the right passphrase opens.
    ///
    /// - Throws: `.emptyPassphrase`, `.vaultExists`, `.crypto` (scrypt refused the parameters).
    public func createVault(passphrase: Secret, scrypt parameters: ScryptParameters = .standard) throws(StoreError) {
        guard passphrase.count > 0 else { throw .emptyPassphrase }
        if try vaultInfo() != nil { throw .vaultExists }
        let salt = options.random.bytes(32)
        let kek = try Self.deriveKEK(passphrase: passphrase, salt: salt, parameters: parameters)
        let verifier = try seal(options.random.secret(32), with: kek, aad: SealingContext.verifier)
        try perform { tx in
            guard try VaultRow.load(tx.db) == nil else { throw StoreError.vaultExists }
            let now = Timestamp.milliseconds(tx.now)
            try tx.db.execute(
                sql: """
                    INSERT INTO vault (id, kdf, scrypt_n, scrypt_r, scrypt_p, salt, verifier_nonce, verifier,
                                       created_at, changed_at)
                    VALUES (1, 'scrypt', ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    parameters.n, parameters.r, parameters.p, Data(salt), Data(verifier.nonce),
                    Data(verifier.ciphertext), now, now,
                ])
        }
        vaultKey.withLock { $0 = kek }
    }

    /// Derives the key-encryption key from `passphrase` and keeps it (as a `Secret`) until `lock()`.
    ///
    /// - Throws: `.vaultMissing`; `.wrongPassphrase` when the verifier does not open (the
    ///   store and the lock state are unchanged).
    public func unlock(passphrase: Secret) throws(StoreError) {
        let kek = try verifiedKEK(passphrase: passphrase).kek
        vaultKey.withLock { $0 = kek }
    }

    /// Forgets the key-encryption key (its bytes are zeroed when the last reference goes).
    public func lock() {
        vaultKey.withLock { $0 = nil }
    }

    /// Replaces the vault passphrase: derives a new key-encryption key under a new salt
    /// (same scrypt parameters), re-seals every key secret, every BIP-39 passphrase and
    /// every pairing key with fresh nonces, and replaces the verifier — all in one
    /// transaction. Afterwards the vault is unlocked with the new passphrase.
    ///
    /// - Throws: `.wrongPassphrase` when `old` is wrong; `.emptyPassphrase`; `.secretTampered`
    ///   or `.pairingTampered` naming a row that no longer opens (nothing is changed: remove
    ///   or repair that row first).
    public func changePassphrase(old: Secret, new: Secret) throws(StoreError) {
        guard new.count > 0 else { throw .emptyPassphrase }
        let (oldKEK, row) = try verifiedKEK(passphrase: old)
        let salt = options.random.bytes(32)
        let newKEK = try Self.deriveKEK(passphrase: new, salt: salt, parameters: row.parameters)
        try perform { tx in try tx.reseal(from: oldKEK, to: newKEK, salt: salt) }
        vaultKey.withLock { $0 = newKEK }
    }

    // MARK: helpers

    /// The KEK for `passphrase`, checked against the stored verifier, and the vault row it was checked against.
    func verifiedKEK(passphrase: Secret) throws(StoreError) -> (kek: Secret, row: VaultRow) {
        guard let row = try fetch({ try VaultRow.load($0.db) }) else { throw .vaultMissing }
        let kek = try Self.deriveKEK(passphrase: passphrase, salt: row.salt, parameters: row.parameters)
        guard open(row.verifier, with: kek, aad: SealingContext.verifier) != nil else { throw .wrongPassphrase }
        return (kek, row)
    }

    /// scrypt(passphrase, salt) → 32 bytes.
    static func deriveKEK(passphrase: Secret, salt: [UInt8], parameters: ScryptParameters) throws(StoreError) -> Secret
    {
        do {
            return try KeyDerivation.scrypt(
                password: passphrase, salt: salt, n: parameters.n, r: parameters.r,
                p: parameters.p, length: 32)
        } catch {
            throw .crypto(error)
        }
    }

    /// Seals `plaintext` under `kek` with a fresh random nonce.
    func seal(_ plaintext: Secret, with kek: Secret, aad: [UInt8]) throws(StoreError) -> Sealed {
        let nonce = options.random.bytes(12)
        do {
            return Sealed(nonce: nonce, ciphertext: try AESCipher.gcmSeal(plaintext, key: kek, nonce: nonce, aad: aad))
        } catch {
            throw .crypto(error)
        }
    }

    /// Opens a sealed value; nil when AES-GCM refuses it (wrong key, changed bytes, wrong row).
    func open(_ sealed: Sealed, with kek: Secret, aad: [UInt8]) -> Secret? {
        try? AESCipher.gcmOpen(sealed.ciphertext, key: kek, nonce: sealed.nonce, aad: aad)
    }

    /// The KEK, or why there is none (`db` tells a missing vault from a locked one).
    func requireKEK(_ db: Database) throws -> Secret {
        if let kek = vaultKey.withLock({ $0 }) { return kek }
        throw try VaultRow.load(db) == nil ? StoreError.vaultMissing : StoreError.vaultLocked
    }
}

extension StoreTransaction {
    /// Opens a `secrets` row (its `kind`, `nonce`, `ciphertext`, `passphrase_nonce` and
    /// `passphrase_ciphertext` columns) of key `keyID` under `kek`.
    ///
    /// - Throws: `.secretTampered` naming key `name` when AES-GCM refuses the payload or the
    ///   BIP-39 passphrase; `.corruptRow` for an unknown kind.
    func openSecretRow(_ row: Row, keyID: Int64, name: String, kek: Secret) throws(StoreError) -> KeySecret {
        let kind = try storeErrors { try SecretKind.decode(row["kind"], table: "secrets", id: keyID) }
        func open(_ part: SealingContext.Part, _ nonce: [UInt8]?, _ box: [UInt8]?) throws(StoreError) -> Secret {
            let aad = SealingContext.secret(keyID: keyID, kind: kind, part: part)
            guard let plain = store.open(Sealed(nonce: nonce ?? [], ciphertext: box ?? []), with: kek, aad: aad) else {
                throw .secretTampered(name: name)
            }
            return plain
        }
        let payload = try open(.payload, row.bytes("nonce"), row.bytes("ciphertext"))
        var passphrase: Secret?
        if let nonce = row.bytes("passphrase_nonce"), let box = row.bytes("passphrase_ciphertext") {
            passphrase = try open(.passphrase, nonce, box)
        }
        return KeySecret(kind: kind, payload: payload, passphrase: passphrase)
    }

    /// Re-seals everything sealed under `oldKEK` with `newKEK` and writes the new vault row.
    func reseal(from oldKEK: Secret, to newKEK: Secret, salt: [UInt8]) throws {
        // Another process may have changed the passphrase since we checked: check again here.
        guard let row = try VaultRow.load(db) else { throw StoreError.vaultMissing }
        guard store.open(row.verifier, with: oldKEK, aad: SealingContext.verifier) != nil else {
            throw StoreError.wrongPassphrase
        }
        let secrets = try Row.fetchAll(
            db,
            sql: """
                SELECT s.key_id, s.kind, s.nonce, s.ciphertext, s.passphrase_nonce, s.passphrase_ciphertext, k.name
                FROM secrets s JOIN keys k ON k.id = s.key_id ORDER BY s.key_id
                """)
        for secretRow in secrets {
            let keyID: Int64 = secretRow["key_id"]
            let secret = try openSecretRow(secretRow, keyID: keyID, name: secretRow["name"], kek: oldKEK)
            // The same write as a new key's: fresh nonces, and `sealed_at` says when.
            try writeSecret(secret, keyID: keyID, kek: newKEK)
            try store.faultPoint("changePassphrase.secret")
        }
        let pairings = try Row.fetchAll(
            db, sql: "SELECT instance_uid, nonce, ciphertext FROM pairings ORDER BY instance_uid")
        for pairingRow in pairings {
            let uid: String = pairingRow["instance_uid"]
            let aad = SealingContext.pairing(instanceUID: uid)
            let sealed = Sealed(
                nonce: [UInt8](pairingRow["nonce"] as Data), ciphertext: [UInt8](pairingRow["ciphertext"] as Data))
            guard let plain = store.open(sealed, with: oldKEK, aad: aad) else {
                throw StoreError.pairingTampered(instanceUID: uid)
            }
            let resealed = try store.seal(plain, with: newKEK, aad: aad)
            try db.execute(
                sql: "UPDATE pairings SET nonce = ?, ciphertext = ? WHERE instance_uid = ?",
                arguments: [Data(resealed.nonce), Data(resealed.ciphertext), uid])
            try store.faultPoint("changePassphrase.pairing")
        }
        if let identity = try Row.fetchOne(db, sql: "SELECT nonce, ciphertext FROM mpc_identity WHERE id = 1") {
            let sealed = Sealed(nonce: identity.bytes("nonce") ?? [], ciphertext: identity.bytes("ciphertext") ?? [])
            guard let plain = store.open(sealed, with: oldKEK, aad: SealingContext.identity) else {
                throw StoreError.secretTampered(name: "the two-party identity")
            }
            let resealed = try store.seal(plain, with: newKEK, aad: SealingContext.identity)
            try db.execute(
                sql: "UPDATE mpc_identity SET nonce = ?, ciphertext = ? WHERE id = 1",
                arguments: [Data(resealed.nonce), Data(resealed.ciphertext)])
        }
        let verifier = try store.seal(store.options.random.secret(32), with: newKEK, aad: SealingContext.verifier)
        try db.execute(
            sql: """
                UPDATE vault SET salt = ?, verifier_nonce = ?, verifier = ?, changed_at = ? WHERE id = 1
                """,
            arguments: [Data(salt), Data(verifier.nonce), Data(verifier.ciphertext), Timestamp.milliseconds(now)])
    }
}
