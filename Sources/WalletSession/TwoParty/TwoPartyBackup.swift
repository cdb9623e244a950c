import Foundation
import WalletCore
import WalletCrypto
import WalletMPC
import WalletStore

// Backing up one's own share of a two-party key (docs/two-party.md, "Backup"): `mpc.export` writes
// the share with the key's public parameters and the peer's pinned record, sealed under a
// passphrase of its own (scrypt + AES-256-GCM, the parameters bound as associated data), as a
// 0600 JSON file; `mpc.import` restores it into another home. Each side backs up its own share;
// one share alone is useless to a thief, and to its owner without the other side.

/// Why a backup file is refused.
public enum TwoPartyBackupError: WalletError, Equatable {
    case notABackup(path: String, reason: String)
    case wrongPassphrase(path: String)
    case tooExpensive(field: String, given: Int, ceiling: Int)
    case conflictingPeer(name: String)
    case alreadyStored(name: String)
    case fileExists(path: String)

    public var id: String {
        switch self {
        case .notABackup: "mpc.notABackup"
        case .wrongPassphrase: "mpc.backupPassphrase"
        case .tooExpensive: "mpc.backupTooExpensive"
        case .conflictingPeer: "mpc.conflictingPeer"
        case .alreadyStored: "mpc.alreadyStored"
        case .fileExists: "mpc.fileExists"
        }
    }

    public var description: String {
        switch self {
        case .notABackup(let path, let reason): "\(path) is not a kcs two-party share backup: \(reason)"
        case .wrongPassphrase(let path): "the passphrase does not open \(path) (or the file was changed)"
        case .tooExpensive(let field, let given, let ceiling):
            "the backup's scrypt \(field) is \(given), more than the \(ceiling) kcs accepts"
        case .conflictingPeer(let name):
            "a peer called \(name) is already paired here with another identity; import with the other home's peer removed, or pair again"
        case .alreadyStored(let name): "this joint key is already stored here, as \(name)"
        case .fileExists(let path): "\(path) exists; give another file or --force"
        }
    }
}

extension Session {
    static let backupFormat = "kcs-two-party-share"

    /// Writes this home's share of `keyName` (a joint ECDSA or HD-MASTER key) to `path`.
    public func exportTwoPartyShare(
        keyName: String, to path: String, passphrase: Secret, force: Bool, light: Bool = false
    ) throws -> KeyRecord {
        if !force, FileManager.default.fileExists(atPath: path) { throw TwoPartyBackupError.fileExists(path: path) }
        let store = try unlockedStore()
        let (record, share, parameters, peer) = try store.read { tx in
            let record = try tx.key(named: keyName)
            guard case .twoParty = record.storage, record.kind != .hdChild else {
                throw TwoPartyError.notTwoParty(name: keyName)
            }
            let (share, parameters) = try tx.openTwoPartyShare(of: record)
            guard let peer = try tx.twoPartyPeer(named: parameters.peer) else {
                throw TwoPartyError.unknownCosigner(name: parameters.peer, known: [])
            }
            return (record, share, parameters, peer)
        }
        let (n, r, p) = light ? (1 << 14, 8, 1) : (1 << 18, 8, 1)
        let salt = random.bytes(32), nonce = random.bytes(12)
        prompts?.status("sealing the share (scrypt n=\(n))…")
        let key = try KeyDerivation.scrypt(password: passphrase, salt: salt, n: n, r: r, p: p, length: 32)
        let sealed = try AESCipher.gcmSeal(
            share, key: key, nonce: nonce, aad: Array(("kcs/2p-backup/v1/" + Hex.encode(parameters.binding)).utf8))
        let hex = { (b: [UInt8]) in Hex.encode(b) }
        var object: [String: Any] = [
            "format": Session.backupFormat, "version": 1, "name": record.name, "address": record.address ?? "",
            "parameters": [
                "role": parameters.role.rawValue, "peer": parameters.peer, "kind": parameters.kind,
                "q": hex(parameters.q),
                "qOther": hex(parameters.qOther), "n": hex(parameters.n), "cKey": hex(parameters.cKey),
                "sid": hex(parameters.sid), "transcript": hex(parameters.transcript),
            ],
            "peer": [
                "name": peer.name, "role": peer.role.rawValue, "endpoint": peer.endpoint ?? "",
                "identityKey": hex(peer.identityKey),
                "nPed": hex(peer.nPed), "g": hex(peer.g), "h": hex(peer.h),
            ],
            "crypto": [
                "kdf": "scrypt", "n": n, "r": r, "p": p, "salt": hex(salt), "cipher": "aes-256-gcm",
                "nonce": hex(nonce),
                "ciphertext": hex(sealed),
            ],
        ]
        if let cc = parameters.chainCode, var params = object["parameters"] as? [String: Any] {
            params["chainCode"] = hex(cc)
            object["parameters"] = params
        }
        if let xpub = record.extendedPublicKey { object["xpub"] = xpub }
        let data = try JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        try AtomicFile.write(Array(data) + [0x0a], to: path, mode: 0o600)
        return record
    }

