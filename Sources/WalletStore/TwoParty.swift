// Two-party keys in the store (docs/two-party.md, "Storage"): this home's Ed25519 identity
// (sealed), the peers it paired with (their pinned identity key and the unknown-order group of the
// signing proof), and each joint key's public parameters beside its `keys` row; the share itself
// is the key's `mpc-share` secret, sealed with the vault key like any secret, its payload starting
// with a hash of the public parameters so a row swapped by someone with write access to kcs.db
// (another Paillier modulus, another c_key) is refused instead of used.
import Foundation
import GRDB
import WalletCrypto

/// Our role in a two-party key or pairing (the `role` CHECK of `mpc_peers`, `mpc_keys` and
/// `mpc_sessions`): P1 is the console, P2 its co-signer.
public enum TwoPartyRole: String, Sendable, CaseIterable, DatabaseValueConvertible {
    case console = "p1"
    case cosigner = "p2"
}

/// What a two-party session did (the `kind` CHECK of `mpc_sessions`).
public enum TwoPartySessionKind: String, Sendable, CaseIterable, DatabaseValueConvertible {
    case pair, dkg, sign
}

/// How a two-party session stands or ended (the `state` CHECK of `mpc_sessions`): `open` while
/// it runs, `done`, `aborted` (a check failed here or there), `refused` (the co-signer said no),
/// `failed` (the connection: unreachable, a time-out, closed) or `interrupted` (its process was
/// killed; swept by the next run).
public enum TwoPartySessionState: String, Sendable, CaseIterable, DatabaseValueConvertible {
    case open, done, aborted, refused, failed, interrupted
}

/// Whether a joint key signs (the `status` CHECK of `mpc_keys`).
public enum TwoPartyKeyStatus: String, Sendable, CaseIterable, DatabaseValueConvertible {
    case active, locked
}

/// A paired co-signer (our role p1) or console (our role p2).
public struct TwoPartyPeer: Sendable, Equatable {
    public let name: String
    /// Our role with this peer: the console (P1) or its co-signer (P2).
    public let role: TwoPartyRole
    /// Where it listens (a console's record of its co-signer); nil on the co-signer's side.
    public let endpoint: String?
    /// Its pinned Ed25519 identity public key.
    public let identityKey: [UInt8]
    /// The unknown-order group of the signing proof (N_ped, g, h), 256 bytes each.
    public let nPed: [UInt8], g: [UInt8], h: [UInt8]
    public let pairedAt: Date
    /// When and how it failed a check of the protocol (a co-signer that lied), if ever.
    public let misbehavedAt: Date?
    public let misbehaviour: String?

    public init(
        name: String, role: TwoPartyRole, endpoint: String?, identityKey: [UInt8], nPed: [UInt8], g: [UInt8],
        h: [UInt8],
        pairedAt: Date = Date(), misbehavedAt: Date? = nil, misbehaviour: String? = nil
    ) {
        self.name = name
        self.role = role
        self.endpoint = endpoint
        self.identityKey = identityKey
        self.nPed = nPed
        self.g = g
        self.h = h
        self.pairedAt = pairedAt
        self.misbehavedAt = misbehavedAt
        self.misbehaviour = misbehaviour
    }
}

/// A joint key's public parameters (bytes as the protocol writes them).
public struct TwoPartyKeyParameters: Sendable, Equatable {
    public let role: TwoPartyRole
    public let peer: String
    /// `ecdsa` or `hd-master`.
    public let kind: String
    public let q: [UInt8], qOther: [UInt8], n: [UInt8], cKey: [UInt8]
    public let chainCode: [UInt8]?
    public let sid: [UInt8], transcript: [UInt8]
    public var status: TwoPartyKeyStatus = .active
    public var lockedReason: String?

