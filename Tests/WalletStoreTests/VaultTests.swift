// The vault: passphrase → scrypt → key-encryption key; secrets sealed with AES-256-GCM
// and bound to their row (issue 5 §2).
import Foundation
import GRDB
import Testing
import WalletCore
import WalletCrypto

@testable import WalletStore

/// A snapshot of every table's contents, to show that a failed call changed nothing.
private func snapshot(_ store: WalletStore) throws -> [String] {
    try store.queue.read { db in
        var out: [String] = []
        for table in [
            "vault", "keys", "secrets", "pairings", "history", "rotations", "settings", "discovered_addresses",
        ] {
            for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1") { out.append("\(table): \(row)") }
        }
        return out
    }
}

@Suite("Vault and sealed secrets")
struct VaultTests {
    @Test func createVault_standardParameters_unlockAndOpen() throws {
        // The one test that pays for the real cost: n = 2^15, r = 8, p = 1.
        let store = try WalletStore.inMemory(options: testOptions())
        #expect(try store.vaultStatus() == .missing)
        try store.createVault(passphrase: Secret(utf8: "correct horse"))
        let info = try #require(try store.vaultInfo())
        #expect(info.parameters == .standard)
        #expect(info.parameters.description == "scrypt n=32768 r=8 p=1")
        #expect(info.kdf == "scrypt")
        try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        store.lock()
        #expect(try store.vaultStatus() == .locked)
        try store.unlock(passphrase: Secret(utf8: "correct horse"))
        let opened = try store.openSecret(named: "a")
        #expect(opened.payload == Secret(bytes: keyA.privateKey))
        let salt = try store.queue.read { try Data.fetchOne($0, sql: "SELECT salt FROM vault")! }
        #expect(salt.count == 32)
    }

