// One-call forms of the `StoreTransaction` methods: each mutating call below is exactly
// one write transaction, each read one consistent snapshot. Documentation of the
// behaviour and the errors is on the `StoreTransaction` method of the same name.
import CardProtocol
import Foundation

extension WalletStore {
    // MARK: - Keys

    /// Adds a key and its optional secret in one transaction. See `StoreTransaction.addKey`.
    @discardableResult
    public func addKey(_ key: NewKey, secret: KeySecret? = nil) throws(StoreError) -> KeyRecord {
        try perform { try $0.addKey(key, secret: secret) }
    }

    /// Every key by position. See `StoreTransaction.keys`.
    public func keys(includeRetired: Bool = true) throws(StoreError) -> [KeyRecord] {
        try fetch { try $0.keys(includeRetired: includeRetired) }
    }

    /// The number of keys.
    public func keyCount() throws(StoreError) -> Int {
        try fetch { try $0.keyCount() }
    }

    /// The key called `name`. See `StoreTransaction.key(named:)`.
    public func key(named name: String) throws(StoreError) -> KeyRecord {
        try fetch { try $0.key(named: name) }
    }

    /// The key called `name`, or nil.
    public func findKey(named name: String) throws(StoreError) -> KeyRecord? {
        try fetch { try $0.findKey(named: name) }
    }

    /// The key with row id `id`.
    public func key(id: Int64) throws(StoreError) -> KeyRecord {
        try fetch { try $0.key(id: id) }
    }

    /// The key at `position`.
    public func key(at position: Int) throws(StoreError) -> KeyRecord {
        try fetch { try $0.key(at: position) }
    }

    /// The HD-CHILD keys of the key called `name`.
    public func children(ofKeyNamed name: String) throws(StoreError) -> [KeyRecord] {
        try fetch { try $0.children(ofKeyNamed: name) }
    }

    /// The rotation chain through the key called `name`, oldest first.
    public func lineage(ofKeyNamed name: String) throws(StoreError) -> [KeyRecord] {
        try fetch { try $0.lineage(ofKeyNamed: name) }
    }

    /// Renames a key (and its history rows).
    @discardableResult
    public func renameKey(named name: String, to newName: String) throws(StoreError) -> KeyRecord {
        try perform { try $0.renameKey(named: name, to: newName) }
    }

    /// Moves a key to `position`.
    @discardableResult
    public func moveKey(named name: String, to position: Int) throws(StoreError) -> KeyRecord {
        try perform { try $0.moveKey(named: name, to: position) }
    }

    /// Moves a key one place up.
    @discardableResult
    public func moveKeyUp(named name: String) throws(StoreError) -> KeyRecord {
        try perform { try $0.moveKeyUp(named: name) }
    }

    /// Moves a key one place down.
    @discardableResult
    public func moveKeyDown(named name: String) throws(StoreError) -> KeyRecord {
        try perform { try $0.moveKeyDown(named: name) }
    }

    /// Deletes a key (and, if asked, its children), then checkpoints the WAL so the
    /// wiped ciphertext leaves it too (best effort).
    @discardableResult
    public func deleteKey(named name: String, includingChildren: Bool = false) throws(StoreError) -> [KeyRecord] {
        let deleted = try perform { try $0.deleteKey(named: name, includingChildren: includingChildren) }
        try? checkpointWAL()
        return deleted
    }

    /// Records that the key's secret was shown.
    @discardableResult
    public func markRevealed(named name: String) throws(StoreError) -> KeyRecord {
        try perform { try $0.markRevealed(named: name) }
    }

    /// Flags a key for rotation.
    @discardableResult
    public func flagForRotation(named name: String, reason: RotationFlag = .user) throws(StoreError) -> KeyRecord {
        try perform { try $0.flagForRotation(named: name, reason: reason) }
    }

    /// Removes a rotation flag.
    @discardableResult
    public func clearRotationFlag(named name: String) throws(StoreError) -> KeyRecord {
        try perform { try $0.clearRotationFlag(named: name) }
    }

    /// Retires a key (wipes its secret, keeps it watch-only), then checkpoints the WAL (best effort).
    @discardableResult
    public func retireKey(named name: String) throws(StoreError) -> KeyRecord {
        let key = try perform { try $0.retireKey(named: name) }
        try? checkpointWAL()
        return key
    }

    /// Unseals a key's secret. See `StoreTransaction.openSecret(named:)`.
    public func openSecret(named name: String) throws(StoreError) -> KeySecret {
        try fetch { try $0.openSecret(named: name) }
    }

    /// Keys needing rotation. See `StoreTransaction.keysNeedingRotation`.
    public func keysNeedingRotation(now: Date? = nil, maxAgeDays: Int? = nil) throws(StoreError) -> [RotationCandidate]
    {
        try fetch { try $0.keysNeedingRotation(now: now, maxAgeDays: maxAgeDays) }
    }

    // MARK: - History

    /// Appends a signing record.
    @discardableResult
    public func recordSignature(_ entry: NewHistoryEntry) throws(StoreError) -> HistoryRecord {
        try perform { try $0.recordSignature(entry) }
    }