    public init(
        role: TwoPartyRole, peer: String, kind: String, q: [UInt8], qOther: [UInt8], n: [UInt8], cKey: [UInt8],
        chainCode: [UInt8]?,
        sid: [UInt8], transcript: [UInt8], status: TwoPartyKeyStatus = .active, lockedReason: String? = nil
    ) {
        self.role = role
        self.peer = peer
        self.kind = kind
        self.q = q
        self.qOther = qOther
        self.n = n
        self.cKey = cKey
        self.chainCode = chainCode
        self.sid = sid
        self.transcript = transcript
        self.status = status
        self.lockedReason = lockedReason
    }

    /// SHA-256 over the role, both points, N, c_key, the chain code and the peer: bound into the
    /// sealed share.
    public var binding: [UInt8] {
        var data = Array("kcs/2p-share/v1".utf8)
        for part in [Array(role.rawValue.utf8), q, qOther, n, cKey, chainCode ?? [], Array(peer.lowercased().utf8)] {
            let n = UInt32(part.count)
            data += [UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] + part
        }
        return Hash.sha256(data)
    }
}

extension StoreTransaction {
    // MARK: identity

    /// This home's identity: its public key and (unsealed) 64-byte secret key, nil when none yet.
    public func twoPartyIdentity() throws(StoreError) -> (publicKey: [UInt8], secretKey: Secret)? {
        try storeErrors {
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT public_key, nonce, ciphertext FROM mpc_identity WHERE id = 1")
            else { return nil }
            let kek = try store.requireKEK(db)
            let sealed = Sealed(nonce: row.bytes("nonce") ?? [], ciphertext: row.bytes("ciphertext") ?? [])
            guard let secret = store.open(sealed, with: kek, aad: SealingContext.identity), secret.count == 64 else {
                throw StoreError.secretTampered(name: "the two-party identity")
            }
            return (row.bytes("public_key") ?? [], secret)
        }
    }

    /// The identity's public key without unsealing (nil when none yet).
    public func twoPartyIdentityKey() throws(StoreError) -> [UInt8]? {
        try storeErrors {
            try Row.fetchOne(db, sql: "SELECT public_key FROM mpc_identity WHERE id = 1")?.bytes("public_key")
        }
    }

    /// Stores this home's identity (once).
    public func saveTwoPartyIdentity(publicKey: [UInt8], secretKey: Secret) throws(StoreError) {
        guard publicKey.count == 32, secretKey.count == 64 else {
            throw .invalidKey(field: "identity", reason: "must be an Ed25519 key pair")
        }
        try storeErrors {
            let kek = try store.requireKEK(db)
            let sealed = try store.seal(secretKey, with: kek, aad: SealingContext.identity)
            try db.execute(
                sql: "INSERT INTO mpc_identity (id, public_key, nonce, ciphertext, created_at) VALUES (1, ?, ?, ?, ?)",
                arguments: [Data(publicKey), Data(sealed.nonce), Data(sealed.ciphertext), nowMS])
        }
    }

    // MARK: peers

    /// Pins a peer (replacing an earlier record of the same name).
    public func saveTwoPartyPeer(_ peer: TwoPartyPeer) throws(StoreError) {
        if let problem = KeyNaming.problem(with: peer.name) { throw .invalidName(given: peer.name, reason: problem) }
        try storeErrors {
            try db.execute(
                sql: """
                    INSERT INTO mpc_peers (name, role, endpoint, identity_key, n_ped, g, h, paired_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(name) DO UPDATE SET role = excluded.role, endpoint = excluded.endpoint,
                        identity_key = excluded.identity_key, n_ped = excluded.n_ped, g = excluded.g, h = excluded.h,
                        paired_at = excluded.paired_at, misbehaved_at = NULL, misbehaviour = NULL
                    """,
                arguments: [
                    peer.name, peer.role, peer.endpoint, Data(peer.identityKey), Data(peer.nPed), Data(peer.g),
                    Data(peer.h),
                    Timestamp.milliseconds(peer.pairedAt),
                ])
        }
    }