    @Test func scryptParameters_belowStandard_areRefused() {
        #expect(throws: StoreError.weakKDF(parameter: "n", given: 1 << 14, minimum: 1 << 15)) {
            try ScryptParameters(n: 1 << 14, r: 8, p: 1)
        }
        #expect(throws: StoreError.weakKDF(parameter: "r", given: 4, minimum: 8)) {
            try ScryptParameters(n: 1 << 15, r: 4, p: 1)
        }
        #expect(throws: StoreError.weakKDF(parameter: "n (a power of two)", given: 40_000, minimum: 1 << 15)) {
            try ScryptParameters(n: 40_000, r: 8, p: 1)
        }
        #expect(throws: Never.self) { try ScryptParameters(n: 1 << 16, r: 8, p: 2) }
    }

    @Test func createVault_twice_orEmpty_isRefused() throws {
        let store = try makeStore()
        #expect(
            storeError { try store.createVault(passphrase: Secret(utf8: "other"), scrypt: testScrypt) } == .vaultExists)
        let fresh = try WalletStore.inMemory(options: testOptions())
        #expect(
            storeError { try fresh.createVault(passphrase: Secret(utf8: ""), scrypt: testScrypt) } == .emptyPassphrase)
    }

    @Test func secrets_needAnUnlockedVault() throws {
        let fresh = try WalletStore.inMemory(options: testOptions())
        #expect(storeError { try fresh.addKey(keyA.newKey(), secret: keyA.secret) } == .vaultMissing)
        #expect(try fresh.keys().isEmpty)
        let store = try makeStore()
        try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        store.lock()
        #expect(storeError { try store.openSecret(named: "a") } == .vaultLocked)
        #expect(storeError { try store.addKey(keyB.newKey(), secret: keyB.secret) } == .vaultLocked)
        #expect(StoreError.vaultLocked.description == "the vault is locked; unlock it with the vault passphrase first")
        // Keys without secrets need no vault.
        try store.addKey(NewKey(name: "w", kind: .watch, source: .address, address: keyB.address))
    }

    @Test func unlock_wrongPassphrase_changesNothing() throws {
        let store = try makeStore()
        try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        store.lock()
        let before = try snapshot(store)
        let error = storeError { try store.unlock(passphrase: Secret(utf8: "vault-pasS")) }
        #expect(error == .wrongPassphrase)
        #expect(error?.id == "store.wrongPassphrase")
        #expect(error?.description == "the vault passphrase is wrong; nothing was changed")
        #expect(!store.isUnlocked)
        #expect(try snapshot(store) == before)
        // A wrong old passphrase in a change is refused the same way.
        #expect(
            storeError { try store.changePassphrase(old: Secret(utf8: "nope"), new: Secret(utf8: "new")) }
                == .wrongPassphrase)
        #expect(try snapshot(store) == before)
        try store.unlock(passphrase: Secret(utf8: "vault-pass"))
        #expect(try store.openSecret(named: "a").payload == Secret(bytes: keyA.privateKey))
    }

    @Test func tamperedCiphertext_failsForThatKeyOnly() throws {
        let store = try makeStore()
        try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        let b = try store.addKey(keyB.newKey(name: "b"), secret: keyB.secret)
        try store.addKey(keyC.newKey(name: "c"), secret: keyC.secret)
        try store.queue.write { db in
            let box = try Data.fetchOne(db, sql: "SELECT ciphertext FROM secrets WHERE key_id = ?", arguments: [b.id])!
            var bytes = [UInt8](box)
            bytes[3] ^= 0x01
            try db.execute(sql: "UPDATE secrets SET ciphertext = ? WHERE key_id = ?", arguments: [Data(bytes), b.id])
        }
        let error = storeError { try store.openSecret(named: "b") }
        #expect(error == .secretTampered(name: "b"))
        #expect(
            error?.description
                == "the sealed secret of key \"b\" fails AES-GCM authentication: its ciphertext or row was changed; other keys are unaffected"
        )
        #expect(try store.openSecret(named: "a").payload == Secret(bytes: keyA.privateKey))
        #expect(try store.openSecret(named: "c").payload == Secret(bytes: keyC.privateKey))
        #expect(try store.keys().count == 3)
    }

    @Test func ciphertextMovedToAnotherRow_fails() throws {
        // The associated data names the key id: a sealed secret copied onto another key
        // (with its nonce) does not open there.
        let store = try makeStore()
        let a = try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        let b = try store.addKey(keyB.newKey(name: "b"), secret: keyB.secret)
        try store.queue.write { db in
            try db.execute(
                sql: """
                    UPDATE secrets SET (nonce, ciphertext) = (SELECT nonce, ciphertext FROM secrets WHERE key_id = ?)
                    WHERE key_id = ?
                    """, arguments: [a.id, b.id])
        }
        #expect(storeError { try store.openSecret(named: "b") } == .secretTampered(name: "b"))
        #expect(try store.openSecret(named: "a").payload == Secret(bytes: keyA.privateKey))
    }

    @Test func changePassphrase_resealsEverything_oldPassphraseFails() throws {
        let store = try makeStore()
        let phrase = "legal winner thank year wave sausage worth useful legal winner thank yellow"
        try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        try store.addKey(
            NewKey(name: "m", kind: .hdMaster, source: .mnemonic),
            secret: .mnemonic(Secret(utf8: phrase), passphrase: Secret(utf8: "TREZOR")))
        let uid = [UInt8](repeating: 0xAB, count: 16)
        try store.savePairing(try pairingFixture(slot: 2), instanceUID: uid)
        let before = try store.queue.read {
            try Row.fetchAll($0, sql: "SELECT nonce, ciphertext FROM secrets ORDER BY key_id")
        }

        try store.changePassphrase(old: Secret(utf8: "vault-pass"), new: Secret(utf8: "new pass"))
        #expect(store.isUnlocked)
        let after = try store.queue.read {
            try Row.fetchAll($0, sql: "SELECT nonce, ciphertext FROM secrets ORDER BY key_id")
        }
        #expect(zip(before, after).allSatisfy { $0["nonce"] as Data != $1["nonce"] as Data })

        store.lock()
        #expect(storeError { try store.unlock(passphrase: Secret(utf8: "vault-pass")) } == .wrongPassphrase)
        try store.unlock(passphrase: Secret(utf8: "new pass"))
        #expect(try store.openSecret(named: "a").payload == Secret(bytes: keyA.privateKey))
        let mnemonic = try store.openSecret(named: "m")
        #expect(mnemonic.kind == .mnemonic)
        #expect(mnemonic.payload == Secret(utf8: phrase))
        #expect(mnemonic.passphrase == Secret(utf8: "TREZOR"))
        #expect(try store.pairing(instanceUID: uid)?.key == Secret(bytes: [UInt8](repeating: 7, count: 32)))
        #expect(try store.vaultInfo()?.changedAt != nil)
    }

    @Test func changePassphrase_withATamperedSecret_changesNothing() throws {
        let store = try makeStore()
        try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        let b = try store.addKey(keyB.newKey(name: "b"), secret: keyB.secret)
        try store.queue.write {
            try $0.execute(sql: "UPDATE secrets SET nonce = zeroblob(12) WHERE key_id = ?", arguments: [b.id])
        }
        let before = try snapshot(store)
        let error = storeError { try store.changePassphrase(old: Secret(utf8: "vault-pass"), new: Secret(utf8: "x")) }
        #expect(error == .secretTampered(name: "b"))
        #expect(try snapshot(store) == before)
        store.lock()
        try store.unlock(passphrase: Secret(utf8: "vault-pass"))
        #expect(try store.openSecret(named: "a").payload == Secret(bytes: keyA.privateKey))
    }

    @Test func changePassphrase_failingHalfway_rollsBack() throws {
        // The fault hits after the first secret was re-sealed: the transaction must roll back
        // so every secret still opens with the old passphrase.
        let store = try makeStore(fault: { point in if point == "changePassphrase.secret" { throw injectedIOError } })
        try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        try store.addKey(keyB.newKey(name: "b"), secret: keyB.secret)
        let before = try snapshot(store)
        #expect(
            storeError { try store.changePassphrase(old: Secret(utf8: "vault-pass"), new: Secret(utf8: "x")) }
                == injectedIOError)
        #expect(try snapshot(store) == before)
        store.lock()
        try store.unlock(passphrase: Secret(utf8: "vault-pass"))
        #expect(try store.openSecret(named: "b").payload == Secret(bytes: keyB.privateKey))
    }

    @Test func keySecret_neverPrintsItsBytes() throws {
        let secret = KeySecret.mnemonic(Secret(utf8: "legal winner thank"), passphrase: Secret(utf8: "TREZOR"))
        #expect(secret.description == "<key secret: mnemonic + passphrase>")
        #expect("\(secret)" == secret.description)
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("legal") && !dumped.contains("TREZOR"))
        #expect(String(reflecting: secret) == secret.description)
    }
}

/// A CardProtocol pairing with key 07…07.
func pairingFixture(slot: UInt8) throws -> PairingFixture {
    try PairingFixture(index: slot, key: Secret(bytes: [UInt8](repeating: 7, count: 32)))
}
