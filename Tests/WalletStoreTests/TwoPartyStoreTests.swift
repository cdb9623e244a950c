// Two-party keys in the store (docs/two-party.md, "Storage"): the identity sealed and resealed
// with the vault, peers pinned, a joint key's share sealed and bound to its public parameters
// (a swapped N or c_key is refused), and the v3 migration keeping every v2 row and reference.
import Foundation
import GRDB
import Testing
import WalletCore
import WalletCrypto

@testable import WalletStore

@Suite("Two-party keys in the store")
struct TwoPartyStoreTests {
    let peer = TwoPartyPeer(
        name: "laptop", role: .console, endpoint: "127.0.0.1:7000", identityKey: [UInt8](repeating: 7, count: 32),
        nPed: [UInt8](repeating: 1, count: 256), g: [UInt8](repeating: 2, count: 256),
        h: [UInt8](repeating: 3, count: 256))

    func parameters(q: PublicKey) -> TwoPartyKeyParameters {
        TwoPartyKeyParameters(
            role: .console, peer: "laptop", kind: "hd-master", q: q.compressed, qOther: keyB.publicKey.compressed,
            n: [UInt8](repeating: 9, count: 256), cKey: [UInt8](repeating: 8, count: 512),
            chainCode: [UInt8](repeating: 5, count: 32), sid: [UInt8](repeating: 4, count: 32),
            transcript: [UInt8](repeating: 6, count: 32))
    }

