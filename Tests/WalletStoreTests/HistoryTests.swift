// Signing history: append, filters, ordering, CSV and JSON export, indexes.
import Foundation
import GRDB
import Testing
import WalletCrypto

@testable import WalletStore

@Suite("Signing history")
struct HistoryTests {
    /// Records at day 0, 1, 2, … for keys a and b alternately, kinds cycling.
    private func seeded(_ count: Int) throws -> (WalletStore, Date) {
        let clock = TestClock()
        let store = try makeStore(clock: clock)
        try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        try store.addKey(keyB.newKey(name: "b"), secret: keyB.secret)
        let start = clock.now
        try store.write { tx in
            for i in 0..<count {
                try tx.recordSignature(
                    signature(
                        key: i % 2 == 0 ? "a" : "b", kind: SignatureKind.allCases[i % 4],
                        date: start.addingTimeInterval(Double(i) * 86_400),
                        chainID: i % 4 == 3 ? 1 : nil))
            }
        }
        return (store, start)
    }

    @Test func record_linksTheKeyAndRoundTrips() throws {
        let clock = TestClock()
        let store = try makeStore(clock: clock)
        let a = try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        let record = try store.recordSignature(
            NewHistoryEntry(
                keyName: "A", kind: .transaction, digest: h(String(repeating: "ab", count: 32)),
                signature: h(String(repeating: "cd", count: 65)), signer: keyA.address, verified: false,
                chainID: 11_155_111))
        #expect(record.keyID == a.id)
        #expect(record.keyName == "a")  // the stored key's spelling
        #expect(record.date == clock.now)
        #expect(record.kind == .transaction && !record.verified && record.chainID == 11_155_111)
        // A key the store does not know (a card not imported) is kept by name only.
        let loose = try store.recordSignature(signature(key: "card-1234"))
        #expect(loose.keyID == nil && loose.keyName == "card-1234")
        // What recordSignature returns is what the history reads back.
        #expect(try store.history() == [loose, record])
    }

    /// A signer that read its key's record passes its row id: the row links to it without a
    /// second lookup by name, and the name is kept as given; an id the store does not have is
    /// refused by the foreign key, and nothing is written.
    @Test func record_withTheKeysID_linksWithoutLookingItUp() throws {
        let store = try makeStore(clock: TestClock())
        let a = try store.addKey(keyA.newKey(name: "a"), secret: keyA.secret)
        var entry = signature(key: "a")
        entry.keyID = a.id
        let record = try store.recordSignature(entry)
        #expect(record.keyID == a.id && record.keyName == "a")
        entry.keyID = a.id + 99
        #expect(throws: StoreError.self) { try store.recordSignature(entry) }
        #expect(try store.history() == [record])
    }

