// The key operations (docs/store.md): add with an optional sealed secret, list, look up,
// rename, reorder, delete, reveal, flag, retire, and the rotation policy.
import Foundation
import GRDB
import WalletCore
import WalletCrypto

extension StoreTransaction {
    /// Columns of a `KeyRecord`, in the order `decodeKey` reads them.
    static let keyColumns = """
        k.id, k.name, k.kind, k.position, k.created_at, k.public_key, k.address, k.path, k.parent_id, k.storage,
        k.preset, k.source, k.xpub, k.revealed_at, k.rotation_flag, k.retired, k.successor_id,
        EXISTS (SELECT 1 FROM secrets s WHERE s.key_id = k.id) AS has_secret
        """

    func decodeKey(_ row: Row) throws -> KeyRecord {
        let id: Int64 = row[0]
        let pathText: String? = row[7]
        var path: DerivationPath?
        if let pathText {
            do { path = try DerivationPath(pathText) } catch {
                throw StoreError.corruptRow(table: "keys", id: String(id), reason: "path: \(error)")
            }
        }
        let storageText: String = row[9]
        guard let storage = KeyStorage(rawValue: storageText) else {
            throw StoreError.corruptRow(
                table: "keys", id: String(id), reason: "storage \(StoreError.quote(storageText))")
        }
        return KeyRecord(
            id: id, name: row[1], kind: try KeyKind.decode(row[2], table: "keys", id: id), position: row[3],
            createdAt: Timestamp.date(row[4]), publicKey: row.bytes(5), address: row[6], path: path,
            parentID: row[8], storage: storage, preset: row[10],
            source: try KeySource.decode(row[11], table: "keys", id: id), extendedPublicKey: row[12],
            revealedAt: (row[13] as Int64?).map(Timestamp.date),
            rotationFlag: try (row[14] as String?).map { try RotationFlag.decode($0, table: "keys", id: id) },
            retired: row[15], successorID: row[16], hasSecret: row[17])
    }

    func fetchKeys(
        where condition: String = "", arguments: StatementArguments = [],
        order: String = "k.position"
    ) throws -> [KeyRecord] {
        let sql =
            "SELECT \(Self.keyColumns) FROM keys k \(condition.isEmpty ? "" : "WHERE " + condition) ORDER BY \(order)"
        var out: [KeyRecord] = []
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() { out.append(try decodeKey(row)) }
        return out
    }

    // MARK: - Reading

    /// Every key, ordered by position (one query, walking the `keys_by_position` index).
    public func keys(includeRetired: Bool = true) throws(StoreError) -> [KeyRecord] {
        try storeErrors { try fetchKeys(where: includeRetired ? "" : "k.retired = 0") }
    }

