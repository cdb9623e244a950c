// Card pairings (docs/card.md): one per card instance UID, the pairing key sealed
// under the vault key like any secret, so a pairing slot is never lost to a restart.
import CardProtocol
import Foundation
import GRDB
import WalletCrypto

/// A stored pairing without its key (listing needs no unlocked vault).
public struct PairingSummary: Sendable, Hashable {
    /// The card's 16-byte instance UID.
    public let instanceUID: [UInt8]
    /// The pairing slot on that card (0…254).
    public let slot: UInt8
    /// When the pairing was stored (or last replaced).
    public let createdAt: Date

    /// The instance UID as lower-case hex, as in `card:<uid>` storage.
    public var instanceUIDHex: String { Hex.encode(instanceUID) }
}

/// A stored pairing with its unsealed key.
public struct PairingRecord: Sendable, CustomStringConvertible {
    /// The card's instance UID.
    public let instanceUID: [UInt8]
    /// The pairing slot.
    public let slot: UInt8
    /// The 32-byte pairing key (SHA-256 of the pairing secret and salt).
    public let key: Secret
    /// When the pairing was stored.
    public let createdAt: Date

    /// The pairing in the card layer's type, ready for `openSecureChannel`.
    public var pairing: Pairing {
        // The CHECK on the column guarantees a 48-byte ciphertext, hence a 32-byte key.
        try! Pairing(index: slot, key: key)
    }

    /// `<pairing: card 0123…, slot 1>`; the key never prints.
    public var description: String { "<pairing: card \(Hex.encode(instanceUID)), slot \(slot)>" }
}

extension StoreTransaction {
    /// Stores the pairing for the card with `instanceUID`, replacing any earlier one.
    ///
    /// - Throws: `.invalidInstanceUID` (not 16 bytes), `.invalidPairing` (the ephemeral
    ///   slot FF, which the card forgets on deselection), `.vaultMissing`/`.vaultLocked`.
    @discardableResult
    public func savePairing(_ pairing: Pairing, instanceUID: [UInt8]) throws(StoreError) -> PairingSummary {
        let uid = try Self.checkInstanceUID(instanceUID)
        guard pairing.index != 0xFF else {
            throw .invalidPairing(reason: "slot FF is the ephemeral pairing, forgotten when the card is deselected")
        }
        try storeErrors {
            let kek = try store.requireKEK(db)
            let sealed = try store.seal(pairing.key, with: kek, aad: SealingContext.pairing(instanceUID: uid))
            try db.execute(
                sql: """
                    INSERT INTO pairings (instance_uid, slot, nonce, ciphertext, created_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(instance_uid) DO UPDATE SET slot = excluded.slot, nonce = excluded.nonce,
                        ciphertext = excluded.ciphertext, created_at = excluded.created_at
                    """, arguments: [uid, Int(pairing.index), Data(sealed.nonce), Data(sealed.ciphertext), nowMS])
        }
        return PairingSummary(instanceUID: instanceUID, slot: pairing.index, createdAt: Timestamp.date(nowMS))
    }

    /// The pairing stored for `instanceUID`, unsealed, or nil when there is none.
    ///
    /// - Throws: `.invalidInstanceUID`, `.vaultMissing`/`.vaultLocked`, `.pairingTampered`.
    public func pairing(instanceUID: [UInt8]) throws(StoreError) -> PairingRecord? {
        let uid = try Self.checkInstanceUID(instanceUID)
        return try storeErrors {
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT slot, nonce, ciphertext, created_at FROM pairings WHERE instance_uid = ?",
                    arguments: [uid])
            else { return nil }
            let kek = try store.requireKEK(db)
            let sealed = Sealed(nonce: row.bytes("nonce") ?? [], ciphertext: row.bytes("ciphertext") ?? [])
            guard let key = store.open(sealed, with: kek, aad: SealingContext.pairing(instanceUID: uid)),
                key.count == 32
            else {
                throw StoreError.pairingTampered(instanceUID: uid)
            }
            let slot: Int = row["slot"]
            return PairingRecord(
                instanceUID: instanceUID, slot: UInt8(slot), key: key,
                createdAt: Timestamp.date(row["created_at"]))
        }
    }

    /// Every stored pairing, by instance UID, without keys.
    public func pairings() throws(StoreError) -> [PairingSummary] {
        try storeErrors {
            try Row.fetchAll(db, sql: "SELECT instance_uid, slot, created_at FROM pairings ORDER BY instance_uid").map {
                row in
                let uid: String = row["instance_uid"]
                guard let bytes = try? Hex.decode(uid), bytes.count == 16 else {
                    throw StoreError.corruptRow(
                        table: "pairings", id: uid, reason: "instance UID is not 16 bytes of hex")
                }
                let slot: Int = row["slot"]
                return PairingSummary(
                    instanceUID: bytes, slot: UInt8(slot), createdAt: Timestamp.date(row["created_at"]))
            }
        }
    }

    /// Forgets the pairing of `instanceUID`; returns whether there was one.
    @discardableResult
    public func deletePairing(instanceUID: [UInt8]) throws(StoreError) -> Bool {
        let uid = try Self.checkInstanceUID(instanceUID)
        return try storeErrors {
            try db.execute(sql: "DELETE FROM pairings WHERE instance_uid = ?", arguments: [uid])
            return db.changesCount > 0
        }
    }

    /// The instance UID as stored (lower-case hex), once checked to be 16 bytes.
    static func checkInstanceUID(_ bytes: [UInt8]) throws(StoreError) -> String {
        guard bytes.count == 16 else { throw .invalidInstanceUID(byteCount: bytes.count) }
        return Hex.encode(bytes)
    }
}
