// SQLite's own check of the database file, on its own: what a crash test (issue 5 §7)
// asserts after killing kcs, and what `store.check` shows beside `consistencyProblems()`.
import GRDB

extension WalletStore {
    /// SQLite's `PRAGMA integrity_check` over the whole database: `["ok"]` when the file is
    /// sound, otherwise one line per problem (SQLite stops after 100). Read-only; it does
    /// not need the vault. `consistencyProblems()` includes the same lines (prefixed) among
    /// the store's own invariants; this gives SQLite's verdict as SQLite words it.
    ///
    /// - Throws: `.database` when the file cannot be read at all, `.closed`.
    public func integrityCheck() throws(StoreError) -> [String] {
        try fetch { tx in try String.fetchAll(tx.db, sql: "PRAGMA integrity_check") }
    }
}
