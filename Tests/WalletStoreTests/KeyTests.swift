// Keys: adding with validation, names, positions, rename, delete, flags and rotation policy.
import Foundation
import GRDB
import Testing
import WalletCore
import WalletCrypto

@testable import WalletStore

@Suite("Keys")
struct KeyTests {
    @Test func addKey_storesEveryField() throws {
        let clock = TestClock()
        let store = try makeStore(clock: clock)
        let key = try store.addKey(keyA.newKey(name: "alice"), secret: keyA.secret)
        #expect(key.name == "alice")
        #expect(key.kind == .ecdsa)
        #expect(key.position == 1)
        #expect(key.createdAt == clock.now)
        #expect(key.publicKey == keyA.publicKey.compressed)
        #expect(key.address == keyA.address)
        #expect(key.storage == .software)
        #expect(key.source == .privkey)
        #expect(key.hasSecret)
        #expect(!key.retired && key.revealedAt == nil && key.rotationFlag == nil && key.successorID == nil)
        #expect(try store.key(named: "ALICE") == key)
        #expect(try store.key(id: key.id) == key)
        #expect(try store.key(at: 1) == key)
        #expect(key.description == "#1 alice (ECDSA, software)")
    }

    @Test func addKey_hdMasterWithChildren_inOneTransaction() throws {
        let store = try makeStore()
        let (master, children) = try store.write { tx in
            let master = try tx.addKey(
                NewKey(name: "wallet", kind: .hdMaster, source: .mnemonic, preset: "metamask"),
                secret: .mnemonic(Secret(utf8: "abandon abandon about")))
            let children = try (0..<3).map { i in
                try tx.addKey(
                    NewKey(
                        kind: .hdChild, source: .mnemonic, publicKey: [keyA, keyB, keyC][i].publicKey,
                        address: [keyA, keyB, keyC][i].address,
                        path: try DerivationPath("m/44'/60'/0'/0/\(i)"), parentID: master.id,
                        preset: "metamask"))
            }
            return (master, children)
        }
        #expect(children.map(\.parentID) == [master.id, master.id, master.id])
        #expect(children.map(\.path?.description) == ["m/44'/60'/0'/0/0", "m/44'/60'/0'/0/1", "m/44'/60'/0'/0/2"])
        #expect(children.allSatisfy { !$0.hasSecret })
        #expect(try store.children(ofKeyNamed: "wallet").map(\.id) == children.map(\.id))
        #expect(try orderedNames(store).count == 4)
        #expect(try store.consistencyProblems() == [])
    }

    @Test func defaultNames_comeFromKindAndAddress_andStayUnique() throws {
        let store = try makeStore()
        let a = try store.addKey(keyA.newKey(), secret: keyA.secret)
        let body = keyA.address.dropFirst(2).lowercased()
        #expect(a.name == "ecdsa-\(body.prefix(4))-\(body.suffix(4))")
        // The same address again (say, watch-only under the ECDSA prefix) gets a suffix.
        let again = try store.addKey(
            NewKey(kind: .ecdsa, source: .keystore, publicKey: keyA.publicKey, address: keyA.address),
            secret: keyA.secret)
        #expect(again.name == a.name + "-2")
        let watch = try store.addKey(NewKey(kind: .watch, source: .address, address: keyB.address))
        #expect(watch.name.hasPrefix("watch-"))
        let master = try store.addKey(
            NewKey(kind: .hdMaster, source: .generated), secret: .seed(Secret(bytes: [UInt8](repeating: 1, count: 64))))
        #expect(master.name == "hd")
        let byPublicKey = try store.addKey(
            NewKey(
                kind: .card, source: .card, storage: .card(instanceUID: [UInt8](repeating: 0xCD, count: 16)),
                publicKey: keyC.publicKey))
        let pubHex = Hex.encode(keyC.publicKey.compressed.dropFirst())
        #expect(byPublicKey.name == "card-\(pubHex.prefix(4))-\(pubHex.suffix(4))")
        #expect(byPublicKey.storage.rawValue == "card:" + String(repeating: "cd", count: 16))
    }

