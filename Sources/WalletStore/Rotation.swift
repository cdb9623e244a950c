// The rotation journal (docs/store.md). A rotation moves through
//
//     started ──► successor-created ──► backed-up ──► completed
//        └──────────────┴──────────────────┴─────────► rolled-back
//
// one transaction per arrow, so a rotation interrupted anywhere is found by
// `pendingRotations()` on the next start, in the last state that committed, and can be
// resumed from there or rolled back. The old secret is wiped only by `completed`, which
// requires the user's confirmation that the successor is backed up.
import Foundation
import GRDB

/// Where a rotation stands.
public enum RotationState: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Begun; no successor yet.
    case started
    /// The successor key exists (and its secret is sealed); the user has not confirmed a backup.
    case successorCreated = "successor-created"
    /// The user confirmed the successor's backup; the old secret is still there.
    case backedUp = "backed-up"
    /// Done: the old secret is wiped, the old key retired and linked to its successor.
    case completed
    /// Abandoned: the successor (if any) was deleted; the old key is untouched.
    case rolledBack = "rolled-back"

    /// True for `completed` and `rolled-back`.
    public var isFinished: Bool { self == .completed || self == .rolledBack }

    public var description: String { rawValue }
}

/// One rotation journal entry.
public struct RotationRecord: Sendable, Hashable, Identifiable {
    /// Journal id.
    public let id: Int64
    /// The key being replaced.
    public let oldKeyID: Int64
    /// Its name.
    public let oldKeyName: String
    /// The successor, once created (nil again after a rollback deleted it).
    public let newKeyID: Int64?
    /// The successor's name, while it exists.
    public let newKeyName: String?
    /// The current state.
    public let state: RotationState
    /// When the rotation began.
    public let startedAt: Date
    /// When the state last changed.
    public let updatedAt: Date
    /// When it completed or was rolled back.
    public let finishedAt: Date?
}

extension StoreTransaction {
    private static let rotationSelect = """
        SELECT r.id, r.old_key_id, o.name, r.new_key_id, n.name, r.state, r.started_at, r.updated_at, r.finished_at
        FROM rotations r JOIN keys o ON o.id = r.old_key_id LEFT JOIN keys n ON n.id = r.new_key_id
        """

    private func fetchRotations(where condition: String, arguments: StatementArguments = []) throws -> [RotationRecord]
    {
        try Row.fetchAll(db, sql: Self.rotationSelect + " WHERE " + condition + " ORDER BY r.id", arguments: arguments)
            .map { row in
                let id: Int64 = row[0]
                return RotationRecord(
                    id: id, oldKeyID: row[1], oldKeyName: row[2], newKeyID: row[3], newKeyName: row[4],
                    state: try RotationState.decode(row[5], table: "rotations", id: id),
                    startedAt: Timestamp.date(row[6]), updatedAt: Timestamp.date(row[7]),
                    finishedAt: (row[8] as Int64?).map(Timestamp.date))
            }
    }