    /// The number of keys.
    public func keyCount() throws(StoreError) -> Int {
        try storeErrors { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM keys") ?? 0 }
    }

    /// The key called `name` (ignoring ASCII case), or nil.
    public func findKey(named name: String) throws(StoreError) -> KeyRecord? {
        try storeErrors { try fetchKeys(where: "k.name = ?", arguments: [name]).first }
    }

    /// The key called `name`.
    ///
    /// - Throws: `.unknownKey`, with the closest existing name as a suggestion when one is close.
    public func key(named name: String) throws(StoreError) -> KeyRecord {
        if let key = try findKey(named: name) { return key }
        let names: [String] = try storeErrors {
            try String.fetchAll(db, sql: "SELECT name FROM keys ORDER BY position")
        }
        throw .unknownKey(name, suggestion: KeyNaming.suggestion(for: name, among: names))
    }

    /// The key with row id `id`.
    ///
    /// - Throws: `.unknownKeyID`.
    public func key(id: Int64) throws(StoreError) -> KeyRecord {
        guard let key = try storeErrors({ try fetchKeys(where: "k.id = ?", arguments: [id]).first }) else {
            throw .unknownKeyID(id)
        }
        return key
    }

    /// The key at `position` (1-based).
    ///
    /// - Throws: `.invalidPosition`.
    public func key(at position: Int) throws(StoreError) -> KeyRecord {
        if let key = try storeErrors({ try fetchKeys(where: "k.position = ?", arguments: [position]).first }) {
            return key
        }
        throw .invalidPosition(given: position, count: try keyCount())
    }

    /// The HD-CHILD keys derived from the key called `name`, by position.
    public func children(ofKeyNamed name: String) throws(StoreError) -> [KeyRecord] {
        let parent = try key(named: name)
        return try storeErrors { try fetchKeys(where: "k.parent_id = ?", arguments: [parent.id]) }
    }

    /// The rotation chain through the key called `name`, oldest first: its predecessors
    /// (keys whose `successorID` leads to it) and its successors.
    public func lineage(ofKeyNamed name: String) throws(StoreError) -> [KeyRecord] {
        let start = try key(named: name)
        return try storeErrors {
            var chain = [start]
            var seen: Set<Int64> = [start.id]
            var current = start
            while let previous = try fetchKeys(where: "k.successor_id = ?", arguments: [current.id]).first,
                seen.insert(previous.id).inserted
            {
                chain.insert(previous, at: 0)
                current = previous
            }
            current = start
            while let next = current.successorID, seen.insert(next).inserted,
                let successor = try fetchKeys(where: "k.id = ?", arguments: [next]).first
            {
                chain.append(successor)
                current = successor
            }
            return chain
        }
    }

    // MARK: - Adding

    /// Adds a key and, for ECDSA and HD-MASTER keys, its secret sealed under the vault key.
    ///
    /// The key goes to the end of the list. A nil name gets the default name (see
    /// `KeyNaming`). The row and the sealed secret are written in this transaction; the
    /// secret's associated data is the new row's id, so the ciphertext cannot be moved.
    ///
    /// - Throws: `.invalidName`, `.duplicateName`, `.invalidKey` (a field that does not fit
    ///   the kind), `.secretNotAllowed`, `.vaultMissing`/`.vaultLocked` (a secret needs the
    ///   unlocked vault), `.unknownKeyID` (parent).
    @discardableResult
    public func addKey(_ new: NewKey, secret: KeySecret? = nil) throws(StoreError) -> KeyRecord {
        let storage = try validate(new, secret: secret)
        let name: String
        if let given = new.name {
            if let problem = KeyNaming.problem(with: given) { throw .invalidName(given: given, reason: problem) }
            if try nameTaken(given) { throw .duplicateName(given) }
            name = given
        } else {
            name = try freeDefaultName(kind: new.kind, address: new.address, publicKey: new.publicKey?.compressed)
        }
        if let parentID = new.parentID {
            let parent = try key(id: parentID)
            guard parent.kind == .hdMaster else {
                throw .invalidKey(
                    field: "parent", reason: "must be an HD-MASTER key, got \(parent.name) (\(parent.kind))")
            }
            guard !parent.retired else { throw .keyRetired(name: parent.name) }
        }
        let createdAt = Timestamp.milliseconds(new.createdAt ?? now)
        let (id, position): (Int64, Int) = try storeErrors {
            let kek = try secret.map { _ in try store.requireKEK(db) }
            let position = (try Int.fetchOne(db, sql: "SELECT MAX(position) FROM keys") ?? 0) + 1
            try db.execute(
                sql: """
                    INSERT INTO keys (name, kind, position, created_at, public_key, address, path, parent_id, storage,
                                      preset, source, xpub)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    name, new.kind.rawValue, position, createdAt,
                    new.publicKey.map { Data($0.compressed) }, new.address, new.path?.description,
                    new.parentID, storage.rawValue, new.preset, new.source.rawValue, new.extendedPublicKey,
                ])
            let id = db.lastInsertedRowID
            if let secret, let kek {
                try store.faultPoint("addKey.beforeSecret")
                try writeSecret(secret, keyID: id, kek: kek)
            }
            return (id, position)
        }
        // Built from what was written rather than read back: importing many keys stays one
        // INSERT (two with a secret) per key.
        return KeyRecord(
            id: id, name: name, kind: new.kind, position: position, createdAt: Timestamp.date(createdAt),
            publicKey: new.publicKey?.compressed, address: new.address, path: new.path,
            parentID: new.parentID, storage: storage, preset: new.preset, source: new.source,
            extendedPublicKey: new.extendedPublicKey, revealedAt: nil, rotationFlag: nil, retired: false,
            successorID: nil, hasSecret: secret != nil)
    }

    /// Whether a key already has this name (ignoring ASCII case).
    func nameTaken(_ name: String) throws(StoreError) -> Bool {
        try storeErrors {
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM keys WHERE name = ?)", arguments: [name]) ?? false
        }
    }

    /// Seals and writes (or replaces) the secret row of key `keyID`.
    func writeSecret(_ secret: KeySecret, keyID: Int64, kek: Secret) throws {
        let payload = try store.seal(
            secret.payload, with: kek,
            aad: SealingContext.secret(keyID: keyID, kind: secret.kind, part: .payload))
        let passphrase = try secret.passphrase.map { (p: Secret) throws(StoreError) -> Sealed in
            try store.seal(p, with: kek, aad: SealingContext.secret(keyID: keyID, kind: secret.kind, part: .passphrase))
        }
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO secrets (key_id, kind, nonce, ciphertext, passphrase_nonce, passphrase_ciphertext, sealed_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                keyID, secret.kind.rawValue, Data(payload.nonce), Data(payload.ciphertext),
                passphrase.map { Data($0.nonce) }, passphrase.map { Data($0.ciphertext) }, nowMS,
            ])
    }

    /// Checks the fields of `new` against its kind; returns the storage to write.
    private func validate(_ new: NewKey, secret: KeySecret?) throws(StoreError) -> KeyStorage {
        let storage: KeyStorage
        switch new.kind {
        case .ecdsa, .hdMaster, .hdChild:
            storage = new.storage ?? .software
            switch storage {
            case .software: break
            case .twoParty(let peer):
                guard KeyNaming.problem(with: peer) == nil else {
                    throw .invalidKey(field: "storage", reason: "must name the co-signer as 2p:<name>, got \(storage)")
                }
            default:
                throw .invalidKey(
                    field: "storage",
                    reason: "must be software or 2p:<co-signer> for \(new.kind.withArticle) key, got \(storage)")
            }
        case .watch:
            storage = new.storage ?? .watch
            guard storage == .watch else {
                throw .invalidKey(field: "storage", reason: "must be watch for a WATCH key, got \(storage)")
            }
        case .card:
            guard let given = new.storage, case .card = given else {
                throw .invalidKey(
                    field: "storage",
                    reason: "must name the card (card:<instance UID>) for a CARD key, got "
                        + (new.storage?.rawValue ?? "none"))
            }
            guard KeyStorage(rawValue: given.rawValue) == given else {
                throw .invalidKey(field: "storage", reason: "must be card: followed by lower-case hex, got \(given)")
            }
            storage = given
        }
        if new.kind == .hdChild {
            guard new.parentID != nil else {
                throw .invalidKey(field: "parent", reason: "is required for an HD-CHILD key")
            }
            guard new.path != nil else { throw .invalidKey(field: "path", reason: "is required for an HD-CHILD key") }
        } else if new.parentID != nil {
            throw .invalidKey(
                field: "parent", reason: "is only for HD-CHILD keys, got one for \(new.kind.withArticle) key")
        }
        if let address = new.address, address.isEmpty || address.count > 128 {
            throw .invalidKey(field: "address", reason: "must be 1 to 128 characters, got \(address.count)")
        }
        if let preset = new.preset, preset.isEmpty || preset.count > 64 {
            throw .invalidKey(field: "preset", reason: "must be 1 to 64 characters, got \(preset.count)")
        }
        if let xpub = new.extendedPublicKey, xpub.isEmpty || xpub.count > 200 {
            throw .invalidKey(field: "extendedPublicKey", reason: "must be 1 to 200 characters, got \(xpub.count)")
        }
        let twoParty: Bool
        if case .twoParty = storage { twoParty = true } else { twoParty = false }
        switch (new.kind, secret?.kind) {
        case (.ecdsa, .mpcShare?) where twoParty, (.hdMaster, .mpcShare?) where twoParty:
            break
        case (.ecdsa, _) where twoParty, (.hdMaster, _) where twoParty:
            throw .invalidKey(field: "secret", reason: "must be this home's share (mpc-share) for a two-party key")
        case (.ecdsa, .privkey?), (.hdMaster, .mnemonic?), (.hdMaster, .seed?), (.hdChild, nil), (.card, nil),
            (.watch, nil):
            break
        case (.ecdsa, nil), (.hdMaster, nil):
            throw .invalidKey(field: "secret", reason: "is required for \(new.kind.withArticle) key kept in software")
        case (let kind, let secretKind?):
            throw .secretNotAllowed(kind: kind, secret: secretKind)
        }
        if let secret {
            switch secret.kind {
            case .privkey:
                guard secret.payload.count == 32 else {
                    throw .invalidKey(
                        field: "secret",
                        reason:
                            "must be a 32-byte private key, got \(secret.payload.count) byte\(secret.payload.count == 1 ? "" : "s")"
                    )
                }
            case .seed:
                guard (16...64).contains(secret.payload.count) else {
                    throw .invalidKey(
                        field: "secret",
                        reason:
                            "must be a 16 to 64-byte seed, got \(secret.payload.count) byte\(secret.payload.count == 1 ? "" : "s")"
                    )
                }
            case .mnemonic:
                guard secret.payload.count > 0 else {
                    throw .invalidKey(field: "secret", reason: "must be a non-empty mnemonic")
                }
            case .mpcShare:
                guard secret.payload.count > 32 else {
                    throw .invalidKey(field: "secret", reason: "must be a two-party share")
                }
            }
            if secret.passphrase != nil, secret.kind != .mnemonic {
                throw .invalidKey(
                    field: "secret passphrase", reason: "is only for a mnemonic, got one for a \(secret.kind)")
            }
        }
        return storage
    }

    /// The default name for a new key, with `-2`, `-3`, … appended while taken.
    func freeDefaultName(kind: KeyKind, address: String?, publicKey: [UInt8]?) throws(StoreError) -> String {
        let base = KeyNaming.defaultBase(kind: kind, address: address, publicKey: publicKey)
        var candidate = base
        var n = 1
        while try nameTaken(candidate) {
            n += 1
            candidate = "\(base)-\(n)"
        }
        return candidate
    }

    // MARK: - Renaming and ordering

    /// Renames a key; its signing history follows the new name.
    ///
    /// - Throws: `.unknownKey`, `.invalidName`, `.duplicateName` (another key has `newName`;
    ///   changing only the case of the key's own name is allowed).
    @discardableResult
    public func renameKey(named name: String, to newName: String) throws(StoreError) -> KeyRecord {
        let key = try key(named: name)
        if let problem = KeyNaming.problem(with: newName) { throw .invalidName(given: newName, reason: problem) }
        if let other = try findKey(named: newName), other.id != key.id { throw .duplicateName(newName) }
        try storeErrors {
            try db.execute(sql: "UPDATE keys SET name = ? WHERE id = ?", arguments: [newName, key.id])
            try db.execute(sql: "UPDATE history SET key_name = ? WHERE key_id = ?", arguments: [newName, key.id])
        }
        return try self.key(id: key.id)
    }

    /// Moves a key to `position`, shifting the keys in between by one; positions stay 1…n.
    ///
    /// - Throws: `.unknownKey`, `.invalidPosition` (outside 1…count).
    @discardableResult
    public func moveKey(named name: String, to position: Int) throws(StoreError) -> KeyRecord {
        let key = try key(named: name)
        let count = try keyCount()
        guard (1...max(count, 1)).contains(position) else { throw .invalidPosition(given: position, count: count) }
        try storeErrors { try move(id: key.id, from: key.position, to: position) }
        return try self.key(id: key.id)
    }

    /// Moves a key one place up (towards position 1); a key already first stays.
    @discardableResult
    public func moveKeyUp(named name: String) throws(StoreError) -> KeyRecord {
        let key = try key(named: name)
        return key.position == 1 ? key : try moveKey(named: name, to: key.position - 1)
    }

    /// Moves a key one place down; a key already last stays.
    @discardableResult
    public func moveKeyDown(named name: String) throws(StoreError) -> KeyRecord {
        let key = try key(named: name)
        return key.position == (try keyCount()) ? key : try moveKey(named: name, to: key.position + 1)
    }

    /// Renumbers so that key `id` sits at `to`. Positions are UNIQUE and SQLite checks that
    /// row by row, so the shifted range goes through negative values first.
    private func move(id: Int64, from: Int, to: Int) throws {
        guard from != to else { return }
        try db.execute(sql: "UPDATE keys SET position = 0 WHERE id = ?", arguments: [id])
        if to < from {
            try db.execute(
                sql: "UPDATE keys SET position = -(position + 1) WHERE position BETWEEN ? AND ?",
                arguments: [to, from - 1])
        } else {
            try db.execute(
                sql: "UPDATE keys SET position = -(position - 1) WHERE position BETWEEN ? AND ?",
                arguments: [from + 1, to])
        }
        try db.execute(sql: "UPDATE keys SET position = -position WHERE position < 0")
        try db.execute(sql: "UPDATE keys SET position = ? WHERE id = ?", arguments: [to, id])
    }

    /// Closes the gap a deleted key left at `position`.
    private func closeGap(at position: Int) throws {
        try db.execute(sql: "UPDATE keys SET position = -(position - 1) WHERE position > ?", arguments: [position])
        try db.execute(sql: "UPDATE keys SET position = -position WHERE position < 0")
    }

    // MARK: - Deleting

    /// Deletes a key and its sealed secret; the signing history keeps the key's name
    /// (its `key_id` becomes NULL). An HD-MASTER with derived keys is deleted only with
    /// `includingChildren`, which deletes them too. Positions close up.
    ///
    /// - Returns: the deleted keys (children first).
    /// - Throws: `.unknownKey`, `.keyHasChildren`, `.rotationInProgress`.
    @discardableResult
    public func deleteKey(named name: String, includingChildren: Bool = false) throws(StoreError) -> [KeyRecord] {
        let key = try key(named: name)
        let children = try storeErrors { try fetchKeys(where: "k.parent_id = ?", arguments: [key.id]) }
        if !children.isEmpty, !includingChildren { throw .keyHasChildren(name: key.name, count: children.count) }
        let doomed = children + [key]
        for k in doomed {
            if let rotation = try openRotation(involving: k.id) {
                throw .rotationInProgress(name: k.name, rotationID: rotation)
            }
        }
        try storeErrors {
            for k in doomed {
                // Read the position again: earlier deletions in this loop moved it.
                guard
                    let position = try Int.fetchOne(
                        db, sql: "SELECT position FROM keys WHERE id = ?", arguments: [k.id])
                else { continue }
                try db.execute(sql: "DELETE FROM keys WHERE id = ?", arguments: [k.id])
                try store.faultPoint("deleteKey.afterDelete")
                try closeGap(at: position)
            }
        }
        return doomed
    }

    // MARK: - Flags

    /// Records that the key's secret was shown to the user now (a rotation policy reason).
    @discardableResult
    public func markRevealed(named name: String) throws(StoreError) -> KeyRecord {
        let key = try key(named: name)
        try storeErrors {
            try db.execute(sql: "UPDATE keys SET revealed_at = ? WHERE id = ?", arguments: [nowMS, key.id])
        }
        return try self.key(id: key.id)
    }

    /// Flags a key for rotation.
    @discardableResult
    public func flagForRotation(named name: String, reason: RotationFlag = .user) throws(StoreError) -> KeyRecord {
        let key = try key(named: name)
        try storeErrors {
            try db.execute(sql: "UPDATE keys SET rotation_flag = ? WHERE id = ?", arguments: [reason.rawValue, key.id])
        }
        return try self.key(id: key.id)
    }

    /// Removes a rotation flag.
    @discardableResult
    public func clearRotationFlag(named name: String) throws(StoreError) -> KeyRecord {
        let key = try key(named: name)
        try storeErrors {
            try db.execute(sql: "UPDATE keys SET rotation_flag = NULL WHERE id = ?", arguments: [key.id])
        }
        return try self.key(id: key.id)
    }

    /// Retires a key: wipes its sealed secret (the row is deleted; `secure_delete` zeroes
    /// the page) and keeps it as a watch-only entry. The HD-CHILD keys of an HD-MASTER are
    /// retired with it, since their secrets derive from it.
    ///
    /// - Throws: `.unknownKey`, `.keyRetired`.
    @discardableResult
    public func retireKey(named name: String) throws(StoreError) -> KeyRecord {
        let key = try key(named: name)
        guard !key.retired else { throw .keyRetired(name: key.name) }
        try storeErrors { try retire(id: key.id) }
        return try self.key(id: key.id)
    }

    /// Wipes the secret of key `id` and of its children, and marks them all retired and watch-only.
    func retire(id: Int64) throws {
        try db.execute(
            sql: "DELETE FROM secrets WHERE key_id = ? OR key_id IN (SELECT id FROM keys WHERE parent_id = ?)",
            arguments: [id, id])
        try store.faultPoint("retire.afterWipe")
        try db.execute(
            sql: "UPDATE keys SET retired = 1, storage = 'watch' WHERE id = ? OR parent_id = ?",
            arguments: [id, id])
    }

    // MARK: - Secrets

    /// Unseals the secret of the key called `name`. Does not mark it revealed: call
    /// `markRevealed` when it is shown to the user (signing does not reveal it).
    ///
    /// - Throws: `.unknownKey`, `.secretMissing`, `.vaultLocked`, `.secretTampered` (AES-GCM
    ///   refused this key's ciphertext; other keys still open).
    public func openSecret(named name: String) throws(StoreError) -> KeySecret {
        try openSecret(of: key(named: name))
    }

    /// Unseals the secret of `key`, a record read in this transaction (no second lookup by name).
    ///
    /// - Throws: `.secretMissing`, `.vaultLocked`, `.secretTampered`.
    public func openSecret(of key: KeyRecord) throws(StoreError) -> KeySecret {
        try storeErrors {
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT kind, nonce, ciphertext, passphrase_nonce, passphrase_ciphertext FROM secrets WHERE key_id = ?
                        """, arguments: [key.id])
            else { throw StoreError.secretMissing(name: key.name) }
            return try openSecretRow(row, keyID: key.id, name: key.name, kek: store.requireKEK(db))
        }
    }

    // MARK: - Rotation policy

    /// The keys that need rotation, by position, each with every reason that applies:
    ///
    /// - flagged by the user (any key that is not retired);
    /// - secret revealed at some point (software keys);
    /// - older than `maxAgeDays` days at `now` (ECDSA and HD-MASTER in software; nil turns the
    ///   age rule off);
    /// - imported from a raw private key or a keystore file (ECDSA in software).
    ///
    /// HD-CHILD keys follow their master for age and source: rotating means rotating the master.
    public func keysNeedingRotation(now: Date? = nil, maxAgeDays: Int? = nil) throws(StoreError) -> [RotationCandidate]
    {
        let at = now ?? self.now
        var out: [RotationCandidate] = []
        for key in try keys(includeRetired: false) {
            var reasons: [RotationReason] = []
            if let flag = key.rotationFlag { reasons.append(.flagged(flag)) }
            let software = key.storage == .software
            let root = key.kind == .ecdsa || key.kind == .hdMaster
            if software, root, let days = maxAgeDays, at.timeIntervalSince(key.createdAt) > Double(days) * 86_400 {
                reasons.append(.olderThan(days: days))
            }
            if software, root, key.source.isRawImport { reasons.append(.importedFrom(key.source)) }
            if software, let revealed = key.revealedAt { reasons.append(.revealed(at: revealed)) }
            if !reasons.isEmpty { out.append(RotationCandidate(key: key, reasons: reasons)) }
        }
        return out
    }
}