    @Test func duplicateName_isRefusedIgnoringCase_andNothingIsWritten() throws {
        let store = try makeStore()
        try store.addKey(keyA.newKey(name: "Alice"), secret: keyA.secret)
        let error = storeError { try store.addKey(keyB.newKey(name: "alice"), secret: keyB.secret) }
        #expect(error == .duplicateName("alice"))
        #expect(error?.id == "store.duplicateName")
        #expect(
            error?.description == "key name \"alice\" is already taken; choose another name or rename the existing key")
        #expect(try store.keyCount() == 1)
        #expect(try store.queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM secrets") } == 1)
    }

    @Test(arguments: [
        ("", "it is empty"),
        ("has space", "it contains a space"),
        ("-dash", "it starts with \"-\""),
        ("a/b", "it contains \"/\""),
        ("12", "a name of only digits would read as a position"),
        (String(repeating: "x", count: 65), "it has 65 characters"),
    ])
    func invalidNames_areRefusedWithTheReason(_ name: String, _ reason: String) throws {
        let store = try makeStore()
        let error = storeError { try store.addKey(keyA.newKey(name: name), secret: keyA.secret) }
        #expect(error == .invalidName(given: name, reason: reason))
        #expect(
            error?.description.hasPrefix(
                "key name must be 1 to 64 letters, digits, '-', '_' or '.', starting with a letter or digit; got")
                == true)
    }

    @Test func unknownKey_suggestsTheClosestName() throws {
        let store = try makeStore()
        try addNumberedKeys(store, count: 3, prefix: "trading-")
        try store.addKey(keyA.newKey(name: "savings"), secret: keyA.secret)
        let error = storeError { try store.key(named: "savigns") }
        #expect(error == .unknownKey("savigns", suggestion: "savings"))
        #expect(error?.description == "no key is named \"savigns\"; did you mean \"savings\"?")
        #expect(storeError { try store.key(named: "zzzzzz") } == .unknownKey("zzzzzz", suggestion: nil))
        #expect(storeError { try store.key(named: "trad") } == .unknownKey("trad", suggestion: "trading-1"))
        #expect(try store.findKey(named: "nothing") == nil)
    }

    @Test func addKey_fieldsThatDoNotFitTheKind_areRefused() throws {
        let store = try makeStore()
        #expect(
            storeError { try store.addKey(NewKey(kind: .hdChild, source: .mnemonic, path: try DerivationPath("m/0"))) }
                == .invalidKey(field: "parent", reason: "is required for an HD-CHILD key"))
        #expect(
            storeError {
                try store.addKey(keyA.newKey(), secret: .seed(Secret(bytes: [UInt8](repeating: 1, count: 32))))
            }
                == .secretNotAllowed(kind: .ecdsa, secret: .seed))
        #expect(
            storeError {
                try store.addKey(NewKey(kind: .watch, source: .address, address: keyA.address), secret: keyA.secret)
            }
                == .secretNotAllowed(kind: .watch, secret: .privkey))
        #expect(
            storeError { try store.addKey(keyA.newKey()) }
                == .invalidKey(field: "secret", reason: "is required for an ECDSA key kept in software"))
        #expect(
            storeError { try store.addKey(keyA.newKey(), secret: .privateKey(Secret(bytes: [1, 2, 3]))) }
                == .invalidKey(field: "secret", reason: "must be a 32-byte private key, got 3 bytes"))
        #expect(
            storeError { try store.addKey(NewKey(kind: .card, source: .card, publicKey: keyA.publicKey)) }?.id
                == "store.invalidKey")
        #expect(
            storeError {
                try store.addKey(NewKey(kind: .ecdsa, source: .privkey, storage: .watch), secret: keyA.secret)
            }
                == .invalidKey(
                    field: "storage", reason: "must be software or 2p:<co-signer> for an ECDSA key, got watch"))
        let a = try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        #expect(
            storeError {
                try store.addKey(
                    NewKey(kind: .hdChild, source: .mnemonic, path: try DerivationPath("m/0"), parentID: a.id))
            } == .invalidKey(field: "parent", reason: "must be an HD-MASTER key, got a (ECDSA)"))
        #expect(
            storeError {
                try store.addKey(
                    NewKey(kind: .hdChild, source: .mnemonic, path: try DerivationPath("m/0"), parentID: 999))
            } == .unknownKeyID(999))
        #expect(try store.keyCount() == 1)
    }

    @Test func rename_keepsIdAndHistoryFollows() throws {
        let store = try makeStore()
        let a = try store.addKey(keyA.newKey(name: "old"), secret: keyA.secret)
        try store.recordSignature(signature(key: "old"))
        let renamed = try store.renameKey(named: "old", to: "new")
        #expect(renamed.id == a.id && renamed.name == "new")
        #expect(try store.history(HistoryQuery(keyName: "new")).count == 1)
        #expect(try store.history(HistoryQuery(keyName: "old")).isEmpty)
        // Changing only the case of its own name is fine; taking another key's name is not.
        #expect(try store.renameKey(named: "new", to: "New").name == "New")
        try store.addKey(keyB.newKey(name: "other"), secret: keyB.secret)
        #expect(storeError { try store.renameKey(named: "New", to: "OTHER") } == .duplicateName("OTHER"))
        #expect(
            storeError { try store.renameKey(named: "New", to: "a b") }
                == .invalidName(given: "a b", reason: "it contains a space"))
    }

    @Test func move_keepsPositionsContiguous() throws {
        let store = try makeStore()
        try addNumberedKeys(store, count: 5)
        try store.moveKey(named: "k5", to: 1)
        #expect(try orderedNames(store) == ["k5", "k1", "k2", "k3", "k4"])
        try store.moveKey(named: "k5", to: 5)
        #expect(try orderedNames(store) == ["k1", "k2", "k3", "k4", "k5"])
        try store.moveKey(named: "k2", to: 4)
        #expect(try orderedNames(store) == ["k1", "k3", "k4", "k2", "k5"])
        try store.moveKeyUp(named: "k2")
        #expect(try orderedNames(store) == ["k1", "k3", "k2", "k4", "k5"])
        try store.moveKeyDown(named: "k1")
        #expect(try orderedNames(store) == ["k3", "k1", "k2", "k4", "k5"])
        try store.moveKeyUp(named: "k3")  // already first: stays
        try store.moveKeyDown(named: "k5")  // already last: stays
        try store.moveKey(named: "k4", to: 4)  // same place
        #expect(try orderedNames(store) == ["k3", "k1", "k2", "k4", "k5"])
        #expect(storeError { try store.moveKey(named: "k1", to: 6) } == .invalidPosition(given: 6, count: 5))
        #expect(
            storeError { try store.moveKey(named: "k1", to: 0) }?.description
                == "position must be between 1 and 5, got 0")
    }

    @Test func delete_removesSecret_closesGap_keepsHistoryName() throws {
        let store = try makeStore()
        try addNumberedKeys(store, count: 4)
        let k2 = try store.key(named: "k2")
        try store.recordSignature(signature(key: "k2"))
        let deleted = try store.deleteKey(named: "k2")
        #expect(deleted.map(\.name) == ["k2"])
        #expect(try orderedNames(store) == ["k1", "k3", "k4"])
        #expect(
            try store.queue.read {
                try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM secrets WHERE key_id = ?", arguments: [k2.id])
            } == 0)
        let history = try store.history(HistoryQuery(keyName: "k2"))
        #expect(history.count == 1)
        #expect(history[0].keyID == nil)
        #expect(history[0].keyName == "k2")
        try store.deleteKey(named: "k1")
        try store.deleteKey(named: "k4")
        #expect(try orderedNames(store) == ["k3"])
        #expect(try store.consistencyProblems() == [])
    }

    @Test func delete_masterWithChildren_needsIncludingChildren() throws {
        let store = try makeStore()
        try addNumberedKeys(store, count: 1)
        let master = try store.addKey(
            NewKey(name: "m", kind: .hdMaster, source: .generated),
            secret: .seed(Secret(bytes: [UInt8](repeating: 9, count: 32))))
        for i in 0..<2 {
            try store.addKey(
                NewKey(
                    name: "m-\(i)", kind: .hdChild, source: .generated,
                    path: try DerivationPath("m/44'/60'/0'/0/\(i)"), parentID: master.id))
        }
        try addNumberedKeys(store, count: 1, prefix: "z")
        let error = storeError { try store.deleteKey(named: "m") }
        #expect(error == .keyHasChildren(name: "m", count: 2))
        #expect(error?.description == "key \"m\" has 2 derived keys; delete them first or delete them together")
        let deleted = try store.deleteKey(named: "m", includingChildren: true)
        #expect(deleted.map(\.name) == ["m-0", "m-1", "m"])
        #expect(try orderedNames(store) == ["k1", "z1"])
    }

    @Test func rotationPolicy_reportsEveryReason() throws {
        let clock = TestClock()
        let store = try makeStore(clock: clock)
        try store.addKey(keyA.newKey(name: "imported", source: .privkey), secret: keyA.secret)
        try store.addKey(keyB.newKey(name: "fresh", source: .generated), secret: keyB.secret)
        try store.addKey(keyC.newKey(name: "shown", source: .generated), secret: keyC.secret)
        try store.addKey(NewKey(name: "watched", kind: .watch, source: .address, address: keyA.address))
        clock.advance(days: 10)
        try store.markRevealed(named: "shown")
        try store.flagForRotation(named: "watched", reason: .exposed)
        let now = clock.now

        let noAge = try store.keysNeedingRotation(now: now)
        #expect(noAge.map(\.key.name) == ["imported", "shown", "watched"])
        #expect(noAge[0].reasons == [.importedFrom(.privkey)])
        #expect(noAge[1].reasons == [.revealed(at: now)])
        #expect(noAge[2].reasons == [.flagged(.exposed)])

        let withAge = try store.keysNeedingRotation(now: now, maxAgeDays: 7)
        #expect(withAge.map(\.key.name) == ["imported", "fresh", "shown", "watched"])
        #expect(withAge[0].reasons == [.olderThan(days: 7), .importedFrom(.privkey)])
        #expect(withAge[1].reasons.map(\.description) == ["older than 7 days"])
        #expect(try store.keysNeedingRotation(now: now, maxAgeDays: 30).count == 3)

        try store.clearRotationFlag(named: "watched")
        try store.retireKey(named: "imported")
        #expect(try store.keysNeedingRotation(now: now).map(\.key.name) == ["shown"])
    }

    @Test func retire_wipesSecret_keepsWatchOnlyEntry() throws {
        let store = try makeStore()
        try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        let retired = try store.retireKey(named: "a")
        #expect(retired.retired && retired.storage == .watch && !retired.hasSecret)
        #expect(retired.address == keyA.address)
        #expect(storeError { try store.openSecret(named: "a") } == .secretMissing(name: "a"))
        #expect(storeError { try store.retireKey(named: "a") } == .keyRetired(name: "a"))
        #expect(try store.keys(includeRetired: false).isEmpty)
        #expect(try store.consistencyProblems() == [])
    }

    @Test func check_givesSQLitesVerdictAndTheInvariantsTogether() throws {
        let store = try makeStore()
        try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        let w = try store.addKey(NewKey(name: "w", kind: .watch, source: .address, address: keyB.address))
        let sound = try store.check()
        #expect(sound.integrity == ["ok"] && sound.problems.isEmpty)
        // A sealed secret planted on a watch-only key: SQLite sees nothing wrong, the store does.
        try store.queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO secrets (key_id, kind, nonce, ciphertext, sealed_at) VALUES (?, 'seed', zeroblob(12), zeroblob(32), 0)
                    """, arguments: [w.id])
        }
        let broken = try store.check()
        #expect(broken.integrity == ["ok"])
        #expect(broken.problems == ["key \"w\" has a sealed secret it should not have"])
        #expect(try store.consistencyProblems() == broken.problems)
    }

    @Test func listing_tenThousandKeys_isOneIndexedQuery() throws {
        let store = try makeStore()
        try store.write { tx in
            for i in 1...10_000 {
                try tx.addKey(
                    NewKey(name: "w\(i)", kind: .watch, source: .address, address: "0x\(String(i, radix: 16))"))
            }
        }
        // How fast is for `make bench`; here, that it is all of them, in order, from the index.
        let keys = try store.keys()
        #expect(keys.count == 10_000)
        #expect(keys.first?.name == "w1" && keys.last?.name == "w10000")
        let plan = try store.queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM keys k ORDER BY k.position").map {
                $0["detail"] as String
            }
        }
        #expect(plan.contains { $0.contains("keys_by_position") }, "plan: \(plan)")
    }
}

/// A signing record for `key` with a fixed digest and signature.
func signature(key: String, kind: SignatureKind = .hash, date: Date? = nil, chainID: UInt64? = nil) -> NewHistoryEntry {
    NewHistoryEntry(
        keyName: key, kind: kind, digest: [UInt8](repeating: 0x11, count: 32),
        signature: [UInt8](repeating: 0x22, count: 65), signer: keyA.address, verified: true,
        chainID: chainID, date: date)
}