    private func peer(from row: Row) -> TwoPartyPeer {
        TwoPartyPeer(
            name: row["name"], role: row["role"], endpoint: row["endpoint"],
            identityKey: row.bytes("identity_key") ?? [],
            nPed: row.bytes("n_ped") ?? [], g: row.bytes("g") ?? [], h: row.bytes("h") ?? [],
            pairedAt: Timestamp.date(row["paired_at"]),
            misbehavedAt: (row["misbehaved_at"] as Int64?).map(Timestamp.date), misbehaviour: row["misbehaviour"])
    }

    /// The peer called `name` (any case), nil when none.
    public func twoPartyPeer(named name: String) throws(StoreError) -> TwoPartyPeer? {
        try storeErrors {
            try Row.fetchOne(db, sql: "SELECT * FROM mpc_peers WHERE name = ?", arguments: [name]).map(peer(from:))
        }
    }

    /// The peer with this identity key, nil when none.
    public func twoPartyPeer(identityKey: [UInt8]) throws(StoreError) -> TwoPartyPeer? {
        try storeErrors {
            try Row.fetchOne(db, sql: "SELECT * FROM mpc_peers WHERE identity_key = ?", arguments: [Data(identityKey)])
                .map(peer(from:))
        }
    }

    /// Every peer, by name.
    public func twoPartyPeers() throws(StoreError) -> [TwoPartyPeer] {
        try storeErrors { try Row.fetchAll(db, sql: "SELECT * FROM mpc_peers ORDER BY name").map(peer(from:)) }
    }

    /// Records that `name` failed a check of the protocol (shown by `mpc.peers`; the next signing
    /// with it asks first).
    public func markTwoPartyPeerMisbehaved(_ name: String, reason: String) throws(StoreError) {
        try storeErrors {
            try db.execute(
                sql: "UPDATE mpc_peers SET misbehaved_at = ?, misbehaviour = ? WHERE name = ?",
                arguments: [nowMS, reason, name])
        }
    }

    // MARK: joint keys

    /// Adds a joint key: its `keys` row, its sealed share (bound to `parameters`) and its public
    /// parameters, in this transaction.
    public func addTwoPartyKey(
        _ new: NewKey, share: Secret, parameters: TwoPartyKeyParameters
    ) throws(StoreError) -> KeyRecord {
        guard case .twoParty(let named)? = new.storage, named.lowercased() == parameters.peer.lowercased() else {
            throw .invalidKey(field: "storage", reason: "must be 2p:\(parameters.peer) for this joint key")
        }
        guard try twoPartyPeer(named: parameters.peer) != nil else {
            throw .invalidKey(field: "peer", reason: "no paired peer is called \(parameters.peer)")
        }
        let payload = Secret(count: 32 + share.count) { buf in
            let bytes = buf.bindMemory(to: UInt8.self)
            for (i, b) in parameters.binding.enumerated() { bytes[i] = b }
            share.withUnsafeBytes { s in for i in 0..<share.count { bytes[32 + i] = s[i] } }
        }
        let key = try addKey(new, secret: KeySecret(kind: .mpcShare, payload: payload))
        try storeErrors {
            try db.execute(
                sql: """
                    INSERT INTO mpc_keys (key_id, role, peer, kind, q, q_other, n, c_key, chain_code, sid, transcript, status, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?)
                    """,
                arguments: [
                    key.id, parameters.role, parameters.peer, parameters.kind, Data(parameters.q),
                    Data(parameters.qOther),
                    Data(parameters.n), Data(parameters.cKey), parameters.chainCode.map { Data($0) },
                    Data(parameters.sid),
                    Data(parameters.transcript), nowMS,
                ])
        }
        return key
    }

    private func parameters(from row: Row) -> TwoPartyKeyParameters {
        TwoPartyKeyParameters(
            role: row["role"], peer: row["peer"], kind: row["kind"], q: row.bytes("q") ?? [],
            qOther: row.bytes("q_other") ?? [],
            n: row.bytes("n") ?? [], cKey: row.bytes("c_key") ?? [], chainCode: row.bytes("chain_code"),
            sid: row.bytes("sid") ?? [], transcript: row.bytes("transcript") ?? [], status: row["status"],
            lockedReason: row["locked_reason"])
    }

