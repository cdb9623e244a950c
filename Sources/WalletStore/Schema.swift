import GRDB

/// The store's schema, as named migrations applied in order by GRDB's `DatabaseMigrator`.
///
/// Rules: a migration, once released, never changes; a schema change is a new migration
/// appended to the list. GRDB records applied names in `grdb_migrations`, so reopening a
/// store applies only what is missing, and a store with names this build does not know
/// is refused (`StoreError.schemaTooNew`). docs/store.md documents every table and column.
///
/// Conventions: times are INTEGER milliseconds since the Unix epoch (UTC); booleans are
/// INTEGER 0/1 with a CHECK; enumerations are TEXT with a CHECK listing their values;
/// key names compare with `NOCASE`.
enum Schema {
    /// The migrations, in the order they run.
    static let migrations: [(name: String, sql: String)] = [
        (
            "v1-settings",
            """
            CREATE TABLE settings (
                key   TEXT PRIMARY KEY NOT NULL CHECK (length(key) BETWEEN 1 AND 64),
                value TEXT NOT NULL
            );
            """
        ),
        (
            "v1-vault",
            """
            CREATE TABLE vault (
                id             INTEGER PRIMARY KEY CHECK (id = 1),
                kdf            TEXT NOT NULL CHECK (kdf = 'scrypt'),
                scrypt_n       INTEGER NOT NULL CHECK (scrypt_n >= 2),
                scrypt_r       INTEGER NOT NULL CHECK (scrypt_r >= 1),
                scrypt_p       INTEGER NOT NULL CHECK (scrypt_p >= 1),
                salt           BLOB NOT NULL CHECK (length(salt) = 32),
                verifier_nonce BLOB NOT NULL CHECK (length(verifier_nonce) = 12),
                verifier       BLOB NOT NULL CHECK (length(verifier) = 48),
                created_at     INTEGER NOT NULL,
                changed_at     INTEGER NOT NULL
            );
            """
        ),
        (
            "v1-keys",
            """
            CREATE TABLE keys (
                id            INTEGER PRIMARY KEY AUTOINCREMENT,
                name          TEXT NOT NULL COLLATE NOCASE,
                kind          TEXT NOT NULL CHECK (kind IN ('ECDSA', 'HD-MASTER', 'HD-CHILD', 'CARD', 'WATCH')),
                position      INTEGER NOT NULL,
                created_at    INTEGER NOT NULL,
                public_key    BLOB CHECK (public_key IS NULL OR length(public_key) = 33),
                address       TEXT,
                path          TEXT,
                parent_id     INTEGER REFERENCES keys(id) ON DELETE RESTRICT,
                storage       TEXT NOT NULL CHECK (storage IN ('software', 'watch') OR storage LIKE 'card:%'),
                preset        TEXT,
                source        TEXT NOT NULL CHECK (source IN ('generated', 'mnemonic', 'privkey', 'keystore',
                                                              'xpub', 'address', 'card')),
                xpub          TEXT,
                revealed_at   INTEGER,
                rotation_flag TEXT CHECK (rotation_flag IS NULL OR rotation_flag IN ('user', 'exposed')),
                retired       INTEGER NOT NULL DEFAULT 0 CHECK (retired IN (0, 1)),
                successor_id  INTEGER REFERENCES keys(id) ON DELETE SET NULL
            );
            CREATE UNIQUE INDEX keys_by_name ON keys(name);
            CREATE UNIQUE INDEX keys_by_position ON keys(position);
            CREATE INDEX keys_by_parent ON keys(parent_id);
            CREATE INDEX keys_by_successor ON keys(successor_id);
            """
        ),
        (
            "v1-secrets",
            """
            CREATE TABLE secrets (
                key_id                INTEGER PRIMARY KEY REFERENCES keys(id) ON DELETE CASCADE,
                kind                  TEXT NOT NULL CHECK (kind IN ('mnemonic', 'seed', 'privkey')),
                nonce                 BLOB NOT NULL CHECK (length(nonce) = 12),
                ciphertext            BLOB NOT NULL CHECK (length(ciphertext) > 16),
                passphrase_nonce      BLOB CHECK (passphrase_nonce IS NULL OR length(passphrase_nonce) = 12),
                passphrase_ciphertext BLOB CHECK (passphrase_ciphertext IS NULL OR length(passphrase_ciphertext) >= 16),
                sealed_at             INTEGER NOT NULL,
                CHECK ((passphrase_nonce IS NULL) = (passphrase_ciphertext IS NULL))
            );
            """
        ),
        (
            "v1-pairings",
            """
            CREATE TABLE pairings (
                instance_uid TEXT PRIMARY KEY NOT NULL CHECK (length(instance_uid) = 32),
                slot         INTEGER NOT NULL CHECK (slot BETWEEN 0 AND 254),
                nonce        BLOB NOT NULL CHECK (length(nonce) = 12),
                ciphertext   BLOB NOT NULL CHECK (length(ciphertext) = 48),
                created_at   INTEGER NOT NULL
            );
            """
        ),
        (
            "v1-history",
            """
            CREATE TABLE history (
                id         INTEGER PRIMARY KEY,
                created_at INTEGER NOT NULL,
                key_id     INTEGER REFERENCES keys(id) ON DELETE SET NULL,
                key_name   TEXT NOT NULL COLLATE NOCASE,
                kind       TEXT NOT NULL CHECK (kind IN ('hash', 'message', 'typed', 'transaction')),
                digest     BLOB NOT NULL,
                signature  BLOB NOT NULL,
                signer     TEXT NOT NULL,
                verified   INTEGER NOT NULL CHECK (verified IN (0, 1)),
                chain_id   INTEGER
            );
            CREATE INDEX history_by_time ON history(created_at);
            CREATE INDEX history_by_key ON history(key_name, created_at);
            CREATE INDEX history_by_kind ON history(kind, created_at);
            CREATE INDEX history_by_key_id ON history(key_id);
            """
        ),
        (
            "v1-rotations",
            """
            CREATE TABLE rotations (
                id          INTEGER PRIMARY KEY AUTOINCREMENT,
                old_key_id  INTEGER NOT NULL REFERENCES keys(id) ON DELETE CASCADE,
                new_key_id  INTEGER REFERENCES keys(id) ON DELETE SET NULL,
                state       TEXT NOT NULL CHECK (state IN ('started', 'successor-created', 'backed-up',
                                                           'completed', 'rolled-back')),
                started_at  INTEGER NOT NULL,
                updated_at  INTEGER NOT NULL,
                finished_at INTEGER
            );
            CREATE UNIQUE INDEX rotations_open_by_old_key ON rotations(old_key_id)
                WHERE state NOT IN ('completed', 'rolled-back');
            CREATE INDEX rotations_by_new_key ON rotations(new_key_id);
            """
        ),
        // BIP44 account discovery (docs/eth-node.md, "Discovery"): used addresses, public data only. An owner is a
        // stored key (key_id, rows go with the key) or a card (card_uid, no foreign key):
        // exactly one of the two is set. Uniqueness per owner is two partial indexes,
        // because a UNIQUE over a NULL column would never fire.
        (
            "v1-discovered-addresses",
            """
            CREATE TABLE discovered_addresses (
                id            INTEGER PRIMARY KEY,
                key_id        INTEGER REFERENCES keys(id) ON DELETE CASCADE,
                card_uid      TEXT CHECK (card_uid IS NULL
                                          OR (length(card_uid) = 32 AND card_uid NOT GLOB '*[^0-9a-f]*')),
                owner_name    TEXT NOT NULL CHECK (length(owner_name) BETWEEN 1 AND 64),
                coin_type     INTEGER NOT NULL CHECK (coin_type BETWEEN 0 AND 2147483647),
                account       INTEGER NOT NULL CHECK (account BETWEEN 0 AND 2147483647),
                change        INTEGER NOT NULL CHECK (change BETWEEN 0 AND 2147483647),
                address_index INTEGER NOT NULL CHECK (address_index BETWEEN 0 AND 2147483647),
                address       TEXT NOT NULL COLLATE NOCASE CHECK (length(address) = 42),
                public_key    BLOB NOT NULL CHECK (length(public_key) = 33),
                discovered_at INTEGER NOT NULL,
                CHECK ((key_id IS NULL) <> (card_uid IS NULL))
            );
            CREATE UNIQUE INDEX discovered_by_key
                ON discovered_addresses(key_id, coin_type, account, change, address_index) WHERE key_id IS NOT NULL;
            CREATE UNIQUE INDEX discovered_by_card
                ON discovered_addresses(card_uid, coin_type, account, change, address_index) WHERE card_uid IS NOT NULL;
            CREATE INDEX discovered_by_address ON discovered_addresses(address);
            """
        ),
        // What kcs saw of a card's key when it recorded it (docs/card.md, "Duress logins"): the
        // key UID and master public key, which a duress login leaves as they are, and one key
        // derived from them, which it changes (other chain code). Public data only.
        (
            "v2-card-key-checks",
            """
            CREATE TABLE card_key_checks (
                instance_uid      TEXT PRIMARY KEY NOT NULL
                                  CHECK (length(instance_uid) = 32 AND instance_uid NOT GLOB '*[^0-9a-f]*'),
                key_uid           BLOB NOT NULL CHECK (length(key_uid) = 32),
                master_public_key BLOB NOT NULL CHECK (length(master_public_key) = 33),
                check_path        TEXT NOT NULL CHECK (length(check_path) BETWEEN 1 AND 64),
                check_public_key  BLOB NOT NULL CHECK (length(check_public_key) = 33),
                recorded_at       INTEGER NOT NULL
            );
            """
        ),
        // Two-party keys (docs/two-party.md, "Storage"): `keys` and `secrets` rebuilt to allow
        // storage `2p:<co-signer>`, source `dkg` and secret kind `mpc-share` (SQLite cannot widen a
        // CHECK in place; GRDB runs migrations with foreign keys off and checks them before the
        // commit); the home's identity, its paired co-signers or consoles, and each joint key's
        // public parameters.
        (
            "v3-two-party",
            """
            CREATE TABLE keys_v3 (
                id            INTEGER PRIMARY KEY AUTOINCREMENT,
                name          TEXT NOT NULL COLLATE NOCASE,
                kind          TEXT NOT NULL CHECK (kind IN ('ECDSA', 'HD-MASTER', 'HD-CHILD', 'CARD', 'WATCH')),
                position      INTEGER NOT NULL,
                created_at    INTEGER NOT NULL,
                public_key    BLOB CHECK (public_key IS NULL OR length(public_key) = 33),
                address       TEXT,
                path          TEXT,
                parent_id     INTEGER REFERENCES keys(id) ON DELETE RESTRICT,
                storage       TEXT NOT NULL CHECK (storage IN ('software', 'watch') OR storage LIKE 'card:%'
                                                   OR storage LIKE '2p:%'),
                preset        TEXT,
                source        TEXT NOT NULL CHECK (source IN ('generated', 'mnemonic', 'privkey', 'keystore',
                                                              'xpub', 'address', 'card', 'dkg')),
                xpub          TEXT,
                revealed_at   INTEGER,
                rotation_flag TEXT CHECK (rotation_flag IS NULL OR rotation_flag IN ('user', 'exposed')),
                retired       INTEGER NOT NULL DEFAULT 0 CHECK (retired IN (0, 1)),
                successor_id  INTEGER REFERENCES keys(id) ON DELETE SET NULL
            );
            INSERT INTO keys_v3 SELECT id, name, kind, position, created_at, public_key, address, path, parent_id, storage,
                                       preset, source, xpub, revealed_at, rotation_flag, retired, successor_id FROM keys;
            DROP TABLE keys;
            ALTER TABLE keys_v3 RENAME TO keys;
            CREATE UNIQUE INDEX keys_by_name ON keys(name);
            CREATE UNIQUE INDEX keys_by_position ON keys(position);
            CREATE INDEX keys_by_parent ON keys(parent_id);
            CREATE INDEX keys_by_successor ON keys(successor_id);
            CREATE TABLE secrets_v3 (
                key_id                INTEGER PRIMARY KEY REFERENCES keys(id) ON DELETE CASCADE,
                kind                  TEXT NOT NULL CHECK (kind IN ('mnemonic', 'seed', 'privkey', 'mpc-share')),
                nonce                 BLOB NOT NULL CHECK (length(nonce) = 12),
                ciphertext            BLOB NOT NULL CHECK (length(ciphertext) > 16),
                passphrase_nonce      BLOB CHECK (passphrase_nonce IS NULL OR length(passphrase_nonce) = 12),
                passphrase_ciphertext BLOB CHECK (passphrase_ciphertext IS NULL OR length(passphrase_ciphertext) >= 16),
                sealed_at             INTEGER NOT NULL,
                CHECK ((passphrase_nonce IS NULL) = (passphrase_ciphertext IS NULL))
            );
            INSERT INTO secrets_v3 SELECT key_id, kind, nonce, ciphertext, passphrase_nonce, passphrase_ciphertext, sealed_at
                                   FROM secrets;
            DROP TABLE secrets;
            ALTER TABLE secrets_v3 RENAME TO secrets;
            CREATE TABLE mpc_identity (
                id         INTEGER PRIMARY KEY CHECK (id = 1),
                public_key BLOB NOT NULL CHECK (length(public_key) = 32),
                nonce      BLOB NOT NULL CHECK (length(nonce) = 12),
                ciphertext BLOB NOT NULL CHECK (length(ciphertext) = 80),
                created_at INTEGER NOT NULL
            );
            CREATE TABLE mpc_peers (
                name          TEXT PRIMARY KEY NOT NULL COLLATE NOCASE CHECK (length(name) BETWEEN 1 AND 64),
                role          TEXT NOT NULL CHECK (role IN ('p1', 'p2')),
                endpoint      TEXT,
                identity_key  BLOB NOT NULL UNIQUE CHECK (length(identity_key) = 32),
                n_ped         BLOB NOT NULL CHECK (length(n_ped) = 256),
                g             BLOB NOT NULL CHECK (length(g) = 256),
                h             BLOB NOT NULL CHECK (length(h) = 256),
                paired_at     INTEGER NOT NULL,
                misbehaved_at INTEGER,
                misbehaviour  TEXT
            );
            CREATE TABLE mpc_keys (
                key_id        INTEGER PRIMARY KEY REFERENCES keys(id) ON DELETE CASCADE,
                role          TEXT NOT NULL CHECK (role IN ('p1', 'p2')),
                peer          TEXT NOT NULL COLLATE NOCASE REFERENCES mpc_peers(name) ON DELETE RESTRICT,
                kind          TEXT NOT NULL CHECK (kind IN ('ecdsa', 'hd-master')),
                q             BLOB NOT NULL CHECK (length(q) = 33),
                q_other       BLOB NOT NULL CHECK (length(q_other) = 33),
                n             BLOB NOT NULL CHECK (length(n) = 256),
                c_key         BLOB NOT NULL CHECK (length(c_key) = 512),
                chain_code    BLOB CHECK (chain_code IS NULL OR length(chain_code) = 32),
                sid           BLOB NOT NULL CHECK (length(sid) = 32),
                transcript    BLOB NOT NULL CHECK (length(transcript) = 32),
                status        TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'locked')),
                locked_reason TEXT,
                locked_at     INTEGER,
                created_at    INTEGER NOT NULL
            );
            CREATE INDEX mpc_keys_by_q ON mpc_keys(q);
            CREATE TABLE mpc_sessions (
                id          INTEGER PRIMARY KEY,
                kind        TEXT NOT NULL CHECK (kind IN ('pair', 'dkg', 'sign')),
                role        TEXT NOT NULL CHECK (role IN ('p1', 'p2')),
                peer        TEXT NOT NULL,
                key_name    TEXT,
                digest      BLOB CHECK (digest IS NULL OR length(digest) = 32),
                path        TEXT,
                state       TEXT NOT NULL CHECK (state IN ('done', 'aborted', 'refused', 'failed')),
                check_name  TEXT,
                error       TEXT,
                started_at  INTEGER NOT NULL,
                finished_at INTEGER NOT NULL
            );
            CREATE INDEX mpc_sessions_by_time ON mpc_sessions(finished_at);
            """
        ),
        // Two-party sessions are written when they start ('open', with the process that runs them)
        // and finished when they end, so a killed process leaves a row the next run sweeps to
        // 'interrupted' (docs/two-party.md, "The audit trail"); an old row keeps its state.
        (
            "v4-two-party-open-sessions",
            """
            CREATE TABLE mpc_sessions_v4 (
                id          INTEGER PRIMARY KEY,
                kind        TEXT NOT NULL CHECK (kind IN ('pair', 'dkg', 'sign')),
                role        TEXT NOT NULL CHECK (role IN ('p1', 'p2')),
                peer        TEXT NOT NULL,
                key_name    TEXT,
                digest      BLOB CHECK (digest IS NULL OR length(digest) = 32),
                path        TEXT,
                state       TEXT NOT NULL CHECK (state IN ('open', 'done', 'aborted', 'refused', 'failed', 'interrupted')),
                check_name  TEXT,
                error       TEXT,
                started_at  INTEGER NOT NULL,
                finished_at INTEGER,
                pid         INTEGER,
                CHECK ((state = 'open') = (finished_at IS NULL)),
                CHECK (state <> 'open' OR pid IS NOT NULL)
            );
            INSERT INTO mpc_sessions_v4 (id, kind, role, peer, key_name, digest, path, state, check_name, error, started_at, finished_at)
                SELECT id, kind, role, peer, key_name, digest, path, state, check_name, error, started_at, finished_at FROM mpc_sessions;
            DROP TABLE mpc_sessions;
            ALTER TABLE mpc_sessions_v4 RENAME TO mpc_sessions;
            CREATE INDEX mpc_sessions_by_time ON mpc_sessions(finished_at);
            CREATE INDEX mpc_sessions_open ON mpc_sessions(state) WHERE state = 'open';
            """
        ),
        // EIP-7702 authorizations are a kind of signature of their own (docs/eth-signing.md).
        (
            "v5-history-authorizations",
            """
            CREATE TABLE history_v5 (
                id         INTEGER PRIMARY KEY,
                created_at INTEGER NOT NULL,
                key_id     INTEGER REFERENCES keys(id) ON DELETE SET NULL,
                key_name   TEXT NOT NULL COLLATE NOCASE,
                kind       TEXT NOT NULL CHECK (kind IN ('hash', 'message', 'typed', 'transaction', 'authorization')),
                digest     BLOB NOT NULL,
                signature  BLOB NOT NULL,
                signer     TEXT NOT NULL,
                verified   INTEGER NOT NULL CHECK (verified IN (0, 1)),
                chain_id   INTEGER
            );
            INSERT INTO history_v5 (id, created_at, key_id, key_name, kind, digest, signature, signer, verified, chain_id)
                SELECT id, created_at, key_id, key_name, kind, digest, signature, signer, verified, chain_id FROM history;
            DROP TABLE history;
            ALTER TABLE history_v5 RENAME TO history;
            CREATE INDEX history_by_time ON history(created_at);
            CREATE INDEX history_by_key ON history(key_name, created_at);
            CREATE INDEX history_by_kind ON history(kind, created_at);
            CREATE INDEX history_by_key_id ON history(key_id);
            """
        ),
        // Bitcoin signature hashes, one row per PSBT input signed (docs/bitcoin.md).
        (
            "v6-history-bitcoin",
            """
            CREATE TABLE history_v6 (
                id         INTEGER PRIMARY KEY,
                created_at INTEGER NOT NULL,
                key_id     INTEGER REFERENCES keys(id) ON DELETE SET NULL,
                key_name   TEXT NOT NULL COLLATE NOCASE,
                kind       TEXT NOT NULL CHECK (kind IN ('hash', 'message', 'typed', 'transaction', 'authorization', 'bitcoin')),
                digest     BLOB NOT NULL,
                signature  BLOB NOT NULL,
                signer     TEXT NOT NULL,
                verified   INTEGER NOT NULL CHECK (verified IN (0, 1)),
                chain_id   INTEGER
            );
            INSERT INTO history_v6 (id, created_at, key_id, key_name, kind, digest, signature, signer, verified, chain_id)
                SELECT id, created_at, key_id, key_name, kind, digest, signature, signer, verified, chain_id FROM history;
            DROP TABLE history;
            ALTER TABLE history_v6 RENAME TO history;
            CREATE INDEX history_by_time ON history(created_at);
            CREATE INDEX history_by_key ON history(key_name, created_at);
            CREATE INDEX history_by_kind ON history(kind, created_at);
            CREATE INDEX history_by_key_id ON history(key_id);
            """
        ),
        (
            "v7-signer-requests",
            """
            CREATE TABLE signer_requests (
                id         INTEGER PRIMARY KEY,
                created_at INTEGER NOT NULL,
                method     TEXT NOT NULL CHECK (length(method) BETWEEN 1 AND 64),
                caller     TEXT NOT NULL,
                key_name   TEXT NOT NULL COLLATE NOCASE,
                account    TEXT NOT NULL,
                outcome    TEXT NOT NULL CHECK (outcome IN ('approved', 'denied', 'expired', 'withdrawn', 'refused', 'failed')),
                decided_by TEXT NOT NULL,
                digest     BLOB CHECK (digest IS NULL OR length(digest) = 32),
                chain_id   INTEGER,
                value_wei  TEXT NOT NULL DEFAULT '0' CHECK (length(value_wei) BETWEEN 1 AND 78 AND value_wei NOT GLOB '*[^0-9]*'),
                sent       INTEGER NOT NULL CHECK (sent IN (0, 1)),
                tx_hash    BLOB CHECK (tx_hash IS NULL OR length(tx_hash) = 32)
            );
            CREATE INDEX signer_requests_by_time ON signer_requests(created_at);
            """
        ),
    ]

    /// A migrator with every migration registered. Foreign keys are checked after each
    /// migration, before it commits (GRDB's default `.deferred` checks).
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            let sql = migration.sql
            migrator.registerMigration(migration.name) { db in try db.execute(sql: sql) }
        }
        return migrator
    }
}
