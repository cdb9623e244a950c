// Joint keys (docs/two-party.md): the key generation with the co-signer, HD children of a joint
// master, and unlocking a locked key.
import Foundation
import KCSErrors
import MPCLink
import WalletCore
import WalletCrypto
import WalletMPC
import WalletStore

extension Session {
    /// A joint key made with the co-signer (`key.generate --two-party`): neither side ever holds it.
    public func generateTwoPartyKey(kind: TwoPartyKind, name: String?, cosigner: String?) throws -> KeyRecord {
        let store = try unlockedStore()
        if let name, try store.read({ try $0.findKey(named: name) }) != nil { throw StoreError.duplicateName(name) }
        let peer = try pairedCosigner(named: cosigner, store)
        let identity = try twoPartyIdentity(store)
        let party = KeyGenerationParty1(kind: kind, pid1: identity.pid, pid2: Hash.sha256(peer.identityKey))
        try audited(.dkg, role: .console, peer: peer.name, key: name, store: store) { _ in
            let channel = try openChannel(to: peer, identity: identity)
            // Rounds as they are: this console sends 1 and 3, the co-signer answers 2 and 4.
            prompts?.status("2-party DKG with \(peer.name): making a Paillier key for round 1 of 4…")
            try ChannelRun.run(party, over: channel, initiator: true) { step in
                self.prompts?.status(
                    "2-party DKG with \(peer.name): round \(step) of 4 sent, the co-signer answers round \(step + 1)…")
                if self.explainTwoParty {
                    TwoPartyTeaching.before(TwoPartyTeaching.dkg, step: step, first: 1).forEach(self.show)
                }
            }
            if explainTwoParty, let last = TwoPartyTeaching.dkg[4] { show(last) }
        }
        guard let share = party.share else { throw MPCError.badFrame(reason: "the key generation ended without a key") }
        let xpub = try share.chainCode.map { try ExtendedKey(publicKey: share.q, chainCode: $0).serialized(.xpub) }
        let parameters = TwoPartyKeyParameters(
            role: .console, peer: peer.name, kind: kind.rawValue, q: share.q.compressed,
            qOther: share.q2.compressed, n: share.paillier.publicKey.nBytes,
            cKey: share.cKey.fixedBytes(512), chainCode: share.chainCode, sid: share.sid,
            transcript: share.transcript)
        return try store.write { tx in
            try tx.addTwoPartyKey(
                NewKey(
                    name: name, kind: kind == .ecdsa ? .ecdsa : .hdMaster, source: .dkg,
                    storage: .twoParty(peer: peer.name), publicKey: share.q,
                    address: EthereumAddress(publicKey: share.q).checksummed,
                    path: kind == .hdMaster ? DerivationPath(absolute: true, []) : nil, extendedPublicKey: xpub),
                share: try share.secretBytes, parameters: parameters)
        }
    }

    /// An HD-CHILD of a two-party HD-MASTER at a non-hardened `path` (BIP-32 on the joint xpub).
    public func deriveTwoPartyChild(of masterName: String, path: DerivationPath, name: String?) throws -> KeyRecord {
        let store = try unlockedStore()
        return try store.write { tx in
            let master = try tx.key(named: masterName)
            guard case .twoParty(let peer) = master.storage, master.kind == .hdMaster,
                let parameters = try tx.twoPartyParameters(keyID: master.id), let chainCode = parameters.chainCode
            else {
                throw TwoPartyError.notTwoParty(name: masterName)
            }
            let (_, child) = try JointDerivation.derive(
                try PublicKey(bytes: parameters.q), chainCode: chainCode, path: path)
            return try tx.addKey(
                NewKey(
                    name: name
                        ?? "\(master.name)\(path.description.dropFirst())".replacingOccurrences(of: "/", with: "-"),
                    kind: .hdChild, source: .dkg, storage: .twoParty(peer: peer), publicKey: child,
                    address: EthereumAddress(publicKey: child).checksummed, path: path, parentID: master.id))
        }
    }

    /// `mpc.unlock`: clears the lock of a two-party key (its master's), after the person said yes.
    public func unlockTwoPartyKey(named name: String, yes: Bool) throws -> KeyRecord {
        let store = try unlockedStore()
        let (record, master, parameters) = try store.read { tx in
            let record = try tx.key(named: name)
            let (master, _) = try twoPartySigning(record, tx)
            guard let parameters = try tx.twoPartyParameters(keyID: master.id) else {
                throw TwoPartyError.notTwoParty(name: name)
            }
            return (record, master, parameters)
        }
        guard parameters.status == .locked else { return record }
        try confirm("Unlock \(master.name) (locked: \(parameters.lockedReason ?? "locked"))?", yes: yes)
        try store.write { try $0.setTwoPartyKeyLock(keyID: master.id, reason: nil) }
        return record
    }

    /// The joint key a stored key signs with: the key itself, or its two-party master and the path.
    func twoPartySigning(
        _ record: KeyRecord, _ tx: StoreTransaction
    ) throws -> (master: KeyRecord, path: DerivationPath) {
        if record.kind == .hdChild, let parentID = record.parentID, let path = record.path {
            return (try tx.key(id: parentID), path)
        }
        return (record, DerivationPath(absolute: true, []))
    }
}
