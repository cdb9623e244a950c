// Signing history (docs/store.md): every signature kcs makes, with a verified flag the
// caller computed by recovering the signer at record time. Queries go newest first
// through the `history_by_*` indexes; exports are CSV text and Encodable records.
import Foundation
import GRDB
import WalletCrypto

/// What was signed.
public enum SignatureKind: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// A raw 32-byte hash (`sign 0x…`).
    case hash
    /// An EIP-191 personal message.
    case message
    /// EIP-712 typed data.
    case typed
    /// A transaction.
    case transaction
    /// An EIP-7702 authorization.
    case authorization
    /// A Bitcoin signature hash (one PSBT input: legacy, BIP-143 or BIP-341).
    case bitcoin

    public var description: String { rawValue }

    /// What the signed digest is called for this kind — ERC-8213's `EIP-712 Digest` for typed
    /// data (docs/signing-review.md, "Digests by name") — in the history's `digestName`.
    public var digestName: String {
        switch self {
        case .hash: "digest"
        case .message: "EIP-191 digest"
        case .typed: "EIP-712 Digest"
        case .transaction: "signing hash"
        case .authorization: "authorization digest"
        case .bitcoin: "sighash"
        }
    }
}

/// A signature to record.
public struct NewHistoryEntry: Sendable, Hashable {
    /// The signing key's name. If a key of that name exists, the record links to it;
    /// otherwise (a card key not in the store, say) only the name is kept.
    public var keyName: String
    /// What was signed.
    public var kind: SignatureKind
    /// The 32-byte digest that was signed.
    public var digest: [UInt8]
    /// The signature: 64 bytes r ‖ s, or 65 with the recovery id.
    public var signature: [UInt8]
    /// The signer's address as shown to the user.
    public var signer: String
    /// True when recovering the signer from `signature` and `digest` gave `signer`.
    public var verified: Bool
    /// The EIP-155 chain id of a transaction or typed data, when there is one.
    public var chainID: UInt64?
    /// When it was signed; nil means the transaction's clock.
    public var date: Date?
    /// The row id of the key called `keyName`, when the caller read its record (then it is not
    /// looked up by name again).
    public var keyID: Int64?

    /// A record of one signature.
    public init(
        keyName: String, kind: SignatureKind, digest: [UInt8], signature: [UInt8], signer: String,
        verified: Bool, chainID: UInt64? = nil, date: Date? = nil, keyID: Int64? = nil
    ) {
        self.keyID = keyID
        self.keyName = keyName
        self.kind = kind
        self.digest = digest
        self.signature = signature
        self.signer = signer
        self.verified = verified
        self.chainID = chainID
        self.date = date
    }
}

/// One row of the signing history.
public struct HistoryRecord: Sendable, Hashable, Identifiable {
    /// Row id, increasing with insertion.
    public let id: Int64
    /// When it was signed.
    public let date: Date
    /// The signing key, while it exists (NULL after the key is deleted).
    public let keyID: Int64?
    /// The signing key's name (kept after the key is deleted; follows renames).
    public let keyName: String
    /// What was signed.
    public let kind: SignatureKind
    /// The signed digest.
    public let digest: [UInt8]
    /// The signature bytes.
    public let signature: [UInt8]
    /// The signer's address.
    public let signer: String
    /// Whether the signature verified at record time.
    public let verified: Bool
    /// The chain id, if any.
    public let chainID: UInt64?
}

/// The filters of `history [--key NAME] [--since DATE] [--kind K] [--limit N]`.
public struct HistoryQuery: Sendable, Hashable {
    /// Only records of this key name (ignoring ASCII case; deleted keys included).
    public var keyName: String?
    /// Only records at or after this time.
    public var since: Date?
    /// Only records before this time.
    public var until: Date?
    /// Only records of this kind.
    public var kind: SignatureKind?
    /// At most this many records (the newest); nil for all.
    public var limit: Int?

    /// A query; no argument means every record, newest first.
    public init(
        keyName: String? = nil, since: Date? = nil, until: Date? = nil, kind: SignatureKind? = nil,
        limit: Int? = nil
    ) {
        self.keyName = keyName
        self.since = since
        self.until = until
        self.kind = kind
        self.limit = limit
    }
}

