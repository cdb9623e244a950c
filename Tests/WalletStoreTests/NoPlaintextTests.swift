// "A plaintext mnemonic, seed or private key is never written to disk" (issue 5 §2):
// store keys with known secrets in a real file, then scan the raw bytes of kcs.db and
// kcs.db-wal — while the WAL holds the writes, after a checkpoint, and after closing.
import Foundation
import Testing
import WalletCore
import WalletCrypto

@testable import WalletStore

/// BIP-39 test vector 3 (trezor/python-mnemonic vectors.json, entropy 7f7f…7f).
private let phrase = "legal winner thank year wave sausage worth useful legal winner thank yellow"
private let mnemonicPassphrase = "TREZOR-unique-passphrase-42"
private let vaultPassphrase = "vault-passphrase-that-must-not-leak"

/// The byte patterns that must never appear, with a label for the failure message.
private func needles(seed: [UInt8]) -> [(String, [UInt8])] {
    var out: [(String, [UInt8])] = [
        ("mnemonic phrase", Array(phrase.utf8)),
        ("mnemonic fragment", Array("sausage worth useful".utf8)),
        ("mnemonic passphrase", Array(mnemonicPassphrase.utf8)),
        ("vault passphrase", Array(vaultPassphrase.utf8)),
        ("seed bytes", seed),
        ("seed hex", Array(Hex.encode(seed).utf8)),
        ("seed HEX", Array(Hex.encode(seed).uppercased().utf8)),
    ]
    for (label, key) in [("key A", keyA), ("key B", keyB)] {
        out.append(("\(label) bytes", key.privateKey))
        out.append(("\(label) first half", Array(key.privateKey.prefix(16))))
        out.append(("\(label) hex", Array(Hex.encode(key.privateKey).utf8)))
        out.append(("\(label) HEX", Array(Hex.encode(key.privateKey).uppercased().utf8)))
    }
    return out
}

private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    let first = needle[0]
    var i = 0
    let last = haystack.count - needle.count
    while i <= last {
        if haystack[i] == first, haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
        i += 1
    }
    return false
}

private func bytes(_ path: String) -> [UInt8] { FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? [] }

@Suite("No plaintext secret at rest")
struct NoPlaintextTests {
    @Test func databaseAndWAL_neverContainPlaintextSecrets() throws {
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let seed = [UInt8](
            try Mnemonic(phrase: phrase).seed(passphrase: mnemonicPassphrase).withUnsafeBytes { Array($0) })
        let dbPath = dir.file("kcs.db")

        let store = try WalletStore.open(home: dir.path, options: testOptions())
        try store.createVault(passphrase: Secret(utf8: vaultPassphrase), scrypt: testScrypt)
        try store.write { tx in
            let master = try tx.addKey(
                NewKey(name: "needle-master", kind: .hdMaster, source: .mnemonic, preset: "metamask"),
                secret: .mnemonic(Secret(utf8: phrase), passphrase: Secret(utf8: mnemonicPassphrase)))
            try tx.addKey(
                NewKey(name: "needle-seed", kind: .hdMaster, source: .mnemonic), secret: .seed(Secret(bytes: seed)))
            try tx.addKey(
                NewKey(
                    name: "needle-child", kind: .hdChild, source: .mnemonic,
                    path: try DerivationPath("m/44'/60'/0'/0/0"), parentID: master.id))
        }
        try store.addKey(keyA.newKey(name: "needle-a"), secret: keyA.secret)
        try store.addKey(keyB.newKey(name: "needle-b"), secret: keyB.secret)
        // Re-sealing and deleting must not leave plaintext either.
        try store.changePassphrase(old: Secret(utf8: vaultPassphrase), new: Secret(utf8: vaultPassphrase + "-2"))
        _ = try store.openSecret(named: "needle-a")
        try store.markRevealed(named: "needle-a")

        let patterns = needles(seed: seed)
        func scan(_ label: String, _ data: [UInt8]) {
            for (what, needle) in patterns {
                #expect(!contains(data, needle), "\(what) found in \(label)")
            }
        }
        // 1. Before any checkpoint: the writes sit in the WAL.
        let walBefore = bytes(dbPath + "-wal")
        #expect(walBefore.count > 0)
        // The scan can see what is really there: the key names are stored in clear.
        #expect(contains(walBefore + bytes(dbPath), Array("needle-master".utf8)))
        scan("kcs.db-wal before checkpoint", walBefore)
        scan("kcs.db before checkpoint", bytes(dbPath))

        // 2. After a checkpoint: the pages are in the main file.
        try store.checkpointWAL()
        let dbAfter = bytes(dbPath)
        #expect(contains(dbAfter, Array("needle-master".utf8)))
        scan("kcs.db after checkpoint", dbAfter)
        scan("kcs.db-wal after checkpoint", bytes(dbPath + "-wal"))

        // 3. After closing.
        try store.close()
        scan("kcs.db after close", bytes(dbPath))
        scan("kcs.db-wal after close", bytes(dbPath + "-wal"))
        scan("kcs.db-shm after close", bytes(dbPath + "-shm"))

        // And the secrets are all still there for the right passphrase.
        let reopened = try WalletStore.open(home: dir.path, options: testOptions())
        try reopened.unlock(passphrase: Secret(utf8: vaultPassphrase + "-2"))
        #expect(try reopened.openSecret(named: "needle-master").payload == Secret(utf8: phrase))
        #expect(try reopened.openSecret(named: "needle-seed").payload == Secret(bytes: seed))
        #expect(try reopened.openSecret(named: "needle-b").payload == Secret(bytes: keyB.privateKey))
    }

    @Test func deletedSecret_isZeroedNotJustUnlinked() throws {
        // secure_delete: after deleting a key and checkpointing, its old ciphertext bytes are
        // gone from the file too (defence in depth: they were sealed anyway).
        let dir = try ScratchDirectory()
        defer { dir.cleanup() }
        let store = try WalletStore.open(home: dir.path, options: testOptions())
        try store.createVault(passphrase: Secret(utf8: vaultPassphrase), scrypt: testScrypt)
        let a = try store.addKey(keyA.newKey(name: "gone"), secret: keyA.secret)
        try store.checkpointWAL()
        let ciphertext = try store.queue.read {
            [UInt8](try Data.fetchOne($0, sql: "SELECT ciphertext FROM secrets WHERE key_id = ?", arguments: [a.id])!)
        }
        #expect(contains(bytes(dir.file("kcs.db")), ciphertext))
        try store.deleteKey(named: "gone")
        try store.close()
        #expect(!contains(bytes(dir.file("kcs.db")), ciphertext))
        #expect(!contains(bytes(dir.file("kcs.db-wal")), ciphertext))
    }
}