    @Test func record_badFields_areRefused() throws {
        let store = try makeStore()
        var entry = signature(key: "x")
        entry.digest = [1, 2]
        #expect(
            storeError { try store.recordSignature(entry) }
                == .invalidHistory(field: "digest", reason: "must be 32 bytes, got 2"))
        entry = signature(key: "x")
        entry.signature = []
        #expect(
            storeError { try store.recordSignature(entry) }?.description
                == "signing record field signature must be 64 or 65 bytes, got 0")
        #expect(try store.historyCount() == 0)
    }

    @Test func query_filtersAndNewestFirst() throws {
        let (store, start) = try seeded(40)
        let all = try store.history()
        #expect(all.count == 40)
        #expect(all.map(\.date) == all.map(\.date).sorted(by: >))
        #expect(try store.history(HistoryQuery(keyName: "b")).allSatisfy { $0.keyName == "b" })
        #expect(try store.historyCount(HistoryQuery(keyName: "B")) == 20)
        let since = start.addingTimeInterval(30 * 86_400)
        let recent = try store.history(HistoryQuery(since: since))
        #expect(recent.count == 10 && recent.allSatisfy { $0.date >= since })
        let typed = try store.history(HistoryQuery(keyName: "a", kind: .typed))
        #expect(typed.count == 10 && typed.allSatisfy { $0.kind == .typed && $0.keyName == "a" })
        let latest = try store.history(HistoryQuery(kind: .transaction, limit: 3))
        #expect(latest.map { Int($0.date.timeIntervalSince(start) / 86_400) } == [39, 35, 31])
        #expect(try store.history(HistoryQuery(since: since, until: since.addingTimeInterval(2 * 86_400))).count == 2)
        #expect(
            storeError { try store.history(HistoryQuery(limit: 0)) }
                == .invalidQuery(field: "limit", reason: "must be at least 1, got 0"))
    }

    @Test func sameTimestamp_ordersByInsertion() throws {
        let store = try makeStore()
        try store.write { tx in
            for key in ["first", "second", "third"] { try tx.recordSignature(signature(key: key)) }
        }
        #expect(try store.history().map(\.keyName) == ["third", "second", "first"])
    }

    @Test func csv_hasHeaderAndOneLinePerRecord() throws {
        let store = try makeStore()
        try store.recordSignature(signature(key: "a", kind: .message))
        try store.recordSignature(signature(key: "b", kind: .transaction, chainID: 1))
        let csv = HistoryExport.csv(try store.history())
        let digest = "0x" + String(repeating: "11", count: 32)
        let sig = "0x" + String(repeating: "22", count: 65)
        #expect(
            csv == """
                id,time,key,kind,digest,digestName,signature,signer,verified,chainId\r
                2,2024-01-01T00:00:00.000Z,b,transaction,\(digest),signing hash,\(sig),\(keyA.address),true,1\r
                1,2024-01-01T00:00:00.000Z,a,message,\(digest),EIP-191 digest,\(sig),\(keyA.address),true,\r

                """)
    }

    @Test func csvField_quotesAndDefusesFormulas() {
        #expect(HistoryExport.csvField("plain") == "plain")
        #expect(HistoryExport.csvField("a,b") == "\"a,b\"")
        #expect(HistoryExport.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(HistoryExport.csvField("=cmd()") == "'=cmd()")
        #expect(HistoryExport.csvField("-5") == "-5")
    }

    @Test func filters_useTheHistoryIndexes() throws {
        let store = try makeStore()
        func plan(_ sql: String) throws -> String {
            try store.queue.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }.joined(
                    separator: "; ")
            }
        }
        let order = " ORDER BY created_at DESC, id DESC LIMIT 10"
        #expect(try plan("SELECT * FROM history" + order).contains("history_by_time"))
        #expect(try plan("SELECT * FROM history WHERE key_name = 'a'" + order).contains("history_by_key"))
        #expect(try plan("SELECT * FROM history WHERE kind = 'hash'" + order).contains("history_by_kind"))
        #expect(
            try !plan("SELECT * FROM history WHERE key_name = 'a' AND created_at >= 5" + order).contains("TEMP B-TREE"))
    }

    /// Filters over 100,000 records find exactly the right rows. How fast is the benchmark's
    /// "history newest 50 + count, 100k" (`make bench`); that the queries use the indexes is
    /// `filters_useTheHistoryIndexes`. A wall-clock limit here would only make the suite flaky.
    @Test func query_over100kRecords_findsTheRightRows() throws {
        let clock = TestClock()
        let store = try makeStore(clock: clock)
        let start = clock.now
        try store.queue.write { db in
            let statement = try db.makeStatement(
                sql: """
                    INSERT INTO history (created_at, key_id, key_name, kind, digest, signature, signer, verified)
                    VALUES (?, NULL, ?, ?, zeroblob(32), zeroblob(65), 'x', 1)
                    """)
            for i in 0..<100_000 {
                try statement.execute(arguments: [
                    Timestamp.milliseconds(start) + Int64(i) * 1000, "key\(i % 100)",
                    SignatureKind.allCases[i % 4].rawValue,
                ])
            }
        }
        let recent = try store.history(
            HistoryQuery(keyName: "key7", since: start.addingTimeInterval(90_000), limit: 50))
        let byKind = try store.history(HistoryQuery(kind: .typed, limit: 100))
        // Newest first: key7 signed rows 7, 107, …, 99,907; the 50 newest are 99,907 down to 95,007.
        #expect(recent.count == 50 && recent.allSatisfy { $0.keyName == "key7" })
        #expect(
            recent.first?.date == start.addingTimeInterval(99_907)
                && recent.last?.date == start.addingTimeInterval(95_007))
        #expect(byKind.count == 100 && byKind.allSatisfy { $0.kind == SignatureKind.allCases[2] })
        #expect(byKind.first?.date == start.addingTimeInterval(99_998))
    }
}