    /// The roles, session kinds, states and key statuses the code names are exactly the values the
    /// schema's CHECK constraints allow (read from the live schema, not from Schema.swift's text).
    @Test func enums_matchTheSchemasChecks() throws {
        let store = try makeStore()
        let sql = try store.queue.read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT sql FROM sqlite_master WHERE type = 'table' AND name IN ('mpc_peers', 'mpc_keys', 'mpc_sessions')"
            )
        }.joined(separator: "\n")
        func allowed(_ column: String) -> [Set<String>] {
            let pattern = try! NSRegularExpression(pattern: "CHECK \\(\(column) IN \\(([^)]*)\\)\\)")
            return pattern.matches(in: sql, range: NSRange(sql.startIndex..., in: sql)).map { m in
                Set(
                    sql[Range(m.range(at: 1), in: sql)!].split(separator: ",").map {
                        $0.trimmingCharacters(in: CharacterSet(charactersIn: " '"))
                    })
            }
        }
        #expect(allowed("role") == Array(repeating: Set(TwoPartyRole.allCases.map(\.rawValue)), count: 3))
        #expect(allowed("kind").contains(Set(TwoPartySessionKind.allCases.map(\.rawValue))))
        #expect(allowed("state") == [Set(TwoPartySessionState.allCases.map(\.rawValue))])
        #expect(allowed("status") == [Set(TwoPartyKeyStatus.allCases.map(\.rawValue))])
    }

    @Test func identity_isSealed_andSurvivesAPassphraseChange() throws {
        let store = try makeStore()
        #expect(try store.read { try $0.twoPartyIdentity() } == nil)
        let secret = Secret(bytes: (0..<64).map { UInt8($0) })
        try store.write { try $0.saveTwoPartyIdentity(publicKey: Array(32..<64).map(UInt8.init), secretKey: secret) }
        try store.changePassphrase(old: Secret(utf8: "vault-pass"), new: Secret(utf8: "another-pass"))
        let identity = try #require(try store.read { try $0.twoPartyIdentity() })
        #expect(identity.publicKey == Array(32..<64).map(UInt8.init))
        #expect(identity.secretKey.withUnsafeBytes { Array($0) } == (0..<64).map { UInt8($0) })
        let raw = try store.queue.read { db in
            try Row.fetchOne(db, sql: "SELECT ciphertext FROM mpc_identity")!.bytes("ciphertext")!
        }
        #expect(!raw.contains(where: { _ in false }) && raw.count == 80)
        store.lock()
        #expect(throws: StoreError.vaultLocked) { try store.read { try $0.twoPartyIdentity() } }
    }

    @Test func jointKey_shareBoundToItsParameters() throws {
        let store = try makeStore()
        try store.write { try $0.saveTwoPartyPeer(peer) }
        #expect(try store.read { try $0.twoPartyPeer(named: "LAPTOP") }?.identityKey == peer.identityKey)
        let q = keyA.publicKey
        let share = Secret(bytes: [UInt8](repeating: 0x5a, count: 32 + 256))
        let key = try store.write { tx in
            try tx.addTwoPartyKey(
                NewKey(
                    name: "vault", kind: .hdMaster, source: .dkg, storage: .twoParty(peer: "laptop"), publicKey: q,
                    address: EthereumAddress(publicKey: q).checksummed),
                share: share, parameters: parameters(q: q))
        }
        #expect(key.storage == .twoParty(peer: "laptop") && key.source == .dkg)
        let opened = try store.read { try $0.openTwoPartyShare(of: key) }
        #expect(opened.share.withUnsafeBytes { Array($0) } == [UInt8](repeating: 0x5a, count: 288))
        #expect(opened.parameters == parameters(q: q))
        #expect(try store.read { try $0.twoPartyKey(q: q.compressed, peer: "laptop") }?.0.name == "vault")
        // Someone with write access swaps the Paillier modulus: the share no longer opens.
        try store.queue.write { db in
            try db.execute(
                sql: "UPDATE mpc_keys SET n = ? WHERE key_id = ?",
                arguments: [Data([UInt8](repeating: 1, count: 256)), key.id])
        }
        #expect(throws: StoreError.secretTampered(name: "vault")) {
            try store.read { try $0.openTwoPartyShare(of: key) }
        }
        // A joint key needs its share and a known peer.
        #expect(throws: StoreError.self) {
            try store.write { tx in
                try tx.addKey(
                    NewKey(
                        name: "bare", kind: .ecdsa, source: .dkg, storage: .twoParty(peer: "laptop"),
                        publicKey: keyC.publicKey))
            }
        }
        #expect(throws: StoreError.self) {
            try store.write { tx in
                try tx.addTwoPartyKey(
                    NewKey(
                        name: "stranger", kind: .ecdsa, source: .dkg, storage: .twoParty(peer: "nobody"),
                        publicKey: keyC.publicKey), share: share, parameters: parameters(q: keyC.publicKey))
            }
        }
    }

    @Test func migrationV3_keepsEveryV2RowAndReference() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let home = dir.file("home")
        // Keys (a master with a secret and an HD child), a history row — then the file taken back
        // to the v2 schema (keys and secrets as v1 made them, no two-party tables).
        do {
            let store = try WalletStore.open(home: home, options: testOptions())
            try store.createVault(passphrase: Secret(utf8: "vault-pass"), scrypt: testScrypt)
            let phrase = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
            let master = try store.addKey(
                NewKey(name: "old", kind: .hdMaster, source: .mnemonic),
                secret: .mnemonic(Secret(utf8: phrase)))
            _ = try store.addKey(
                NewKey(
                    name: "child", kind: .hdChild, source: .mnemonic, publicKey: keyA.publicKey,
                    path: try DerivationPath("m/44'/60'/0'/0/0"), parentID: master.id))
            _ = try store.recordSignature(
                NewHistoryEntry(
                    keyName: "child", kind: .hash, digest: [UInt8](repeating: 1, count: 32),
                    signature: [UInt8](repeating: 2, count: 65), signer: keyA.address, verified: true))
            try store.close()
        }
        var config = Configuration()
        config.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: home + "/kcs.db", configuration: config)
        try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA legacy_alter_table = ON")
            for (table, migration) in [("keys", "v1-keys"), ("secrets", "v1-secrets")] {
                let sql = Schema.migrations.first { $0.name == migration }!.sql
                let indexes = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                    arguments: [table])
                for index in indexes { try db.execute(sql: "DROP INDEX \(index)") }
                try db.execute(sql: "ALTER TABLE \(table) RENAME TO \(table)_x")
                try db.execute(sql: sql)
                try db.execute(sql: "INSERT INTO \(table) SELECT * FROM \(table)_x")
                try db.execute(sql: "DROP TABLE \(table)_x")
            }
            try db.execute(
                sql: "DROP TABLE mpc_sessions; DROP TABLE mpc_keys; DROP TABLE mpc_peers; DROP TABLE mpc_identity")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v3-two-party'")
        }
        try queue.close()
        // Opening runs v3 again over the v2 file.
        let store = try WalletStore.open(home: home, options: testOptions())
        #expect(try store.appliedMigrations().last == "v7-signer-requests")
        try store.unlock(passphrase: Secret(utf8: "vault-pass"))
        let old = try store.read { try $0.key(named: "old") }
        #expect(try store.read { try $0.openSecret(of: old) }.kind == .mnemonic)
        #expect(try store.read { try $0.key(named: "child") }.parentID == old.id)
        #expect(try store.history().count == 1)
        let problems = try store.queue.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }
        #expect(problems.isEmpty)
        let storageCheck = try store.queue.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'keys'") ?? ""
        }
        #expect(storageCheck.contains("2p:%"))
    }
}
