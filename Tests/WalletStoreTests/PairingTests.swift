// Card pairings: sealed pairing keys by instance UID.
import CardProtocol
import Foundation
import GRDB
import Testing
import WalletCrypto

@testable import WalletStore

/// The card layer's pairing type, named for the fixture in VaultTests.
typealias PairingFixture = Pairing

@Suite("Card pairings")
struct PairingTests {
    private let uid1 = h("00112233445566778899aabbccddeeff")
    private let uid2 = h("ffeeddccbbaa99887766554433221100")

    @Test func saveFindListDelete_roundTrip() throws {
        let store = try makeStore()
        #expect(try store.pairing(instanceUID: uid1) == nil)
        let key = Secret(bytes: (0..<32).map { UInt8($0) })
        let summary = try store.savePairing(try Pairing(index: 3, key: key), instanceUID: uid1)
        #expect(summary.slot == 3 && summary.instanceUIDHex == "00112233445566778899aabbccddeeff")
        try store.savePairing(try pairingFixture(slot: 0), instanceUID: uid2)
        let found = try #require(try store.pairing(instanceUID: uid1))
        #expect(found.slot == 3)
        #expect(found.key == key)
        #expect(found.pairing.index == 3)
        #expect(found.description == "<pairing: card 00112233445566778899aabbccddeeff, slot 3>")
        #expect(try store.pairings().map(\.instanceUIDHex) == [Hex.encode(uid1), Hex.encode(uid2)])
        #expect(try store.deletePairing(instanceUID: uid1))
        #expect(try !store.deletePairing(instanceUID: uid1))
        #expect(try store.pairings().map(\.slot) == [0])
    }

    @Test func save_sameCardAgain_replacesThePairing() throws {
        let store = try makeStore()
        try store.savePairing(try pairingFixture(slot: 1), instanceUID: uid1)
        try store.savePairing(
            try Pairing(index: 4, key: Secret(bytes: [UInt8](repeating: 9, count: 32))), instanceUID: uid1)
        #expect(try store.pairings().count == 1)
        let found = try #require(try store.pairing(instanceUID: uid1))
        #expect(found.slot == 4 && found.key == Secret(bytes: [UInt8](repeating: 9, count: 32)))
    }

    @Test func pairingKey_isSealed_andBoundToItsCard() throws {
        let store = try makeStore()
        try store.savePairing(try pairingFixture(slot: 1), instanceUID: uid1)
        try store.savePairing(try pairingFixture(slot: 2), instanceUID: uid2)
        let stored = try store.queue.read {
            try Data.fetchOne(
                $0, sql: "SELECT ciphertext FROM pairings WHERE instance_uid = ?", arguments: [Hex.encode(uid1)])!
        }
        #expect(![UInt8](stored).starts(with: [UInt8](repeating: 7, count: 8)))
        // Swap the sealed keys between the two cards: neither opens.
        try store.queue.write { db in
            try db.execute(
                sql: """
                    UPDATE pairings SET (nonce, ciphertext) = (SELECT nonce, ciphertext FROM pairings WHERE instance_uid = ?)
                    WHERE instance_uid = ?
                    """, arguments: [Hex.encode(uid2), Hex.encode(uid1)])
        }
        #expect(storeError { try store.pairing(instanceUID: uid1) } == .pairingTampered(instanceUID: Hex.encode(uid1)))
        #expect(try store.pairing(instanceUID: uid2)?.slot == 2)
    }

    @Test func badInput_isRefused() throws {
        let store = try makeStore()
        #expect(
            storeError { try store.savePairing(try pairingFixture(slot: 1), instanceUID: [1, 2, 3]) }
                == .invalidInstanceUID(byteCount: 3))
        #expect(
            storeError { try store.savePairing(try pairingFixture(slot: 0xFF), instanceUID: uid1) }?.id
                == "store.invalidPairing")
        store.lock()
        #expect(storeError { try store.savePairing(try pairingFixture(slot: 1), instanceUID: uid1) } == .vaultLocked)
        #expect(try store.pairings().isEmpty)
    }
}

@Suite("Card key checks")
struct CardKeyCheckTests {
    private let uid = h("00112233445566778899aabbccddeeff")

    private func key(_ byte: UInt8) throws -> PublicKey {
        try PrivateKey(bytes: [UInt8](repeating: 0, count: 31) + [byte]).publicKey
    }

    @Test func saveFindReplaceDelete_roundTrip_withTheKeyUIDOfTheMasterKey() throws {
        let store = try makeStore()
        #expect(try store.cardKeyCheck(instanceUID: uid) == nil)
        let master = try key(1), derived = try key(2)
        try store.saveCardKeyCheck(
            CardKeyCheck(instanceUID: uid, masterPublicKey: master, path: "m/0", publicKey: derived))
        let found = try #require(try store.cardKeyCheck(instanceUID: uid))
        #expect(found.keyUID == Hash.sha256(master.uncompressed))
        #expect(found.masterPublicKey == master && found.publicKey == derived && found.path == "m/0")
        try store.saveCardKeyCheck(
            CardKeyCheck(instanceUID: uid, masterPublicKey: try key(3), path: "m/0", publicKey: derived))
        #expect(try store.cardKeyCheck(instanceUID: uid)?.masterPublicKey == (try key(3)))
        #expect(try store.queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM card_key_checks") } == 1)
        #expect(try store.deleteCardKeyCheck(instanceUID: uid))
        #expect(try !store.deleteCardKeyCheck(instanceUID: uid))
        #expect(try store.cardKeyCheck(instanceUID: uid) == nil)
    }

    @Test func aKeyUIDThatIsNotTheMasterKeys_isACorruptRow() throws {
        let store = try makeStore()
        try store.saveCardKeyCheck(
            CardKeyCheck(instanceUID: uid, masterPublicKey: try key(1), path: "m/0", publicKey: try key(2)))
        try store.queue.write { try $0.execute(sql: "UPDATE card_key_checks SET key_uid = zeroblob(32)") }
        #expect(
            throws: StoreError.corruptRow(
                table: "card_key_checks", id: Hex.encode(uid),
                reason: "the key UID is not the master key's")
        ) {
            try store.cardKeyCheck(instanceUID: uid)
        }
    }
}
