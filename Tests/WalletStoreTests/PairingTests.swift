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
        try store.savePairing(try Pairing(index: 4, key: Secret(bytes: [UInt8](repeating: 9, count: 32))), instanceUID: uid1)
        #expect(try store.pairings().count == 1)
        let found = try #require(try store.pairing(instanceUID: uid1))
        #expect(found.slot == 4 && found.key == Secret(bytes: [UInt8](repeating: 9, count: 32)))
    }

    @Test func pairingKey_isSealed_andBoundToItsCard() throws {
        let store = try makeStore()
        try store.savePairing(try pairingFixture(slot: 1), instanceUID: uid1)
        try store.savePairing(try pairingFixture(slot: 2), instanceUID: uid2)
        let stored = try store.queue.read { try Data.fetchOne($0, sql: "SELECT ciphertext FROM pairings WHERE instance_uid = ?", arguments: [Hex.encode(uid1)])! }
        #expect(![UInt8](stored).starts(with: [UInt8](repeating: 7, count: 8)))
        // Swap the sealed keys between the two cards: neither opens.
        try store.queue.write { db in
            try db.execute(sql: """
                UPDATE pairings SET (nonce, ciphertext) = (SELECT nonce, ciphertext FROM pairings WHERE instance_uid = ?)
                WHERE instance_uid = ?
                """, arguments: [Hex.encode(uid2), Hex.encode(uid1)])
        }
        #expect(storeError { try store.pairing(instanceUID: uid1) } == .pairingTampered(instanceUID: Hex.encode(uid1)))
        #expect(try store.pairing(instanceUID: uid2)?.slot == 2)
    }

    @Test func badInput_isRefused() throws {
        let store = try makeStore()
        #expect(storeError { try store.savePairing(try pairingFixture(slot: 1), instanceUID: [1, 2, 3]) } == .invalidInstanceUID(byteCount: 3))
        #expect(storeError { try store.savePairing(try pairingFixture(slot: 0xFF), instanceUID: uid1) }?.id == "store.invalidPairing")
        store.lock()
        #expect(storeError { try store.savePairing(try pairingFixture(slot: 1), instanceUID: uid1) } == .vaultLocked)
        #expect(try store.pairings().isEmpty)
    }
}
