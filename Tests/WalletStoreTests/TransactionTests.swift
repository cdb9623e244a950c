// One command, one transaction: a failure half-way leaves the store as it was.
import Foundation
import GRDB
import Testing
import WalletCrypto

@testable import WalletStore

private struct CommandFailed: Error {}

@Suite("Transactions roll back on failure")
struct TransactionTests {
    @Test func writeBody_throwing_rollsBackEverything() throws {
        let store = try makeStore()
        try addNumberedKeys(store, count: 2)
        #expect(throws: CommandFailed.self) {
            try store.write { tx in
                try tx.addKey(keyA.newKey(name: "partial"), secret: keyA.secret)
                try tx.renameKey(named: "k1", to: "renamed")
                try tx.recordSignature(signature(key: "k2"))
                throw CommandFailed()
            }
        }
        #expect(try orderedNames(store) == ["k1", "k2"])
        #expect(try store.historyCount() == 0)
        #expect(try store.queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM secrets") } == 2)
    }

    @Test func addKey_failingBeforeTheSecret_leavesNoRow() throws {
        let store = try makeStore(fault: { if $0 == "addKey.beforeSecret" { throw injectedIOError } })
        #expect(storeError { try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret) } == injectedIOError)
        #expect(try store.keyCount() == 0)
        #expect(try store.consistencyProblems() == [])
    }

    @Test func deleteKey_failingBeforeRenumbering_keepsTheKey() throws {
        let store = try makeStore(fault: { if $0 == "deleteKey.afterDelete" { throw injectedIOError } })
        try addNumberedKeys(store, count: 3)
        #expect(storeError { try store.deleteKey(named: "k1") } == injectedIOError)
        #expect(try orderedNames(store) == ["k1", "k2", "k3"])
        #expect(try store.openSecret(named: "k1").kind == .privkey)
    }

    @Test func completeRotation_failingAfterTheWipe_keepsTheOldSecret() throws {
        let store = try makeStore(fault: { if $0 == "rotation.afterWipe" { throw injectedIOError } })
        try store.addKey(keyA.newKey(name: "old"), secret: keyA.secret)
        let id = try store.beginRotation(ofKeyNamed: "old").id
        try store.createSuccessor(rotationID: id, key: keyB.newKey(name: "new"), secret: keyB.secret)
        try store.confirmSuccessorBackedUp(rotationID: id)
        #expect(storeError { try store.completeRotation(rotationID: id) } == injectedIOError)
        #expect(try store.rotation(id: id).state == .backedUp)
        #expect(try store.openSecret(named: "old").payload == Secret(bytes: keyA.privateKey))
        #expect(try !store.key(named: "old").retired)
    }

    @Test func createSuccessor_failingHalfway_staysStarted() throws {
        let store = try makeStore(fault: { if $0 == "rotation.successorCreated" { throw injectedIOError } })
        try store.addKey(keyA.newKey(name: "old"), secret: keyA.secret)
        let id = try store.beginRotation(ofKeyNamed: "old").id
        #expect(
            storeError { try store.createSuccessor(rotationID: id, key: keyB.newKey(name: "new"), secret: keyB.secret) }
                == injectedIOError)
        #expect(try store.rotation(id: id).state == .started)
        #expect(try orderedNames(store) == ["old"])
    }

    @Test func readTransaction_refusesWrites() throws {
        let store = try makeStore()
        let error = storeError { try store.read { tx in try tx.setSetting("a", to: "b") } }
        #expect(error?.id == "store.database")
        #expect(try store.settings().isEmpty)
    }
}
