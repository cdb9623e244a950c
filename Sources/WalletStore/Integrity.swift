// SQLite's own check of the database file beside the store's invariants: what a crash test
// (docs/store.md) asserts after killing kcs, and what `store.check` shows.
import GRDB

extension WalletStore {
    /// SQLite's `PRAGMA integrity_check` over the whole database and the store's invariants,
    /// from one snapshot, with SQLite's scan (every page of the file) run once. Read-only; it
    /// does not need the vault.
    ///
    /// - Returns: `integrity`, SQLite's verdict as SQLite words it: `["ok"]` when the file is
    ///   sound, otherwise one line per problem (SQLite stops after 100); `problems`, what
    ///   `consistencyProblems()` returns (the same SQLite lines, prefixed, among the store's
    ///   own invariants), empty when all hold.
    /// - Throws: `.database` when the file cannot be read at all, `.closed`.
    public func check() throws(StoreError) -> (integrity: [String], problems: [String]) {
        try fetch { tx in
            let integrity = try tx.integrityCheck()
            return (integrity, try tx.problems(integrity: integrity))
        }
    }
}
