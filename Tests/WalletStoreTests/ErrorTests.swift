// StoreError: stable ids, one sentence each, no secret in any rendering.
import Foundation
import Testing
import WalletCrypto

@testable import WalletStore

@Suite("Store errors")
struct ErrorTests {
    /// One value of every case.
    static let samples: [StoreError] = [
        .homeUnusable(path: "/h", errno: EACCES), .fileUnusable(path: "/h/kcs.db", errno: EACCES),
        .database(code: 19, message: "constraint failed"), .notWAL(mode: "delete"),
        .schemaTooNew(unknownMigrations: ["v9"]), .corruptRow(table: "keys", id: "1", reason: "bad"), .closed,
        .crypto(.authenticationFailed), .vaultMissing, .vaultExists, .vaultLocked, .wrongPassphrase, .emptyPassphrase,
        .weakKDF(parameter: "n", given: 2, minimum: 32_768), .invalidName(given: "", reason: "it is empty"),
        .duplicateName("a"), .unknownKey("a", suggestion: nil), .unknownKeyID(1), .invalidPosition(given: 0, count: 0),
        .invalidKey(field: "path", reason: "is required"), .secretNotAllowed(kind: .watch, secret: .seed),
        .secretMissing(name: "a"), .secretTampered(name: "a"), .keyHasChildren(name: "m", count: 1),
        .keyRetired(name: "a"), .invalidInstanceUID(byteCount: 3), .invalidPairing(reason: "r"),
        .unknownPairing(instanceUID: "00"), .pairingTampered(instanceUID: "00"), .unknownRotation(1),
        .rotationInProgress(name: "a", rotationID: 1),
        .rotationState(id: 1, step: "complete", expected: [.backedUp], actual: .started),
        .notRotatable(name: "a", reason: "r"), .invalidHistory(field: "digest", reason: "r"),
        .invalidQuery(field: "limit", reason: "r"), .invalidSetting(key: "", reason: "r"),
        .invalidDiscovery(field: "addresses[0].path", reason: "r"),
    ]

    @Test func ids_areUniqueAndNamespaced() {
        let ids = Self.samples.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.hasPrefix("store.") })
    }

    @Test func descriptions_areOneLineSentences() {
        for error in Self.samples {
            #expect(!error.description.isEmpty && !error.description.contains("\n"), "\(error.id)")
        }
        #expect(
            StoreError.invalidPosition(given: 3, count: 0).description
                == "position must name a key, but the store has no keys; got 3")
        #expect(
            StoreError.secretNotAllowed(kind: .watch, secret: .seed).description
                == "a WATCH key cannot hold a seed secret; it holds no secret in the store")
        #expect(
            StoreError.rotationState(id: 4, step: "complete", expected: [.backedUp], actual: .started).description
                == "rotation 4 must be backed-up to complete, but it is started")
        #expect(
            StoreError.weakKDF(parameter: "n", given: 16, minimum: 32_768).description
                == "scrypt parameter n must be at least 32768, got 16")
    }

    @Test func names_areQuotedWithControlCharactersEscaped() {
        #expect(
            StoreError.duplicateName("a\"b\nc").description
                == "key name \"a\\\"b\\nc\" is already taken; choose another name or rename the existing key")
    }

    @Test func sqliteErrors_neverCarryStatementArguments() throws {
        // A sealed secret is a statement argument: a failing statement must not echo it.
        let store = try makeStore()
        let marker = "SECRET-ARGUMENT-MARKER"
        let error = storeError {
            try store.write { tx in
                try tx.db.execute(sql: "INSERT INTO settings (key, value) VALUES (?, ?)", arguments: ["", marker])
            }
        }
        #expect(error?.id == "store.database")
        #expect(error.map { !$0.description.contains(marker) && !String(reflecting: $0).contains(marker) } == true)
    }

    @Test func garbageDatabaseFile_isADatabaseError() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        #expect(
            FileManager.default.createFile(atPath: dir.file("kcs.db"), contents: Data(repeating: 0x41, count: 4096)))
        let error = storeError { try WalletStore.open(home: dir.path, options: testOptions()) }
        #expect(error == .database(code: 26, message: "file is not a database"))
    }
}
