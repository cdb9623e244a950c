import GRDB

extension StoreTransaction {
    /// Problems with the store's invariants, as sentences; empty when all hold. Checks:
    /// SQLite's `integrity_check` and `foreign_key_check`; positions are exactly 1…n; no
    /// secret belongs to a key that should not have one (HD-CHILD, card, watch-only,
    /// retired); every software ECDSA and HD-MASTER key that is not retired has its secret;
    /// every two-party ECDSA and HD-MASTER key has its sealed share and its public parameters;
    /// every HD-CHILD has a parent. (At most one unfinished rotation per key is enforced
    /// by the `rotations_open_by_old_key` index itself.)
    ///
    /// Used after a crash (the SIGKILL tests, docs/store.md) and by `kcs doctor`-style commands.
    public func consistencyProblems() throws(StoreError) -> [String] {
        try problems(integrity: integrityCheck())
    }

    /// SQLite's `PRAGMA integrity_check`: `["ok"]`, or one line per problem (at most 100).
    /// It reads every page of the file, so one check runs it once.
    func integrityCheck() throws(StoreError) -> [String] {
        try storeErrors { try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// `consistencyProblems()` for the lines of an `integrityCheck()` already run in this transaction.
    func problems(integrity: [String]) throws(StoreError) -> [String] {
        try storeErrors {
            var problems: [String] = []
            if integrity != ["ok"] { problems += integrity.map { "integrity_check: \($0)" } }
            for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                problems.append(
                    "foreign_key_check: row \(row[1] as Int64? ?? -1) of \(row[0] as String) "
                        + "references a missing row of \(row[2] as String)")
            }
            let (count, low, high) =
                try Row.fetchOne(db, sql: "SELECT COUNT(*), MIN(position), MAX(position) FROM keys")
                .map { ($0[0] as Int, $0[1] as Int?, $0[2] as Int?) } ?? (0, nil, nil)
            if count > 0, low != 1 || high != count {
                problems.append(
                    "positions run from \(low ?? 0) to \(high ?? 0) for \(count) keys; expected 1 to \(count)")
            }
            for name in try String.fetchAll(
                db,
                sql: """
                    SELECT k.name FROM secrets s JOIN keys k ON k.id = s.key_id
                    WHERE k.kind NOT IN ('ECDSA', 'HD-MASTER') OR k.retired = 1
                       OR (k.storage <> 'software' AND k.storage NOT LIKE '2p:%')
                       OR (k.storage LIKE '2p:%' AND s.kind <> 'mpc-share')
                    ORDER BY k.position
                    """)
            {
                problems.append("key \(StoreError.quote(name)) has a sealed secret it should not have")
            }
            for name in try String.fetchAll(
                db,
                sql: """
                    SELECT k.name FROM keys k
                    WHERE k.kind IN ('ECDSA', 'HD-MASTER') AND k.retired = 0 AND k.storage = 'software'
                      AND NOT EXISTS (SELECT 1 FROM secrets s WHERE s.key_id = k.id)
                    ORDER BY k.position
                    """)
            {
                problems.append("key \(StoreError.quote(name)) has lost its sealed secret")
            }
            // A two-party key's share sits in `secrets` (kind mpc-share) and its public parameters in
            // `mpc_keys` (docs/two-party.md): both or the key cannot sign.
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT k.name, EXISTS (SELECT 1 FROM secrets s WHERE s.key_id = k.id) AS sealed,
                           EXISTS (SELECT 1 FROM mpc_keys m WHERE m.key_id = k.id) AS parameters
                    FROM keys k
                    WHERE k.kind IN ('ECDSA', 'HD-MASTER') AND k.retired = 0 AND k.storage LIKE '2p:%'
                    ORDER BY k.position
                    """) where !(row["sealed"] as Bool) || !(row["parameters"] as Bool)
            {
                let name = StoreError.quote(row["name"] as String)
                problems.append(
                    (row["sealed"] as Bool)
                        ? "two-party key \(name) has no public parameters"
                        : "two-party key \(name) has lost its sealed share")
            }
            for name in try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM keys WHERE kind = 'HD-CHILD' AND parent_id IS NULL ORDER BY position
                    """)
            {
                problems.append("HD-CHILD key \(StoreError.quote(name)) has no parent")
            }
            return problems
        }
    }
}