    /// The public parameters of joint key `keyID`, nil when it is not one.
    public func twoPartyParameters(keyID: Int64) throws(StoreError) -> TwoPartyKeyParameters? {
        try storeErrors {
            try Row.fetchOne(db, sql: "SELECT * FROM mpc_keys WHERE key_id = ?", arguments: [keyID]).map(
                parameters(from:))
        }
    }

    /// The joint key with public key `q` shared with `peer` (a co-signer's lookup), nil when none.
    public func twoPartyKey(q: [UInt8], peer: String) throws(StoreError) -> (KeyRecord, TwoPartyKeyParameters)? {
        let found: (Int64, TwoPartyKeyParameters)? = try storeErrors {
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM mpc_keys WHERE q = ? AND peer = ?", arguments: [Data(q), peer])
            else {
                return nil
            }
            return (row["key_id"], parameters(from: row))
        }
        guard let found else { return nil }
        return (try key(id: found.0), found.1)
    }

    /// This home's share of `key`, after checking it was sealed with the parameters stored now.
    public func openTwoPartyShare(
        of key: KeyRecord
    ) throws(StoreError) -> (share: Secret, parameters: TwoPartyKeyParameters) {
        guard let parameters = try twoPartyParameters(keyID: key.id) else {
            throw .invalidKey(field: "key", reason: "\(key.name) is not a two-party key")
        }
        let secret = try openSecret(of: key)
        guard secret.kind == .mpcShare, secret.payload.count > 32 else { throw .secretTampered(name: key.name) }
        let (binding, share) = secret.payload.withUnsafeBytes { raw in
            (Array(raw[0..<32]), Secret(bytes: raw[32...]))
        }
        guard binding == parameters.binding else { throw .secretTampered(name: key.name) }
        return (share, parameters)
    }

    /// Locks joint key `keyID` (a signature that failed its check after a valid proof: the paper's
    /// rule); `reason` nil unlocks it.
    public func setTwoPartyKeyLock(keyID: Int64, reason: String?) throws(StoreError) {
        try storeErrors {
            try db.execute(
                sql: "UPDATE mpc_keys SET status = ?, locked_reason = ?, locked_at = ? WHERE key_id = ?",
                arguments: [
                    reason == nil ? TwoPartyKeyStatus.active : .locked, reason, reason == nil ? nil : nowMS, keyID,
                ])
        }
    }
}

/// One two-party session as the audit trail keeps it (`mpc.sessions`): what was asked, with whom,
/// and how it ended — a co-signer's record of what it co-signed, and every abort on either side.
public struct TwoPartySession: Sendable, Equatable {
    public let kind: TwoPartySessionKind
    public let role: TwoPartyRole
    public let peer: String
    public let keyName: String?
    public let digest: [UInt8]?
    public let path: String?
    public let state: TwoPartySessionState
    public let check: String?
    public let error: String?
    public let startedAt: Date
    /// Nil while open.
    public let finishedAt: Date?

    public init(
        kind: TwoPartySessionKind, role: TwoPartyRole, peer: String, keyName: String?, digest: [UInt8]?, path: String?,
        state: TwoPartySessionState,
        check: String?, error: String?, startedAt: Date, finishedAt: Date?
    ) {
        self.kind = kind
        self.role = role
        self.peer = peer
        self.keyName = keyName
        self.digest = digest
        self.path = path
        self.state = state
        self.check = check
        self.error = error
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }
}

extension StoreTransaction {
    /// Writes session `s` as started ('open', run by process `pid`); `finishTwoPartySession`
    /// ends it. Returns its id.
    public func openTwoPartySession(_ s: TwoPartySession, pid: Int32) throws(StoreError) -> Int64 {
        try storeErrors {
            try db.execute(
                sql: """
                    INSERT INTO mpc_sessions (kind, role, peer, key_name, digest, path, state, started_at, pid)
                    VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?)
                    """,
                arguments: [
                    s.kind, s.role, s.peer, s.keyName, s.digest.map { Data($0) }, s.path,
                    Timestamp.milliseconds(s.startedAt), Int64(pid),
                ])
            return db.lastInsertedRowID
        }
    }

