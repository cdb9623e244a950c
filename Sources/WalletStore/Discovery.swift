// BIP44 account discovery results (docs/eth-node.md, "Discovery"): the used addresses a discovery found, per
// owner (a stored HD key or a card) and coin type, so `accounts` can list them and
// `wallet.select ADDRESS` can make one the active address. Public data only: paths,
// addresses and compressed public keys; nothing here is sealed.
import Foundation
import GRDB
import WalletCore
import WalletCrypto

/// Where discovered addresses came from: a stored software HD key (by its key id) or a card (by instance UID hex).
public enum DiscoveryOwner: Sendable, Hashable {
    /// A key of the store (`keys.id`); its rows are deleted with the key.
    case key(id: Int64)
    /// A Keycard, by its 16-byte instance UID as 32 hex digits (stored lower-case).
    case card(instanceUID: String)
}

/// One used address found by discovery.
public struct DiscoveredAddress: Sendable, Hashable {
    /// SLIP-44 coin type, e.g. 60.
    public var coinType: UInt32
    /// BIP44 account index.
    public var account: UInt32
    /// 0 external (what discovery scans), 1 internal.
    public var change: UInt32
    /// Address index.
    public var index: UInt32
    /// The address, EIP-55 (any case is accepted; it is stored checksummed).
    public var address: String
    /// The 33-byte compressed public key at `path`.
    public var publicKey: [UInt8]

    /// A used address at m/44'/`coinType`'/`account`'/`change`/`index`.
    public init(coinType: UInt32, account: UInt32, change: UInt32, index: UInt32, address: String, publicKey: [UInt8]) {
        self.coinType = coinType
        self.account = account
        self.change = change
        self.index = index
        self.address = address
        self.publicKey = publicKey
    }

    /// The full path m/44'/coin'/account'/change/index.
    public var path: DerivationPath { .bip44(coin: coinType, account: account, change: change, index: index) }
}

/// A stored discovery row, as `accounts` lists it.
public struct DiscoveredAccountRecord: Sendable, Hashable, Identifiable {
    /// Row id.
    public let id: Int64
    /// The key or card the address belongs to.
    public let owner: DiscoveryOwner
    /// For a key owner, the key's current name (it follows renames); for a card, the label
    /// given at save time (e.g. `card-0011`).
    public let ownerName: String
    /// SLIP-44 coin type.
    public let coinType: UInt32
    /// BIP44 account index.
    public let account: UInt32
    /// 0 external, 1 internal.
    public let change: UInt32
    /// Address index.
    public let index: UInt32
    /// The EIP-55 address.
    public let address: String
    /// The 33-byte compressed public key.
    public let publicKey: [UInt8]
    /// When the discovery that found it was saved (the transaction's clock).
    public let discoveredAt: Date

    /// m/44'/coin'/account'/change/index.
    public var path: DerivationPath { .bip44(coin: coinType, account: account, change: change, index: index) }
}

