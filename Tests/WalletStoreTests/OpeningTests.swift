// Opening the store file: home and file modes, WAL, foreign keys, named migrations.
import Foundation
import GRDB
import KCSErrors
import Testing
import WalletCrypto

@testable import WalletStore

@Suite("Opening the store")
struct OpeningTests {
    @Test func open_freshHome_appliesEveryMigrationInOrder() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let store = try WalletStore.open(home: dir.file("home"), options: testOptions())
        #expect(try store.appliedMigrations() == WalletStore.migrationNames)
        #expect(
            WalletStore.migrationNames == [
                "v1-settings", "v1-vault", "v1-keys", "v1-secrets", "v1-pairings",
                "v1-history", "v1-rotations", "v1-discovered-addresses",
                "v2-card-key-checks", "v3-two-party", "v4-two-party-open-sessions", "v5-history-authorizations",
                "v6-history-bitcoin", "v7-signer-requests",
            ])
        let tables = try store.queue.read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%' ORDER BY name"
            )
        }
        #expect(
            tables == [
                "card_key_checks", "discovered_addresses", "history", "keys", "mpc_identity", "mpc_keys", "mpc_peers",
                "mpc_sessions",
                "pairings", "rotations", "secrets", "settings", "signer_requests", "vault",
            ])
    }

    @Test func open_twice_isIdempotentAndKeepsData() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        do {
            let store = try WalletStore.open(home: dir.path, options: testOptions())
            try store.setSetting("theme", to: "dark")
            try store.close()
        }
        let again = try WalletStore.open(home: dir.path, options: testOptions())
        #expect(try again.appliedMigrations() == WalletStore.migrationNames)
        #expect(try again.setting("theme") == "dark")
        let migrationRows = try again.queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM grdb_migrations") }
        #expect(migrationRows == WalletStore.migrationNames.count)
    }

    @Test func open_createsHome0700_andFiles0600() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let home = dir.file("nested/kcs")
        let store = try WalletStore.open(home: home, options: testOptions())
        try store.setSetting("x", to: "y")  // makes sure the WAL has content
        #expect(permissions(home) == 0o700)
        #expect(permissions(home + "/kcs.db") == 0o600)
        #expect(permissions(home + "/kcs.db-wal") == 0o600)
        #expect(permissions(home + "/kcs.db-shm") == 0o600)
        #expect(store.databasePath == home + "/kcs.db")
    }

    @Test func open_existingLooseFile_isTightenedTo0600() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let path = dir.file("kcs.db")
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        let store = try WalletStore.open(home: dir.path, options: testOptions())
        #expect(permissions(path) == 0o600)
        #expect(permissions(path + "-wal") == 0o600)
        withExtendedLifetime(store) {}
    }

    /// Another process that opens and closes the store while this one has it open must not take
    /// this one's later writes with it: opening tightens the files before SQLite locks them (a
    /// descriptor closed afterwards would drop SQLite's locks, and the other process, believing
    /// itself the last, would delete the WAL this one still writes to).
    @Test func anotherProcessClosingTheStore_losesNoLaterWrite() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let store = try WalletStore.open(home: dir.path, options: testOptions())
        try store.setSetting("first", to: "1")
        func otherProcess() throws -> String {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            p.arguments = [
                "-c",
                """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                print(c.execute("SELECT COUNT(*) FROM settings").fetchone()[0])
                c.close()
                """, dir.path + "/kcs.db",
            ]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try otherProcess() == "1")
        try store.setSetting("second", to: "2")
        #expect(try otherProcess() == "2")
        #expect(FileManager.default.fileExists(atPath: dir.path + "/kcs.db-wal"))
        withExtendedLifetime(store) {}
    }

    @Test func open_homeIsAFile_failsNamingIt() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let path = dir.file("not-a-dir")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        let error = storeError { try WalletStore.open(home: path, options: testOptions()) }
        #expect(error?.id == "store.homeUnusable")
        #expect(
            error?.description == "kcs home \(path) must be a directory kcs can create and write, but: Not a directory")
    }

    @Test func open_usesWAL_foreignKeys_secureDelete() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let store = try WalletStore.open(home: dir.path, options: testOptions())
        #expect(try store.journalMode() == "wal")
        #expect(try store.foreignKeysEnabled())
        let (secureDelete, synchronous) = try store.queue.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA secure_delete"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
        }
        #expect(secureDelete == 1)
        #expect(synchronous == 2)  // FULL
    }

    @Test func foreignKeys_areEnforced() throws {
        let store = try makeStore()
        let error = storeError {
            try store.write { tx in
                try tx.db.execute(
                    sql: """
                        INSERT INTO secrets (key_id, kind, nonce, ciphertext, sealed_at)
                        VALUES (999, 'seed', zeroblob(12), zeroblob(32), 0)
                        """)
            }
        }
        #expect(error?.id == "store.database")
        #expect(error?.description.contains("FOREIGN KEY constraint failed") == true)
    }

    @Test func open_databaseFromNewerKcs_isRefused() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        do {
            let store = try WalletStore.open(home: dir.path, options: testOptions())
            try store.queue.write {
                try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-future')")
            }
            try store.close()
        }
        let error = storeError { try WalletStore.open(home: dir.path, options: testOptions()) }
        #expect(error == .schemaTooNew(unknownMigrations: ["v9-future"]))
        #expect(
            error?.description
                == "the store was written by a newer kcs (unknown migrations: v9-future); upgrade kcs to open it")
    }

    @Test func inMemory_hasTheSameSchema() throws {
        let store = try WalletStore.inMemory(options: testOptions())
        #expect(try store.appliedMigrations() == WalletStore.migrationNames)
        #expect(try store.journalMode() == "memory")
        #expect(store.databasePath == nil)
    }

    @Test(arguments: [
        (["KCS_HOME": "/k", "XDG_DATA_HOME": "/x", "HOME": "/h"], "/k"),
        (["XDG_DATA_HOME": "/x", "HOME": "/h"], "/x/kcs"),
        (["KCS_HOME": "", "HOME": "/h"], "/h/.local/share/kcs"),
    ])
    func defaultHome_followsTheEnvironment(_ environment: [String: String], _ expected: String) {
        #expect(WalletStore.defaultHome(environment: ProcessEnvironment(environment)) == expected)
    }

    @Test func settings_roundTripAndRemove() throws {
        let store = try makeStore()
        try store.setSetting("rotation.max-age-days", to: "90")
        try store.setSetting("rotation.max-age-days", to: "30")
        #expect(try store.settings() == ["rotation.max-age-days": "30"])
        try store.setSetting("rotation.max-age-days", to: nil)
        #expect(try store.setting("rotation.max-age-days") == nil)
        #expect(storeError { try store.setSetting("", to: "v") }?.id == "store.invalidSetting")
    }

    @Test func closedStore_reportsADatabaseError() throws {
        let store = try makeStore()
        try store.close()
        #expect(!store.isUnlocked)
        #expect(storeError { try store.keys() } == .closed)
        #expect(storeError { try store.addKey(keyA.newKey(), secret: keyA.secret) } == .closed)
        #expect(storeError { try store.journalMode() } == .closed)
        try store.close()  // twice is fine
    }
}
