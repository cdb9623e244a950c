// The rotation journal: states, resume after a restart, rollback, lineage.
import Foundation
import Testing
import WalletCore
import WalletCrypto

@testable import WalletStore

@Suite("Key rotation journal")
struct RotationTests {
    @Test func fullRotation_walksEveryState() throws {
        let clock = TestClock()
        let store = try makeStore(clock: clock)
        try store.addKey(keyA.newKey(name: "old", source: .privkey), secret: keyA.secret)
        try store.addKey(keyC.newKey(name: "other", source: .generated), secret: keyC.secret)

        let begun = try store.beginRotation(ofKeyNamed: "old")
        #expect(begun.state == .started && begun.newKeyID == nil && begun.oldKeyName == "old")
        #expect(try store.pendingRotations().map(\.id) == [begun.id])

        clock.advance(seconds: 60)
        let successor = try store.createSuccessor(
            rotationID: begun.id, key: keyB.newKey(name: "new", source: .generated),
            secret: keyB.secret)
        #expect(successor.position == 2)  // right below the old key
        #expect(try orderedNames(store) == ["old", "new", "other"])
        let created = try store.rotation(id: begun.id)
        #expect(created.state == .successorCreated && created.newKeyName == "new")
        #expect(created.updatedAt == clock.now)

        // The old secret is still there until the backup is confirmed and the rotation completes.
        #expect(
            storeError { try store.completeRotation(rotationID: begun.id) }
                == .rotationState(id: begun.id, step: "complete", expected: [.backedUp], actual: .successorCreated))
        #expect(try store.openSecret(named: "old").payload == Secret(bytes: keyA.privateKey))

        try store.confirmSuccessorBackedUp(rotationID: begun.id)
        let done = try store.completeRotation(rotationID: begun.id)
        #expect(done.state == .completed && done.finishedAt == clock.now)
        #expect(try store.pendingRotations().isEmpty)