extension StoreTransaction {
    /// Replaces every stored row of `owner` for `coinType` with `addresses` (a fresh
    /// discovery supersedes the last; an empty list forgets them). Rows of other owners,
    /// and of other coin types of this owner, are untouched. Returns the new records in
    /// (account, change, index) order.
    ///
    /// Every address is checked before anything is written: its coin type is `coinType`;
    /// coin type, account, change and index are below 2³¹; its address parses as an Ethereum address
    /// and is the address of its public key, a 33-byte compressed secp256k1 point; no two
    /// share (account, change, index).
    ///
    /// - Throws: `.invalidDiscovery` naming the field (`addresses[2].index`, …),
    ///   `.unknownKeyID` for a key owner that is not in the store.
    @discardableResult
    public func saveDiscovery(
        owner: DiscoveryOwner, ownerName: String, coinType: UInt32,
        addresses: [DiscoveredAddress]
    ) throws(StoreError) -> [DiscoveredAccountRecord] {
        let (keyID, cardUID) = try Self.ownerColumns(owner)
        // Counted as SQLite's length() counts TEXT: in code points.
        guard (1...KeyNaming.maxLength).contains(ownerName.unicodeScalars.count) else {
            throw .invalidDiscovery(
                field: "ownerName",
                reason: "must be 1 to \(KeyNaming.maxLength) characters, "
                    + "got \(ownerName.unicodeScalars.count)")
        }
        guard coinType < ChildIndex.hardenedOffset else {
            throw .invalidDiscovery(field: "coinType", reason: "must be below 2³¹, got \(coinType)")
        }
        let rows = try Self.validated(addresses, coinType: coinType)
        let (ownerTerm, ownerArguments) = Self.ownerCondition(keyID: keyID, cardUID: cardUID)
        if let keyID {
            let exists = try storeErrors {
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM keys WHERE id = ?)",
                    arguments: [keyID]) ?? false
            }
            guard exists else { throw .unknownKeyID(keyID) }
        }
        try storeErrors {
            try db.execute(
                sql: "DELETE FROM discovered_addresses AS d WHERE \(ownerTerm) AND d.coin_type = ?",
                arguments: ownerArguments + [Int64(coinType)])
            try store.faultPoint("saveDiscovery.afterDelete")
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO discovered_addresses (key_id, card_uid, owner_name, coin_type, account, change, address_index,
                                                      address, public_key, discovered_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for row in rows {
                try insert.execute(arguments: [
                    keyID, cardUID, ownerName, Int64(coinType), Int64(row.account),
                    Int64(row.change), Int64(row.index), row.address, Data(row.publicKey), nowMS,
                ])
            }
        }
        return try storeErrors {
            try fetchDiscovered(
                where: ownerTerm + " AND d.coin_type = ?", arguments: ownerArguments + [Int64(coinType)])
        }
    }

    /// Every discovered address, or those of `owner`: key owners first in key-list order
    /// (position), then cards by instance UID; within an owner by coin type, account,
    /// change and index.
    ///
    /// - Throws: `.invalidDiscovery` for a card owner whose instance UID is not 32 hex digits.
    public func discoveredAddresses(owner: DiscoveryOwner? = nil) throws(StoreError) -> [DiscoveredAccountRecord] {
        guard let owner else { return try storeErrors { try fetchDiscovered() } }
        let (keyID, cardUID) = try Self.ownerColumns(owner)
        let (term, arguments) = Self.ownerCondition(keyID: keyID, cardUID: cardUID)
        return try storeErrors { try fetchDiscovered(where: term, arguments: arguments) }
    }

    /// The rows whose address equals `address` ignoring case (one address can be found
    /// under several owners, e.g. a key and the card holding the same seed), in the order of
    /// `discoveredAddresses()`. Empty when none matches, including for text that is not an
    /// address at all.
    public func discovered(address: String) throws(StoreError) -> [DiscoveredAccountRecord] {
        try storeErrors { try fetchDiscovered(where: "d.address = ?", arguments: [address]) }
    }

    // MARK: - Checking and reading

    /// The `key_id` and `card_uid` columns of `owner` (exactly one set); a card's UID
    /// lower-cased once checked to be 32 hex digits.
    static func ownerColumns(_ owner: DiscoveryOwner) throws(StoreError) -> (Int64?, String?) {
        switch owner {
        case .key(let id):
            return (id, nil)
        case .card(let uid):
            guard uid.utf8.count == 32, uid.allSatisfy(\.isHexDigit) else {
                throw .invalidDiscovery(
                    field: "owner",
                    reason: "must be a card instance UID of 32 hex digits, "
                        + "got \(StoreError.quote(uid))")
            }
            return (nil, uid.lowercased())
        }
    }

    /// The WHERE term selecting one owner's rows, written so SQLite can use its partial index.
    static func ownerCondition(keyID: Int64?, cardUID: String?) -> (String, StatementArguments) {
        if let keyID { return ("d.key_id = ?", [keyID]) }
        return ("d.card_uid = ?", [cardUID])
    }

    /// `addresses` checked (see `saveDiscovery`), each address in its EIP-55 form, sorted
    /// by (account, change, index).
    static func validated(_ addresses: [DiscoveredAddress], coinType: UInt32) throws(StoreError) -> [DiscoveredAddress]
    {
        var out: [DiscoveredAddress] = []
        var seen: [[UInt32]: Int] = [:]
        for (n, entry) in addresses.enumerated() {
            func field(_ name: String) -> String { "addresses[\(n)].\(name)" }
            guard entry.coinType == coinType else {
                throw .invalidDiscovery(
                    field: field("coinType"),
                    reason: "must be the discovery's coin type \(coinType), got \(entry.coinType)")
            }
            for (name, value) in [("account", entry.account), ("change", entry.change), ("index", entry.index)]
            where value >= ChildIndex.hardenedOffset {
                throw .invalidDiscovery(field: field(name), reason: "must be below 2³¹, got \(value)")
            }
            let address: EthereumAddress
            do { address = try EthereumAddress(entry.address) } catch {
                throw .invalidDiscovery(
                    field: field("address"), reason: "is not an Ethereum address: \(error.description)")
            }
            guard entry.publicKey.count == 33 else {
                throw .invalidDiscovery(
                    field: field("publicKey"),
                    reason:
                        "must be a 33-byte compressed public key, got \(entry.publicKey.count) byte\(entry.publicKey.count == 1 ? "" : "s")"
                )
            }
            let publicKey: PublicKey
            do { publicKey = try PublicKey(bytes: entry.publicKey) } catch {
                throw .invalidDiscovery(
                    field: field("publicKey"), reason: "is not a secp256k1 public key: \(error.description)")
            }
            let derived = EthereumAddress(publicKey: publicKey)
            guard derived == address else {
                throw .invalidDiscovery(
                    field: field("address"), reason: "is \(address) but its public key's address is \(derived)")
            }
            let position = [entry.account, entry.change, entry.index]
            if let earlier = seen[position] {
                throw .invalidDiscovery(
                    field: "addresses[\(n)]",
                    reason: "repeats account \(entry.account), change "
                        + "\(entry.change), index \(entry.index) of addresses[\(earlier)]")
            }
            seen[position] = n
            var checked = entry
            checked.address = address.checksummed
            out.append(checked)
        }
        return out.sorted { ($0.account, $0.change, $0.index) < ($1.account, $1.change, $1.index) }
    }

    private func fetchDiscovered(
        where condition: String = "", arguments: StatementArguments = []
    ) throws
        -> [DiscoveredAccountRecord]
    {
        var sql = """
            SELECT d.id, d.key_id, d.card_uid, COALESCE(k.name, d.owner_name), d.coin_type, d.account, d.change,
                   d.address_index, d.address, d.public_key, d.discovered_at
            FROM discovered_addresses d LEFT JOIN keys k ON k.id = d.key_id
            """
        if !condition.isEmpty { sql += " WHERE " + condition }
        sql += " ORDER BY d.key_id IS NULL, k.position, d.card_uid, d.coin_type, d.account, d.change, d.address_index"
        var out: [DiscoveredAccountRecord] = []
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
            let id: Int64 = row[0]
            func corrupt(_ reason: String) -> StoreError {
                .corruptRow(table: "discovered_addresses", id: String(id), reason: reason)
            }
            let owner: DiscoveryOwner
            switch (row[1] as Int64?, row[2] as String?) {
            case (let key?, nil): owner = .key(id: key)
            case (nil, let uid?): owner = .card(instanceUID: uid)
            default: throw corrupt("it must have exactly one of key_id and card_uid")
            }
            func level(_ column: Int, _ name: String) throws -> UInt32 {
                let value: Int64 = row[column]
                guard let level = UInt32(exactly: value), level < ChildIndex.hardenedOffset else {
                    throw corrupt("\(name) \(value) is not a BIP-32 index")
                }
                return level
            }
            out.append(
                DiscoveredAccountRecord(
                    id: id, owner: owner, ownerName: row[3], coinType: try level(4, "coin_type"),
                    account: try level(5, "account"), change: try level(6, "change"),
                    index: try level(7, "address_index"),
                    address: row[8], publicKey: row.bytes(9) ?? [], discoveredAt: Timestamp.date(row[10])))
        }
        return out
    }
}
