import Foundation
import GRDB
import WalletCore
import WalletCrypto
import WalletStore

/// Store figures (issue 5 §8), on real `kcs.db` files (WAL, `synchronous = FULL`) in a temporary
/// home, removed afterwards:
/// - `store_import`: 1,000 ECDSA keys through `WalletStore.addKey(_:secret:)`, one transaction
///   per key as the console does one command per key (default name, sealed private key);
/// - `store_keys`: `keys()` over 10,000 keys (the whole list, by position, decoded);
/// - `store_history`: the newest 50 records of one key, plus that query's full count, over
///   100,000 records;
/// - `store_unlock`: `unlock(passphrase:)` of a vault with the standard scrypt parameters.
/// Baselines measured in the same run (`*_raw`): the same inserts and select with GRDB on
/// plain tables of the same shape, no sealing, in a file with the same pragmas; and plain
/// scrypt (`KeyDerivation.scrypt`) with the vault's parameters.
enum StoreBench {
    static let passphrase = Secret(utf8: "bench passphrase")

    /// A key as the console would add it from `import privkey`: public key and EIP-55 address
    /// computed, the private key as the secret.
    struct Material {
        let privateKey: PrivateKey
        let publicKey: PublicKey
        let address: String
    }

    static func material(_ count: Int) -> [Material] {
        let random = SystemRandom()
        return (0..<count).map { _ in
            let key = PrivateKey.generate(using: random)
            let pub = key.publicKey
            return Material(privateKey: key, publicKey: pub, address: EthereumAddress(publicKey: pub).checksummed)
        }
    }

    static func newKey(_ m: Material) -> NewKey {
        NewKey(kind: .ecdsa, source: .privkey, publicKey: m.publicKey, address: m.address)
    }