    /// Restores a share written by `exportTwoPartyShare` (its peer pinned too, when this home has
    /// none of that name).
    public func importTwoPartyShare(from path: String, passphrase: Secret, name: String?) throws -> KeyRecord {
        guard let data = FileManager.default.contents(atPath: path), data.count < 1 << 20,
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else {
            throw TwoPartyBackupError.notABackup(path: path, reason: "not a JSON object of at most 1 MiB")
        }
        func bad(_ why: String) -> TwoPartyBackupError { .notABackup(path: path, reason: why) }
        guard object["format"] as? String == Session.backupFormat, object["version"] as? Int == 1 else {
            throw bad("another format or version")
        }
        guard let p = object["parameters"] as? [String: Any], let peerObject = object["peer"] as? [String: Any],
            let crypto = object["crypto"] as? [String: Any]
        else { throw bad("parameters, peer or crypto missing") }
        func bytes(_ o: [String: Any], _ key: String, _ count: Int?) throws -> [UInt8] {
            guard let text = o[key] as? String, let b = try? Hex.decode(text), count.map({ b.count == $0 }) ?? true
            else {
                throw bad("\(key) is not \(count.map { "\($0) bytes of " } ?? "")hex")
            }
            return b
        }
        func string(_ o: [String: Any], _ key: String) throws -> String {
            guard let s = o[key] as? String else { throw bad("\(key) is missing") }
            return s
        }
        func role(_ o: [String: Any]) throws -> TwoPartyRole {
            guard let role = TwoPartyRole(rawValue: try string(o, "role")) else { throw bad("an unknown role") }
            return role
        }
        let parameters = TwoPartyKeyParameters(
            role: try role(p), peer: try string(p, "peer"), kind: try string(p, "kind"), q: try bytes(p, "q", 33),
            qOther: try bytes(p, "qOther", 33), n: try bytes(p, "n", 256), cKey: try bytes(p, "cKey", 512),
            chainCode: p["chainCode"] == nil ? nil : try bytes(p, "chainCode", 32), sid: try bytes(p, "sid", 32),
            transcript: try bytes(p, "transcript", 32))
        guard let kind = TwoPartyKind(rawValue: parameters.kind) else { throw bad("an unknown kind") }
        let peer = TwoPartyPeer(
            name: try string(peerObject, "name"), role: try role(peerObject),
            endpoint: (peerObject["endpoint"] as? String).flatMap { $0.isEmpty ? nil : $0 },
            identityKey: try bytes(peerObject, "identityKey", 32), nPed: try bytes(peerObject, "nPed", 256),
            g: try bytes(peerObject, "g", 256), h: try bytes(peerObject, "h", 256), pairedAt: clock())
        guard peer.name.lowercased() == parameters.peer.lowercased(), peer.role == parameters.role else {
            throw bad("the peer does not match the key")
        }
        // Untrusted KDF parameters: a bounded cost (at most 1 GiB and 2^20 rounds).
        guard crypto["kdf"] as? String == "scrypt", crypto["cipher"] as? String == "aes-256-gcm",
            let n = crypto["n"] as? Int, let r = crypto["r"] as? Int, let pp = crypto["p"] as? Int
        else { throw bad("not scrypt with AES-256-GCM") }
        guard n >= 1 << 10, n <= 1 << 20, n & (n - 1) == 0 else {
            throw TwoPartyBackupError.tooExpensive(field: "n", given: n, ceiling: 1 << 20)
        }
        guard (1...16).contains(r) else { throw TwoPartyBackupError.tooExpensive(field: "r", given: r, ceiling: 16) }
        guard (1...4).contains(pp) else { throw TwoPartyBackupError.tooExpensive(field: "p", given: pp, ceiling: 4) }
        let salt = try bytes(crypto, "salt", 32), nonce = try bytes(crypto, "nonce", 12),
            sealed = try bytes(crypto, "ciphertext", nil)
        let store = try unlockedStore()
        prompts?.status("opening the share (scrypt n=\(n))…")
        let key = try KeyDerivation.scrypt(password: passphrase, salt: salt, n: n, r: r, p: pp, length: 32)
        guard
            let share = try? AESCipher.gcmOpen(
                sealed, key: key, nonce: nonce,
                aad: Array(("kcs/2p-backup/v1/" + Hex.encode(parameters.binding)).utf8))
        else {
            throw TwoPartyBackupError.wrongPassphrase(path: path)
        }
        // The share must fit its public parameters (x·G, p·q = N).
        let q = try PublicKey(bytes: parameters.q), other = try PublicKey(bytes: parameters.qOther)
        if parameters.role == .console {
            _ = try Party1Share(
                kind: kind, q: q, q2: other, secret: share, n: parameters.n, cKey: parameters.cKey,
                chainCode: parameters.chainCode, sid: parameters.sid, transcript: parameters.transcript)
        } else {
            _ = try Party2Share(
                kind: kind, q: q, q1: other, secret: share, n: parameters.n, cKey: parameters.cKey,
                chainCode: parameters.chainCode, sid: parameters.sid, transcript: parameters.transcript)
        }
        let xpub = try parameters.chainCode.map { try ExtendedKey(publicKey: q, chainCode: $0).serialized(.xpub) }
        return try store.write { tx in
            if let existing = try tx.twoPartyKey(q: parameters.q, peer: parameters.peer) {
                throw TwoPartyBackupError.alreadyStored(name: existing.0.name)
            }
            if let known = try tx.twoPartyPeer(named: peer.name) {
                guard known.identityKey == peer.identityKey else {
                    throw TwoPartyBackupError.conflictingPeer(name: peer.name)
                }
            } else {
                try tx.saveTwoPartyPeer(peer)
            }
            return try tx.addTwoPartyKey(
                NewKey(
                    name: name ?? (object["name"] as? String), kind: kind == .ecdsa ? .ecdsa : .hdMaster,
                    source: .dkg, storage: .twoParty(peer: parameters.peer), publicKey: q,
                    address: EthereumAddress(publicKey: q).checksummed,
                    path: kind == .hdMaster ? DerivationPath(absolute: true, []) : nil, extendedPublicKey: xpub),
                share: share, parameters: parameters)
        }
    }
}