extension StoreTransaction {
    /// Appends a signing record and returns it.
    ///
    /// - Throws: `.invalidHistory` when the digest is not 32 bytes, the signature not 64 or
    ///   65 bytes, or the key name or signer is empty.
    @discardableResult
    public func recordSignature(_ entry: NewHistoryEntry) throws(StoreError) -> HistoryRecord {
        guard !entry.keyName.isEmpty else { throw .invalidHistory(field: "key", reason: "must not be empty") }
        guard entry.digest.count == 32 else {
            throw .invalidHistory(field: "digest", reason: "must be 32 bytes, got \(entry.digest.count)")
        }
        guard entry.signature.count == 64 || entry.signature.count == 65 else {
            throw .invalidHistory(field: "signature", reason: "must be 64 or 65 bytes, got \(entry.signature.count)")
        }
        guard !entry.signer.isEmpty else { throw .invalidHistory(field: "signer", reason: "must not be empty") }
        if let chain = entry.chainID, chain > UInt64(Int64.max) {
            throw .invalidHistory(field: "chain id", reason: "must be at most \(Int64.max), got \(chain)")
        }
        // The key's own spelling of its name when it is looked up (names match without case).
        let linked: (id: Int64, name: String)? =
            if let id = entry.keyID { (id, entry.keyName) } else {
                try findKey(named: entry.keyName).map { ($0.id, $0.name) }
            }
        let linkedID = linked?.id
        let createdAt = Timestamp.milliseconds(entry.date ?? now)
        let keyName = linked?.name ?? entry.keyName
        let id: Int64 = try storeErrors {
            try db.execute(
                sql: """
                    INSERT INTO history (created_at, key_id, key_name, kind, digest, signature, signer, verified, chain_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    createdAt, linkedID, keyName, entry.kind.rawValue, Data(entry.digest),
                    Data(entry.signature), entry.signer, entry.verified, entry.chainID.map { Int64($0) },
                ])
            return db.lastInsertedRowID
        }
        // Built from what was written rather than read back: every signature is recorded, so
        // this saves a query on each.
        return HistoryRecord(
            id: id, date: Timestamp.date(createdAt), keyID: linkedID, keyName: keyName,
            kind: entry.kind, digest: entry.digest, signature: entry.signature, signer: entry.signer,
            verified: entry.verified, chainID: entry.chainID)
    }

    /// Signing records matching `query`, newest first (ties by insertion order).
    ///
    /// - Throws: `.invalidQuery` for a limit below 1.
    public func history(_ query: HistoryQuery = HistoryQuery()) throws(StoreError) -> [HistoryRecord] {
        let (condition, arguments) = try whereClause(query)
        return try storeErrors { try fetchHistory(where: condition, arguments: arguments, limit: query.limit) }
    }

    /// The number of records matching `query` (its limit ignored).
    public func historyCount(_ query: HistoryQuery = HistoryQuery()) throws(StoreError) -> Int {
        var unlimited = query
        unlimited.limit = nil
        let (condition, arguments) = try whereClause(unlimited)
        return try storeErrors {
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM history" + (condition.isEmpty ? "" : " WHERE " + condition),
                arguments: arguments) ?? 0
        }
    }

    private func whereClause(_ query: HistoryQuery) throws(StoreError) -> (String, StatementArguments) {
        if let limit = query.limit, limit < 1 {
            throw .invalidQuery(field: "limit", reason: "must be at least 1, got \(limit)")
        }
        var terms: [String] = []
        var arguments: StatementArguments = []
        if let name = query.keyName {
            terms.append("key_name = ?")
            arguments += [name]
        }
        if let since = query.since {
            terms.append("created_at >= ?")
            arguments += [Timestamp.milliseconds(since)]
        }
        if let until = query.until {
            terms.append("created_at < ?")
            arguments += [Timestamp.milliseconds(until)]
        }
        if let kind = query.kind {
            terms.append("kind = ?")
            arguments += [kind.rawValue]
        }
        return (terms.joined(separator: " AND "), arguments)
    }

    private func fetchHistory(
        where condition: String, arguments: StatementArguments, limit: Int?
    ) throws -> [HistoryRecord] {
        var sql = """
            SELECT id, created_at, key_id, key_name, kind, digest, signature, signer, verified, chain_id FROM history
            """
        if !condition.isEmpty { sql += " WHERE " + condition }
        sql += " ORDER BY created_at DESC, id DESC"
        if let limit { sql += " LIMIT \(limit)" }
        var out: [HistoryRecord] = []
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
            let id: Int64 = row[0]
            out.append(
                HistoryRecord(
                    id: id, date: Timestamp.date(row[1]), keyID: row[2], keyName: row[3],
                    kind: try SignatureKind.decode(row[4], table: "history", id: id),
                    digest: row.bytes(5) ?? [], signature: row.bytes(6) ?? [], signer: row[7], verified: row[8],
                    chainID: (row[9] as Int64?).map { UInt64(bitPattern: $0) }))
        }
        return out
    }
}

// MARK: - Export

/// Renderings of signing records for `history --csv` and `history --json`.
public enum HistoryExport {
    /// The CSV header line's fields: the field names of a history record as `history` returns
    /// it and `history --json` writes it, in the same order.
    public static let csvColumns = [
        "id", "time", "key", "kind", "digest", "digestName", "signature", "signer", "verified", "chainId",
    ]

    /// A record's time as every rendering writes it: ISO 8601 UTC with the milliseconds the
    /// history keeps.
    public static func timeText(_ date: Date) -> String { Timestamp.iso8601(date) }

    /// RFC 4180 CSV: a header line, then one line per record, CRLF line ends. Times are ISO
    /// 8601 UTC, bytes `0x` hex, `verified` is `true`/`false`, an absent chain id is empty.
    public static func csv(_ records: [HistoryRecord]) -> String {
        var out = csvColumns.joined(separator: ",") + "\r\n"
        for r in records {
            let fields = [
                String(r.id), timeText(r.date), r.keyName, r.kind.rawValue, Hex.encodePrefixed(r.digest),
                r.kind.digestName, Hex.encodePrefixed(r.signature), r.signer, r.verified ? "true" : "false",
                r.chainID.map { String($0) } ?? "",
            ]
            out += fields.map(csvField).joined(separator: ",") + "\r\n"
        }
        return out
    }

    /// Quotes a field when it holds a comma, a quote or a line break (doubling quotes), and
    /// prefixes a quote to text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`).
    static func csvField(_ text: String) -> String {
        var value = text
        if let first = value.first, "=+-@".contains(first), Int(value) == nil { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