    static func run() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-bench-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var homes = 0
        func home() -> String {
            homes += 1
            return root.appendingPathComponent("home\(homes)").path
        }
        try importKeys(home: home)
        try listKeys(home: home)
        try queryHistory(home: home())
        try unlockVault(home: home())
    }

    /// A store with a vault (cheap parameters: only unlock is measured with the real ones), unlocked.
    static func openStore(_ home: String) throws -> WalletStore {
        let store = try WalletStore.open(home: home)
        try store.createVault(passphrase: passphrase, scrypt: .insecureForTesting())
        return store
    }

    // MARK: - The baseline: plain SQLite through GRDB

    /// A GRDB queue on `<home>/raw.db` with kcs.db's pragmas (WAL, synchronous FULL, foreign
    /// keys) and `keys`/`secrets` tables of the same columns, with the private key stored
    /// in the clear instead of sealed.
    static func openRaw(_ home: String) throws -> DatabaseQueue {
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        var config = Configuration()
        config.journalMode = .wal
        config.foreignKeysEnabled = true
        let queue = try DatabaseQueue(path: home + "/raw.db", configuration: config)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(
                sql: """
                    CREATE TABLE keys (
                        id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL COLLATE NOCASE, kind TEXT NOT NULL,
                        position INTEGER NOT NULL, created_at INTEGER NOT NULL, public_key BLOB, address TEXT, path TEXT,
                        parent_id INTEGER REFERENCES keys(id), storage TEXT NOT NULL, preset TEXT, source TEXT NOT NULL,
                        xpub TEXT, revealed_at INTEGER, rotation_flag TEXT, retired INTEGER NOT NULL DEFAULT 0,
                        successor_id INTEGER REFERENCES keys(id));
                    CREATE UNIQUE INDEX keys_by_name ON keys(name);
                    CREATE UNIQUE INDEX keys_by_position ON keys(position);
                    CREATE TABLE secrets (
                        key_id INTEGER PRIMARY KEY REFERENCES keys(id) ON DELETE CASCADE, kind TEXT NOT NULL,
                        payload BLOB NOT NULL, sealed_at INTEGER NOT NULL);
                    """)
        }
        return queue
    }

    /// The baseline's insert of one key and its (unsealed) private key.
    static func rawInsert(_ db: Database, _ m: Material, position: Int, name: String) throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try db.execute(
            sql: """
                INSERT INTO keys (name, kind, position, created_at, public_key, address, storage, source)
                VALUES (?, 'ECDSA', ?, ?, ?, ?, 'software', 'privkey')
                """, arguments: [name, position, now, Data(m.publicKey.compressed), m.address])
        let id = db.lastInsertedRowID
        let payload = m.privateKey.secret.withUnsafeBytes { Data($0) }
        try db.execute(
            sql: "INSERT INTO secrets (key_id, kind, payload, sealed_at) VALUES (?, 'privkey', ?, ?)",
            arguments: [id, payload, now])
    }

    static func rawName(_ i: Int) -> String { "ecdsa-\(i)" }

    /// The select of `keys()`: the same columns, the secret's existence, by position.
    static let rawListSQL = """
        SELECT k.id, k.name, k.kind, k.position, k.created_at, k.public_key, k.address, k.path, k.parent_id, k.storage,
               k.preset, k.source, k.xpub, k.revealed_at, k.rotation_flag, k.retired, k.successor_id,
               EXISTS (SELECT 1 FROM secrets s WHERE s.key_id = k.id) AS has_secret
        FROM keys k ORDER BY k.position
        """

    // MARK: - 1. Importing 1,000 keys

    static func importKeys(home: () -> String) throws {
        let count = 1000
        let keys = material(count)

        let raw = try openRaw(home())
        let rawRate = try rate(count) { i in
            try raw.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    try rawInsert(db, keys[i], position: i + 1, name: rawName(i))
                    return .commit
                }
            }
        }
        try raw.close()

        let store = try openStore(home())
        let kcsRate = try rate(count) { i in
            try store.addKey(newKey(keys[i]), secret: .privateKey(keys[i].privateKey.secret))
        }
        let stored = try store.keyCount()
        precondition(stored == count, "store import lost keys")
        try store.close()

        report("store_import", kcsRate)
        report("store_import_raw", rawRate)
    }

    // MARK: - 2. `keys` over 10,000 keys

    static func listKeys(home: () -> String) throws {
        let count = 10_000
        let keys = material(count)

        let store = try openStore(home())
        try store.write { tx in
            for m in keys { try tx.addKey(newKey(m), secret: .privateKey(m.privateKey.secret)) }
        }
        let raw = try openRaw(home())
        try raw.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                for (i, m) in keys.enumerated() { try rawInsert(db, m, position: i + 1, name: rawName(i)) }
                return .commit
            }
        }

        var seen = 0
        let listings = 20
        seen += try store.keys().count  // warm the page cache and the statement
        let kcsRate = try rate(listings) { _ in seen += try store.keys().count }
        seen += try raw.read { try Row.fetchAll($0, sql: rawListSQL).count }
        let rawRate = try rate(listings) { _ in seen += try raw.read { try Row.fetchAll($0, sql: rawListSQL).count } }
        precondition(seen == 2 * (listings + 1) * count, "a listing missed keys")
        try store.close()
        try raw.close()

        report("store_keys", kcsRate)
        report("store_keys_raw", rawRate)
    }

    // MARK: - 3. `history` over 100,000 records

    static func queryHistory(home: String) throws {
        let records = 100_000
        let keyCount = 10
        let keys = material(keyCount)
        let store = try openStore(home)
        let random = SystemRandom()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        try store.write { tx in
            var names: [String] = []
            for m in keys { names.append(try tx.addKey(newKey(m), secret: .privateKey(m.privateKey.secret)).name) }
            // Random digests and signature bytes: the query does not look inside them.
            for i in 0..<records {
                let k = i % keyCount
                try tx.recordSignature(
                    NewHistoryEntry(
                        keyName: names[k], kind: i % 7 == 0 ? .message : .hash, digest: random.bytes(32),
                        signature: random.bytes(65), signer: keys[k].address, verified: true,
                        date: start.addingTimeInterval(Double(i))))
            }
        }
        let name = try store.key(at: 3).name
        let query = HistoryQuery(keyName: name, limit: 50)
        var check = 0
        let r = try rate(1000) { _ in
            let newest = try store.history(query)
            let total = try store.historyCount(query)
            check &+= newest.count + total
        }
        let newest = try store.history(query).count, total = try store.historyCount(query)
        precondition(newest == 50 && total == records / keyCount, "history query returned the wrong records")
        precondition(check != 0)
        try store.close()
        report("store_history", r)
    }

    // MARK: - 4. Vault unlock, standard scrypt

    static func unlockVault(home: String) throws {
        let store = try WalletStore.open(home: home)
        try store.createVault(passphrase: passphrase, scrypt: .standard)
        store.lock()
        let unlocks = 10
        let kcsRate = try rate(unlocks) { _ in
            try store.unlock(passphrase: passphrase)
            store.lock()
        }
        try store.close()

        let p = ScryptParameters.standard
        let salt = SystemRandom().bytes(32)
        let rawRate = try rate(unlocks) { _ in
            _ = try KeyDerivation.scrypt(password: passphrase, salt: salt, n: p.n, r: p.r, p: p.p, length: 32)
        }
        report("store_unlock", kcsRate)
        report("store_unlock_raw", rawRate)
    }
}
