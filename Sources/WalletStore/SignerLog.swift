// The local signer's request log (docs/signer.md, docs/store.md): every request `kcs signer
// serve` was asked to sign and what became of it — approved (by the person or by a rule), denied,
// expired, withdrawn by its client, refused before anyone was asked, or failed after approval.
// The signatures themselves are in `history` (the same digest); the rules' 24-hour windows are
// summed from here, so a restart does not reset them.
import Foundation
import GRDB

/// What became of a request to the local signer.
public enum SignerOutcome: String, Sendable, Hashable, CaseIterable, Codable {
    case approved, denied, expired, withdrawn, refused, failed
}

/// A request to record.
public struct NewSignerRequest: Sendable, Hashable {
    /// The JSON-RPC method (`eth_sendTransaction`, `personal_sign`, …).
    public var method: String
    /// Who asked, as the server knows it (`http 127.0.0.1:51234`, `socket pid 4242 (python3)`),
    /// with what the caller stated kept apart by the caller of this API.
    public var caller: String
    /// The signing key's name.
    public var keyName: String
    /// The account the request named (EIP-55).
    public var account: String
    public var outcome: SignerOutcome
    /// `console`, `rule NAME`, `timeout`, `client`, or the check that refused it.
    public var decidedBy: String
    /// The digest that was (or would have been) signed, when it was computed.
    public var digest: [UInt8]?
    public var chainID: UInt64?
    /// The value a transaction moves, in wei (0 for other requests).
    public var valueWei: String
    /// True when a signed transaction was handed to the node.
    public var sent: Bool
    /// The transaction's hash, once signed.
    public var transactionHash: [UInt8]?
    /// When; nil means the transaction's clock.
    public var date: Date?

    public init(
        method: String, caller: String, keyName: String, account: String, outcome: SignerOutcome,
        decidedBy: String, digest: [UInt8]? = nil, chainID: UInt64? = nil, valueWei: String = "0",
        sent: Bool = false, transactionHash: [UInt8]? = nil, date: Date? = nil
    ) {
        self.method = method
        self.caller = caller
        self.keyName = keyName
        self.account = account
        self.outcome = outcome
        self.decidedBy = decidedBy
        self.digest = digest
        self.chainID = chainID
        self.valueWei = valueWei
        self.sent = sent
        self.transactionHash = transactionHash
        self.date = date
    }
}

/// One row of the request log.
public struct SignerRequestRecord: Sendable, Hashable, Identifiable {
    public let id: Int64
    public let date: Date
    public let request: NewSignerRequest
}

extension StoreTransaction {
    /// Appends a request's outcome.
    ///
    /// - Throws: `.invalidHistory` for an empty method, a digest or hash that is not 32 bytes, or a
    ///   value that is not a decimal number.
    @discardableResult
    public func recordSignerRequest(_ entry: NewSignerRequest) throws(StoreError) -> SignerRequestRecord {
        guard !entry.method.isEmpty, entry.method.utf8.count <= 64 else {
            throw .invalidHistory(field: "method", reason: "must be 1 to 64 bytes")
        }
        for (field, bytes) in [("digest", entry.digest), ("transaction hash", entry.transactionHash)] {
            if let bytes, bytes.count != 32 {
                throw .invalidHistory(field: field, reason: "must be 32 bytes, got \(bytes.count)")
            }
        }
        guard !entry.valueWei.isEmpty, entry.valueWei.utf8.count <= 78,
            entry.valueWei.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else {
            throw .invalidHistory(field: "value", reason: "must be a decimal number of wei, got \(entry.valueWei)")
        }
        if let chain = entry.chainID, chain > UInt64(Int64.max) {
            throw .invalidHistory(field: "chain id", reason: "must be at most \(Int64.max), got \(chain)")
        }
        let createdAt = Timestamp.milliseconds(entry.date ?? now)
        let id: Int64 = try storeErrors {
            try db.execute(
                sql: """
                    INSERT INTO signer_requests (created_at, method, caller, key_name, account, outcome, decided_by,
                        digest, chain_id, value_wei, sent, tx_hash)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    createdAt, entry.method, entry.caller, entry.keyName, entry.account, entry.outcome.rawValue,
                    entry.decidedBy, entry.digest.map { Data($0) }, entry.chainID.map { Int64($0) }, entry.valueWei,
                    entry.sent, entry.transactionHash.map { Data($0) },
                ])
            return db.lastInsertedRowID
        }
        var written = entry
        written.date = Timestamp.date(createdAt)
        return SignerRequestRecord(id: id, date: Timestamp.date(createdAt), request: written)
    }

    /// Logged requests at or after `since` (all when nil), newest first, at most `limit`.
    public func signerRequests(since: Date? = nil, limit: Int? = nil) throws(StoreError) -> [SignerRequestRecord] {
        if let limit, limit < 1 { throw .invalidQuery(field: "limit", reason: "must be at least 1, got \(limit)") }
        var sql = """
            SELECT id, created_at, method, caller, key_name, account, outcome, decided_by, digest, chain_id,
                value_wei, sent, tx_hash FROM signer_requests
            """
        var arguments: StatementArguments = []
        if let since {
            sql += " WHERE created_at >= ?"
            arguments += [Timestamp.milliseconds(since)]
        }
        sql += " ORDER BY created_at DESC, id DESC"
        if let limit { sql += " LIMIT \(limit)" }
        return try storeErrors {
            var out: [SignerRequestRecord] = []
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try rows.next() {
                let id: Int64 = row[0]
                let entry = NewSignerRequest(
                    method: row[2], caller: row[3], keyName: row[4], account: row[5],
                    outcome: try SignerOutcome.decode(row[6], table: "signer_requests", id: id), decidedBy: row[7],
                    digest: row.bytes(8), chainID: (row[9] as Int64?).map { UInt64(bitPattern: $0) },
                    valueWei: row[10], sent: row[11], transactionHash: row.bytes(12),
                    date: Timestamp.date(row[1]))
                out.append(SignerRequestRecord(id: id, date: Timestamp.date(row[1]), request: entry))
            }
            return out
        }
    }
}

extension WalletStore {
    /// Appends a request's outcome. See `StoreTransaction.recordSignerRequest`.
    @discardableResult
    public func recordSignerRequest(_ entry: NewSignerRequest) throws(StoreError) -> SignerRequestRecord {
        try perform { try $0.recordSignerRequest(entry) }
    }

    /// Logged requests, newest first. See `StoreTransaction.signerRequests`.
    public func signerRequests(since: Date? = nil, limit: Int? = nil) throws(StoreError) -> [SignerRequestRecord] {
        try fetch { try $0.signerRequests(since: since, limit: limit) }
    }
}
