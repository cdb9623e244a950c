// What kcs saw of a card's key when it recorded it (docs/store.md, `card_key_checks`): one row
// per card instance UID, public data only, so a later session can tell the card's key, or the
// chain code a duress PIN selects, from the one recorded.
import Foundation
import GRDB
import WalletCrypto

/// A card's key as kcs recorded it: the key UID and master public key (SELECT and EXPORT of
/// `m`), and the public key at `path` derived from them (EXPORT of `path`), which differs when
/// the card derives with another chain code — after a duress-PIN login.
public struct CardKeyCheck: Sendable, Hashable {
    /// The card's 16-byte instance UID.
    public let instanceUID: [UInt8]
    /// SHA-256 of the uncompressed master public key.
    public let keyUID: [UInt8]
    /// The master public key (`m`).
    public let masterPublicKey: PublicKey
    /// The derived path checked, e.g. `m/0`.
    public let path: String
    /// The public key the card gave for `path`.
    public let publicKey: PublicKey
    /// When it was recorded.
    public let recordedAt: Date

    /// A check from its parts (`recordedAt` is set by the store when saved).
    public init(
        instanceUID: [UInt8], masterPublicKey: PublicKey, path: String, publicKey: PublicKey,
        recordedAt: Date = Date(timeIntervalSince1970: 0)
    ) {
        self.instanceUID = instanceUID
        self.keyUID = Hash.sha256(masterPublicKey.uncompressed)
        self.masterPublicKey = masterPublicKey
        self.path = path
        self.publicKey = publicKey
        self.recordedAt = recordedAt
    }
}

extension StoreTransaction {
    /// Records `check` for its card, replacing any earlier one.
    ///
    /// - Throws: `.invalidInstanceUID` (not 16 bytes).
    @discardableResult
    public func saveCardKeyCheck(_ check: CardKeyCheck) throws(StoreError) -> CardKeyCheck {
        let uid = try Self.checkInstanceUID(check.instanceUID)
        try storeErrors {
            try db.execute(
                sql: """
                    INSERT INTO card_key_checks (instance_uid, key_uid, master_public_key, check_path, check_public_key, recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(instance_uid) DO UPDATE SET key_uid = excluded.key_uid,
                        master_public_key = excluded.master_public_key, check_path = excluded.check_path,
                        check_public_key = excluded.check_public_key, recorded_at = excluded.recorded_at
                    """,
                arguments: [
                    uid, Data(check.keyUID), Data(check.masterPublicKey.compressed), check.path,
                    Data(check.publicKey.compressed), nowMS,
                ])
        }
        return CardKeyCheck(
            instanceUID: check.instanceUID, masterPublicKey: check.masterPublicKey, path: check.path,
            publicKey: check.publicKey, recordedAt: Timestamp.date(nowMS))
    }

    /// The check recorded for `instanceUID`, or nil.
    ///
    /// - Throws: `.invalidInstanceUID`, `.corruptRow` when a stored key is not a curve point or
    ///   the key UID does not match the master public key.
    public func cardKeyCheck(instanceUID: [UInt8]) throws(StoreError) -> CardKeyCheck? {
        let uid = try Self.checkInstanceUID(instanceUID)
        return try storeErrors {
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT key_uid, master_public_key, check_path, check_public_key, recorded_at
                        FROM card_key_checks WHERE instance_uid = ?
                        """, arguments: [uid])
            else { return nil }
            guard let master = try? PublicKey(bytes: row.bytes("master_public_key") ?? []),
                let derived = try? PublicKey(bytes: row.bytes("check_public_key") ?? [])
            else {
                throw StoreError.corruptRow(
                    table: "card_key_checks", id: uid, reason: "a public key is not a curve point")
            }
            let check = CardKeyCheck(
                instanceUID: instanceUID, masterPublicKey: master, path: row["check_path"],
                publicKey: derived, recordedAt: Timestamp.date(row["recorded_at"]))
            guard check.keyUID == row.bytes("key_uid") ?? [] else {
                throw StoreError.corruptRow(
                    table: "card_key_checks", id: uid, reason: "the key UID is not the master key's")
            }
            return check
        }
    }

    /// Forgets the check of `instanceUID`; returns whether there was one.
    @discardableResult
    public func deleteCardKeyCheck(instanceUID: [UInt8]) throws(StoreError) -> Bool {
        let uid = try Self.checkInstanceUID(instanceUID)
        return try storeErrors {
            try db.execute(sql: "DELETE FROM card_key_checks WHERE instance_uid = ?", arguments: [uid])
            return db.changesCount > 0
        }
    }
}

extension WalletStore {
    /// Records (or replaces) what kcs saw of a card's key.
    @discardableResult
    public func saveCardKeyCheck(_ check: CardKeyCheck) throws(StoreError) -> CardKeyCheck {
        try perform { try $0.saveCardKeyCheck(check) }
    }

    /// The check recorded for a card, or nil.
    public func cardKeyCheck(instanceUID: [UInt8]) throws(StoreError) -> CardKeyCheck? {
        try fetch { try $0.cardKeyCheck(instanceUID: instanceUID) }
    }

    /// Forgets a card's check.
    @discardableResult
    public func deleteCardKeyCheck(instanceUID: [UInt8]) throws(StoreError) -> Bool {
        try perform { try $0.deleteCardKeyCheck(instanceUID: instanceUID) }
    }
}