        let old = try store.key(named: "old")
        #expect(old.retired && old.storage == .watch && !old.hasSecret && old.successorID == successor.id)
        #expect(storeError { try store.openSecret(named: "old") } == .secretMissing(name: "old"))
        #expect(try store.openSecret(named: "new").payload == Secret(bytes: keyB.privateKey))
        #expect(try store.lineage(ofKeyNamed: "new").map(\.name) == ["old", "new"])
        #expect(try store.lineage(ofKeyNamed: "old").map(\.name) == ["old", "new"])
        #expect(try store.rotations(ofKeyNamed: "new").map(\.id) == [begun.id])
        #expect(try store.consistencyProblems() == [])
        // The retired key no longer needs rotation; the successor does not either.
        #expect(try store.keysNeedingRotation().map(\.key.name) == [])
    }

    @Test func interruptedRotation_isFoundAfterReopen_andResumes() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let rotationID: Int64
        do {
            let store = try WalletStore.open(home: dir.path, options: testOptions())
            try store.createVault(passphrase: Secret(utf8: "pw"), scrypt: testScrypt)
            try store.addKey(keyA.newKey(name: "old"), secret: keyA.secret)
            rotationID = try store.beginRotation(ofKeyNamed: "old").id
            try store.createSuccessor(rotationID: rotationID, key: keyB.newKey(name: "new"), secret: keyB.secret)
            try store.close()  // the console quits (or dies) here
        }
        let store = try WalletStore.open(home: dir.path, options: testOptions())
        let pending = try store.pendingRotations()
        #expect(pending.map(\.id) == [rotationID])
        #expect(
            pending[0].state == .successorCreated && pending[0].oldKeyName == "old" && pending[0].newKeyName == "new")
        try store.unlock(passphrase: Secret(utf8: "pw"))
        try store.confirmSuccessorBackedUp(rotationID: rotationID)
        try store.completeRotation(rotationID: rotationID)
        #expect(try store.key(named: "old").retired)
    }

    @Test(arguments: [RotationState.started, .successorCreated, .backedUp])
    func rollBack_fromAnyOpenState_restoresTheOldKey(_ state: RotationState) throws {
        let store = try makeStore()
        try store.addKey(keyA.newKey(name: "old"), secret: keyA.secret)
        try store.addKey(keyC.newKey(name: "other"), secret: keyC.secret)
        let id = try store.beginRotation(ofKeyNamed: "old").id
        if state != .started {
            try store.createSuccessor(rotationID: id, key: keyB.newKey(name: "new"), secret: keyB.secret)
        }
        if state == .backedUp { try store.confirmSuccessorBackedUp(rotationID: id) }

        let rolled = try store.rollBackRotation(rotationID: id)
        #expect(rolled.state == .rolledBack && rolled.newKeyID == nil)
        #expect(try orderedNames(store) == ["old", "other"])
        let old = try store.key(named: "old")
        #expect(!old.retired && old.hasSecret && old.successorID == nil)
        #expect(try store.openSecret(named: "old").payload == Secret(bytes: keyA.privateKey))
        #expect(try store.pendingRotations().isEmpty)
        #expect(
            storeError { try store.rollBackRotation(rotationID: id) }
                == .rotationState(
                    id: id, step: "roll back", expected: [.started, .successorCreated, .backedUp], actual: .rolledBack))
        // A new rotation can start afterwards.
        #expect(try store.beginRotation(ofKeyNamed: "old").state == .started)
    }

    @Test func rollBack_checkpointsTheWAL_soTheSuccessorsSecretLeavesIt() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let store = try WalletStore.open(home: dir.path, options: testOptions())
        try store.createVault(passphrase: Secret(utf8: "pw"), scrypt: testScrypt)
        try store.addKey(keyA.newKey(name: "old"), secret: keyA.secret)
        let id = try store.beginRotation(ofKeyNamed: "old").id
        try store.createSuccessor(rotationID: id, key: keyB.newKey(name: "new"), secret: keyB.secret)
        let wal = dir.file("kcs.db-wal")
        #expect(try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0 > 0)
        try store.rollBackRotation(rotationID: id)
        #expect(try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int == 0)
        #expect(try orderedNames(store) == ["old"])
    }

    @Test func hdRotation_retiresTheChildrenToo() throws {
        let store = try makeStore()
        let old = try store.addKey(
            NewKey(name: "m", kind: .hdMaster, source: .mnemonic, preset: "ledger-live"),
            secret: .mnemonic(Secret(utf8: "abandon abandon about")))
        try store.addKey(
            NewKey(
                name: "m0", kind: .hdChild, source: .mnemonic, path: try DerivationPath("m/44'/60'/0'/0/0"),
                parentID: old.id))
        let id = try store.beginRotation(ofKeyNamed: "m").id
        let successor = try store.write { tx in
            let master = try tx.createSuccessor(
                rotationID: id, key: NewKey(name: "m2", kind: .hdMaster, source: .generated),
                secret: .mnemonic(Secret(utf8: "zoo zoo wrong")))
            try tx.addKey(
                NewKey(
                    name: "m2-0", kind: .hdChild, source: .generated,
                    path: try DerivationPath("m/44'/60'/0'/0/0"), parentID: master.id))
            return master
        }
        #expect(successor.preset == "ledger-live")  // inherited
        try store.confirmSuccessorBackedUp(rotationID: id)
        try store.completeRotation(rotationID: id)
        #expect(try store.key(named: "m0").retired)
        #expect(try !store.key(named: "m2-0").retired)
        #expect(try store.consistencyProblems() == [])
    }

    @Test func badRequests_areRefused() throws {
        let store = try makeStore()
        try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        try store.addKey(NewKey(name: "w", kind: .watch, source: .address, address: keyB.address))
        let id = try store.beginRotation(ofKeyNamed: "a").id
        let twice = storeError { try store.beginRotation(ofKeyNamed: "a") }
        #expect(twice == .rotationInProgress(name: "a", rotationID: id))
        #expect(twice?.description == "key \"a\" is already in rotation \(id); resume or roll it back first")
        #expect(
            storeError { try store.beginRotation(ofKeyNamed: "w") }
                == .notRotatable(name: "w", reason: "a WATCH key has no secret in the store"))
        #expect(
            storeError {
                try store.createSuccessor(
                    rotationID: id, key: NewKey(name: "x", kind: .hdMaster, source: .generated),
                    secret: .seed(Secret(bytes: [UInt8](repeating: 1, count: 32))))
            }
                == .invalidKey(field: "kind", reason: "of a successor must be ECDSA like a, got HD-MASTER"))
        #expect(storeError { try store.confirmSuccessorBackedUp(rotationID: id) }?.id == "store.rotationState")
        #expect(storeError { try store.deleteKey(named: "a") } == .rotationInProgress(name: "a", rotationID: id))
        #expect(storeError { try store.rotation(id: 42) } == .unknownRotation(42))
        #expect(try store.keyCount() == 2)
    }
}