    /// Names the key an open session made (the co-signer's share, stored before its confirmation leaves).
    public func setTwoPartySessionKey(id: Int64, keyName: String) throws(StoreError) {
        try storeErrors {
            try db.execute(sql: "UPDATE mpc_sessions SET key_name = ? WHERE id = ?", arguments: [keyName, id])
        }
    }

    /// Ends session `id` as `state` (done, aborted, refused, failed).
    public func finishTwoPartySession(
        id: Int64, state: TwoPartySessionState, check: String?, error: String?, at: Date
    ) throws(StoreError) {
        try storeErrors {
            try db.execute(
                sql:
                    "UPDATE mpc_sessions SET state = ?, check_name = ?, error = ?, finished_at = ?, pid = NULL WHERE id = ?",
                arguments: [state, check, error.map { String($0.prefix(500)) }, Timestamp.milliseconds(at), id])
        }
    }

    /// The processes of the sessions still open.
    public func openTwoPartySessionPIDs() throws(StoreError) -> [Int32] {
        try storeErrors {
            try Int64.fetchAll(db, sql: "SELECT pid FROM mpc_sessions WHERE state = 'open'").map {
                Int32(truncatingIfNeeded: $0)
            }
        }
    }

    /// Sessions left open by a process that is gone (`alive` says which are not) become
    /// 'interrupted'; a key the co-signer stored in one (its share, before its confirmation could
    /// leave) is locked as `made-in-interrupted-session`: the console may never have received it.
    /// Returns the sessions swept.
    public func sweepInterruptedTwoPartySessions(
        alive: (Int32) -> Bool, at: Date
    ) throws(StoreError) -> [TwoPartySession] {
        try storeErrors {
            var swept: [TwoPartySession] = []
            for row in try Row.fetchAll(db, sql: "SELECT * FROM mpc_sessions WHERE state = 'open' ORDER BY id") {
                let pid = Int32(truncatingIfNeeded: row["pid"] as Int64? ?? 0)
                guard !alive(pid) else { continue }
                let id: Int64 = row["id"]
                let why = "the process (pid \(pid)) ended before the session did"
                try db.execute(
                    sql:
                        "UPDATE mpc_sessions SET state = 'interrupted', error = ?, finished_at = ?, pid = NULL WHERE id = ?",
                    arguments: [why, Timestamp.milliseconds(at), id])
                if row["kind"] as TwoPartySessionKind == .dkg, row["role"] as TwoPartyRole == .cosigner,
                    let name = row["key_name"] as String?
                {
                    try db.execute(
                        sql: """
                            UPDATE mpc_keys SET status = 'locked', locked_reason = 'made-in-interrupted-session', locked_at = ?
                            WHERE key_id = (SELECT id FROM keys WHERE name = ?)
                            """, arguments: [Timestamp.milliseconds(at), name])
                }
                swept.append(
                    session(
                        from: try Row.fetchOne(db, sql: "SELECT * FROM mpc_sessions WHERE id = ?", arguments: [id])!))
            }
            return swept
        }
    }

    private func session(from row: Row) -> TwoPartySession {
        TwoPartySession(
            kind: row["kind"], role: row["role"], peer: row["peer"], keyName: row["key_name"],
            digest: row.bytes("digest"),
            path: row["path"], state: row["state"], check: row["check_name"], error: row["error"],
            startedAt: Timestamp.date(row["started_at"]), finishedAt: (row["finished_at"] as Int64?).map(Timestamp.date)
        )
    }

    /// The newest `limit` sessions, newest first.
    public func twoPartySessions(limit: Int) throws(StoreError) -> [TwoPartySession] {
        try storeErrors {
            try Row.fetchAll(db, sql: "SELECT * FROM mpc_sessions ORDER BY id DESC LIMIT ?", arguments: [limit]).map(
                session(from:))
        }
    }
}