    /// Signing records matching `query`, newest first.
    public func history(_ query: HistoryQuery = HistoryQuery()) throws(StoreError) -> [HistoryRecord] {
        try fetch { try $0.history(query) }
    }

    /// The number of records matching `query`.
    public func historyCount(_ query: HistoryQuery = HistoryQuery()) throws(StoreError) -> Int {
        try fetch { try $0.historyCount(query) }
    }

    // MARK: - Pairings

    /// Stores (or replaces) the pairing of a card.
    @discardableResult
    public func savePairing(_ pairing: Pairing, instanceUID: [UInt8]) throws(StoreError) -> PairingSummary {
        try perform { try $0.savePairing(pairing, instanceUID: instanceUID) }
    }

    /// The unsealed pairing of a card, or nil.
    public func pairing(instanceUID: [UInt8]) throws(StoreError) -> PairingRecord? {
        try fetch { try $0.pairing(instanceUID: instanceUID) }
    }

    /// Every stored pairing, without keys.
    public func pairings() throws(StoreError) -> [PairingSummary] {
        try fetch { try $0.pairings() }
    }

    /// Forgets a card's pairing.
    @discardableResult
    public func deletePairing(instanceUID: [UInt8]) throws(StoreError) -> Bool {
        try perform { try $0.deletePairing(instanceUID: instanceUID) }
    }

    // MARK: - Account discovery

    /// Replaces, in one transaction, every stored row of `owner` for `coinType` with
    /// `addresses`. See `StoreTransaction.saveDiscovery`.
    @discardableResult
    public func saveDiscovery(
        owner: DiscoveryOwner, ownerName: String, coinType: UInt32,
        addresses: [DiscoveredAddress]
    ) throws(StoreError) -> [DiscoveredAccountRecord] {
        try perform {
            try $0.saveDiscovery(owner: owner, ownerName: ownerName, coinType: coinType, addresses: addresses)
        }
    }

    /// Every discovered address, or those of `owner`. See `StoreTransaction.discoveredAddresses`.
    public func discoveredAddresses(owner: DiscoveryOwner? = nil) throws(StoreError) -> [DiscoveredAccountRecord] {
        try fetch { try $0.discoveredAddresses(owner: owner) }
    }

    /// The discovered rows of `address`, ignoring case. See `StoreTransaction.discovered(address:)`.
    public func discovered(address: String) throws(StoreError) -> [DiscoveredAccountRecord] {
        try fetch { try $0.discovered(address: address) }
    }

    // MARK: - Rotation

    /// Begins a rotation.
    @discardableResult
    public func beginRotation(ofKeyNamed name: String) throws(StoreError) -> RotationRecord {
        try perform { try $0.beginRotation(ofKeyNamed: name) }
    }

    /// Adds the successor and moves the rotation to `successor-created`.
    @discardableResult
    public func createSuccessor(rotationID: Int64, key: NewKey, secret: KeySecret) throws(StoreError) -> KeyRecord {
        try perform { try $0.createSuccessor(rotationID: rotationID, key: key, secret: secret) }
    }

    /// Moves the rotation to `backed-up`.
    @discardableResult
    public func confirmSuccessorBackedUp(rotationID: Int64) throws(StoreError) -> RotationRecord {
        try perform { try $0.confirmSuccessorBackedUp(rotationID: rotationID) }
    }

    /// Completes the rotation, then checkpoints the WAL so the wiped secret leaves it (best effort).
    @discardableResult
    public func completeRotation(rotationID: Int64) throws(StoreError) -> RotationRecord {
        let record = try perform { try $0.completeRotation(rotationID: rotationID) }
        try? checkpointWAL()
        return record
    }

    /// Rolls the rotation back, then checkpoints the WAL so the deleted successor's secret
    /// leaves it (best effort).
    @discardableResult
    public func rollBackRotation(rotationID: Int64) throws(StoreError) -> RotationRecord {
        let record = try perform { try $0.rollBackRotation(rotationID: rotationID) }
        try? checkpointWAL()
        return record
    }

    /// A rotation journal entry.
    public func rotation(id: Int64) throws(StoreError) -> RotationRecord {
        try fetch { try $0.rotation(id: id) }
    }

    /// Unfinished rotations, oldest first.
    public func pendingRotations() throws(StoreError) -> [RotationRecord] {
        try fetch { try $0.pendingRotations() }
    }

    /// Every rotation involving the key called `name`.
    public func rotations(ofKeyNamed name: String) throws(StoreError) -> [RotationRecord] {
        try fetch { try $0.rotations(ofKeyNamed: name) }
    }

    // MARK: - Settings and checks

    /// A setting's value, or nil.
    public func setting(_ key: String) throws(StoreError) -> String? {
        try fetch { try $0.setting(key) }
    }

    /// Sets or (with nil) removes a setting.
    public func setSetting(_ key: String, to value: String?) throws(StoreError) {
        try perform { try $0.setSetting(key, to: value) }
    }

    /// Every setting.
    public func settings() throws(StoreError) -> [String: String] {
        try fetch { try $0.settings() }
    }

    /// Broken invariants, as sentences; empty when the store is sound.
    public func consistencyProblems() throws(StoreError) -> [String] {
        try fetch { try $0.consistencyProblems() }
    }
}
