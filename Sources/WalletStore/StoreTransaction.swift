import Foundation
import GRDB
import WalletCore
import WalletCrypto

/// One transaction on the store, handed to the body of `WalletStore.write(_:)` (read and
/// write) or `WalletStore.read(_:)` (read only).
///
/// Every method either completes or throws a `StoreError`; the enclosing transaction
/// decides what is committed, so a command made of several calls (import a master and
/// ten children, sign and record) commits all or nothing. All times written in one
/// transaction are the same instant, `now`.
///
/// The transaction is valid only inside the body that received it; it is deliberately
/// not `Sendable`.
public final class StoreTransaction {
    let db: Database
    let store: WalletStore
    /// The instant this transaction writes into time columns.
    public let now: Date

    init(db: Database, store: WalletStore, now: Date) {
        self.db = db
        self.store = store
        self.now = now
    }

    /// `now` as stored.
    var nowMS: Int64 { Timestamp.milliseconds(now) }
}

@available(*, unavailable)
extension StoreTransaction: Sendable {}

// MARK: - Decoding helpers

extension RawRepresentable where RawValue == String {
    /// Parses a TEXT column of an enumeration; an unknown value means a corrupt or tampered row.
    static func decode(_ text: String, table: String, id: some CustomStringConvertible) throws -> Self {
        guard let value = Self(rawValue: text) else {
            throw StoreError.corruptRow(
                table: table, id: id.description, reason: "unexpected value \(StoreError.quote(text))")
        }
        return value
    }
}

extension Row {
    /// A BLOB column as bytes (nil for NULL).
    func bytes(_ column: Int) -> [UInt8]? {
        (self[column] as Data?).map { [UInt8]($0) }
    }

    /// A BLOB column as bytes (nil for NULL).
    func bytes(_ column: String) -> [UInt8]? {
        (self[column] as Data?).map { [UInt8]($0) }
    }
}

// MARK: - Settings

extension StoreTransaction {
    /// The value of setting `key`, or nil.
    public func setting(_ key: String) throws(StoreError) -> String? {
        try storeErrors { try String.fetchOne(db, sql: "SELECT value FROM settings WHERE key = ?", arguments: [key]) }
    }

    /// Sets (or, with nil, removes) setting `key`.
    ///
    /// - Throws: `.invalidSetting` when the key is empty or longer than 64 characters.
    public func setSetting(_ key: String, to value: String?) throws(StoreError) {
        guard !key.isEmpty else { throw .invalidSetting(key: key, reason: "must not be empty") }
        guard key.count <= 64 else { throw .invalidSetting(key: key, reason: "must be at most 64 characters") }
        try storeErrors {
            if let value {
                try db.execute(
                    sql: """
                        INSERT INTO settings (key, value) VALUES (?, ?)
                        ON CONFLICT(key) DO UPDATE SET value = excluded.value
                        """, arguments: [key, value])
            } else {
                try db.execute(sql: "DELETE FROM settings WHERE key = ?", arguments: [key])
            }
        }
    }

    /// Every setting, by key.
    public func settings() throws(StoreError) -> [String: String] {
        try storeErrors {
            var out: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM settings") { out[row[0]] = row[1] as String }
            return out
        }
    }
}