    /// The id of an unfinished rotation in which key `keyID` is the old key or the successor.
    func openRotation(involving keyID: Int64) throws(StoreError) -> Int64? {
        try storeErrors {
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT id FROM rotations WHERE (old_key_id = ? OR new_key_id = ?)
                    AND state NOT IN ('completed', 'rolled-back') ORDER BY id LIMIT 1
                    """, arguments: [keyID, keyID])
        }
    }

    /// The journal entry `id`.
    ///
    /// - Throws: `.unknownRotation`.
    public func rotation(id: Int64) throws(StoreError) -> RotationRecord {
        guard let record = try storeErrors({ try fetchRotations(where: "r.id = ?", arguments: [id]).first }) else {
            throw .unknownRotation(id)
        }
        return record
    }

    /// Unfinished rotations, oldest first: what a console start should resume or roll back.
    public func pendingRotations() throws(StoreError) -> [RotationRecord] {
        try storeErrors { try fetchRotations(where: "r.state NOT IN ('completed', 'rolled-back')") }
    }

    /// Every rotation in which the key called `name` was the old key or the successor, oldest first.
    public func rotations(ofKeyNamed name: String) throws(StoreError) -> [RotationRecord] {
        let key = try key(named: name)
        return try storeErrors {
            try fetchRotations(where: "r.old_key_id = ? OR r.new_key_id = ?", arguments: [key.id, key.id])
        }
    }

    /// Begins rotating the key called `name` (state `started`).
    ///
    /// - Throws: `.unknownKey`, `.keyRetired`, `.notRotatable` (only ECDSA and HD-MASTER keys
    ///   whose secret is in the store can be rotated here), `.rotationInProgress`.
    @discardableResult
    public func beginRotation(ofKeyNamed name: String) throws(StoreError) -> RotationRecord {
        let key = try key(named: name)
        guard !key.retired else { throw .keyRetired(name: key.name) }
        guard key.kind == .ecdsa || key.kind == .hdMaster else {
            throw .notRotatable(
                name: key.name,
                reason: key.kind == .hdChild
                    ? "it derives from its HD-MASTER; rotate the master instead"
                    : "\(key.kind.withArticle) key has no secret in the store")
        }
        if case .twoParty = key.storage { throw .twoPartyNotRotatable(key.name) }
        guard key.hasSecret else { throw .notRotatable(name: key.name, reason: "its secret is not in the store") }
        if let open = try openRotation(involving: key.id) {
            throw .rotationInProgress(name: key.name, rotationID: open)
        }
        let id: Int64 = try storeErrors {
            try db.execute(
                sql: """
                    INSERT INTO rotations (old_key_id, new_key_id, state, started_at, updated_at) VALUES (?, NULL, 'started', ?, ?)
                    """, arguments: [key.id, nowMS, nowMS])
            return db.lastInsertedRowID
        }
        return try rotation(id: id)
    }

    /// Adds the successor key (same kind as the old key; the old key's preset when `key`
    /// has none) with its sealed secret, placed right below the old key, and moves the
    /// rotation to `successor-created`. HD-CHILD keys of the successor can be added with
    /// `addKey` in the same transaction.
    ///
    /// - Throws: `.rotationState` unless `started`; `.invalidKey` for another kind; anything `addKey` throws.
    @discardableResult
    public func createSuccessor(rotationID: Int64, key new: NewKey, secret: KeySecret) throws(StoreError) -> KeyRecord {
        let rotation = try rotation(id: rotationID)
        try expect(rotation, in: [.started], step: "create a successor")
        let old = try key(id: rotation.oldKeyID)
        guard new.kind == old.kind else {
            throw .invalidKey(
                field: "kind", reason: "of a successor must be \(old.kind) like \(old.name), got \(new.kind)")
        }
        var successorKey = new
        if successorKey.preset == nil { successorKey.preset = old.preset }
        let added = try addKey(successorKey, secret: secret)
        let placed = try moveKey(named: added.name, to: old.position + 1)
        try storeErrors {
            try store.faultPoint("rotation.successorCreated")
            try db.execute(
                sql: "UPDATE rotations SET new_key_id = ?, state = 'successor-created', updated_at = ? WHERE id = ?",
                arguments: [added.id, nowMS, rotationID])
        }
        return placed
    }

    /// Records that the user confirmed the successor is backed up (state `backed-up`).
    ///
    /// - Throws: `.rotationState` unless `successor-created`.
    @discardableResult
    public func confirmSuccessorBackedUp(rotationID: Int64) throws(StoreError) -> RotationRecord {
        let rotation = try rotation(id: rotationID)
        try expect(rotation, in: [.successorCreated], step: "confirm the backup")
        try storeErrors {
            try db.execute(
                sql: "UPDATE rotations SET state = 'backed-up', updated_at = ? WHERE id = ?",
                arguments: [nowMS, rotationID])
        }
        return try self.rotation(id: rotationID)
    }

    /// Completes a rotation: wipes the old key's secret (and its children's), retires it as
    /// watch-only, links it to the successor, and marks the rotation `completed`.
    ///
    /// - Throws: `.rotationState` unless `backed-up`.
    @discardableResult
    public func completeRotation(rotationID: Int64) throws(StoreError) -> RotationRecord {
        let rotation = try rotation(id: rotationID)
        try expect(rotation, in: [.backedUp], step: "complete")
        guard let successor = rotation.newKeyID else {
            throw .corruptRow(table: "rotations", id: String(rotationID), reason: "backed up without a successor")
        }
        try storeErrors {
            try retire(id: rotation.oldKeyID)
            try store.faultPoint("rotation.afterWipe")
            try db.execute(
                sql: "UPDATE keys SET successor_id = ? WHERE id = ?", arguments: [successor, rotation.oldKeyID])
            try db.execute(
                sql: """
                    UPDATE rotations SET state = 'completed', updated_at = ?, finished_at = ? WHERE id = ?
                    """, arguments: [nowMS, nowMS, rotationID])
        }
        return try self.rotation(id: rotationID)
    }

    /// Rolls back an unfinished rotation: deletes the successor (with its children and
    /// secrets) if one was created, and marks the rotation `rolled-back`. The old key is
    /// not touched.
    ///
    /// - Throws: `.rotationState` when already completed or rolled back.
    @discardableResult
    public func rollBackRotation(rotationID: Int64) throws(StoreError) -> RotationRecord {
        let rotation = try rotation(id: rotationID)
        try expect(rotation, in: [.started, .successorCreated, .backedUp], step: "roll back")
        try storeErrors {
            // Finish the journal entry first so deleting the successor is not refused as in rotation.
            try db.execute(
                sql: """
                    UPDATE rotations SET state = 'rolled-back', updated_at = ?, finished_at = ? WHERE id = ?
                    """, arguments: [nowMS, nowMS, rotationID])
        }
        if let successorID = rotation.newKeyID {
            let successor = try key(id: successorID)
            try deleteKey(named: successor.name, includingChildren: true)
        }
        return try self.rotation(id: rotationID)
    }

    private func expect(_ rotation: RotationRecord, in states: [RotationState], step: String) throws(StoreError) {
        guard states.contains(rotation.state) else {
            throw .rotationState(id: rotation.id, step: step, expected: states, actual: rotation.state)
        }
    }
}

extension StoreError {
    /// A two-party key has no secret here to replace: a new one is made with the co-signer.
    public static func twoPartyNotRotatable(_ name: String) -> StoreError {
        .notRotatable(
            name: name,
            reason: "a two-party key is replaced by a new one made with the co-signer (key.generate --two-party)")
    }
}
