import Foundation
import KCSErrors
import MPCLink
import WalletCore
import WalletCrypto
import WalletMPC
import WalletStore

// Two-party keys (docs/two-party.md): pairing with a co-signer, the joint key generation, HD
// children, signing with the co-signer as one more `Signer`, and the co-signer's own loop
// (`kcs cosigner serve`). The protocol is WalletMPC's; the channel MPCLink's; the store keeps the
// identity, the peers and each share sealed.

/// What the co-signer does with a request to sign.
public enum TwoPartyApproval: String, Sendable, CaseIterable {
    /// Shows what it is asked to sign and asks (a person at the co-signer's terminal).
    case ask
    /// Signs unattended (tests, scripts): every request is still shown and recorded.
    case all
}

/// Errors of two-party keys above the protocol.
public enum TwoPartyError: WalletError, Equatable {
    case noCosigner
    case unknownCosigner(name: String, known: [String])
    case notTwoParty(name: String)
    case locked(name: String, reason: String)
    /// The co-signer failed a check of the protocol before; a batch run cannot ask whether to sign with it.
    case peerMisbehaved(name: String, check: String)
    case unpairedPeer(fingerprint: String)
    case fingerprintsRejected
    case nameTaken(name: String, fingerprint: String)
    case noWholeKey(name: String)

    public var id: String {
        switch self {
        case .noCosigner: "mpc.noCosigner"
        case .unknownCosigner: "mpc.unknownCosigner"
        case .notTwoParty: "mpc.notTwoParty"
        case .locked: "mpc.keyLocked"
        case .peerMisbehaved: "mpc.peerMisbehaved"
        case .unpairedPeer: "mpc.unpairedPeer"
        case .fingerprintsRejected: "mpc.fingerprintsRejected"
        case .nameTaken: "mpc.nameTaken"
        case .noWholeKey: "mpc.noWholeKey"
        }
    }

    public var description: String {
        switch self {
        case .noCosigner: "no co-signer is paired: run mpc.pair HOST:PORT --name NAME first"
        case .unknownCosigner(let name, let known):
            "no co-signer is called \(name)" + (known.isEmpty ? "; run mpc.pair first" : " (paired: \(known.joined(separator: ", ")))")
        case .notTwoParty(let name): "\(name) is not a two-party key"
        case .locked(let name, let reason) where reason == "made-in-interrupted-session":
            "\(name) is locked (\(reason)): this co-signer stored its share in a session its process did not finish, so the "
                + "console may never have received the key; mpc.unlock \(name) once the console's owner has it"
        case .locked(let name, let reason):
            "\(name) is locked (\(reason)): a signature failed its check after the co-signer's proof passed; see mpc.status"
        case .peerMisbehaved(let name, let check):
            "the co-signer \(name) failed a check of the protocol (\(check)) and a batch run does not sign with it: "
                + "confirm at the console's prompt, or pair with it again (mpc.pair) once you trust it; nothing was sent"
        case .unpairedPeer(let fingerprint): "a peer with identity \(fingerprint) is not paired with this home"
        case .fingerprintsRejected: "the fingerprints were not confirmed; nothing was stored"
        case .nameTaken(let name, let fingerprint):
            "the name \(name) is already the co-signer \(fingerprint), and its keys are bound to it: pair this one under another --name"
        case .noWholeKey(let name):
            "\(name) is a two-party key: no machine holds its private key, so there is none to show or export; it signs with its co-signer"
        }
    }
}

extension Session {
    // MARK: the audit trail

    /// Runs one session, written to `mpc_sessions` when it starts (open, with this process's
    /// pid) and finished with how it ended (done, aborted with the check, refused, failed),
    /// whatever the outcome; the outcome itself passes through unchanged. `body` gets the row's id
    /// (nil when it could not be written). Sessions a killed process left open are swept first.
    func audited<T>(_ kind: String, role: String, peer: String, key: String? = nil, digest: [UInt8]? = nil, path: String? = nil,
                    store: WalletStore, _ body: (Int64?) throws -> T) throws -> T {
        sweepInterruptedTwoPartySessions(store)
        let entry = TwoPartySession(kind: kind, role: role, peer: peer, keyName: key, digest: digest, path: path, state: "open",
                                    check: nil, error: nil, startedAt: clock(), finishedAt: nil)
        let id = try? store.write { try $0.openTwoPartySession(entry, pid: getpid()) }
        func finish(_ state: String, _ check: String?, _ error: String?) {
            guard let id else { return }
            _ = try? store.write { try $0.finishTwoPartySession(id: id, state: state, check: check, error: error, at: clock()) }
        }
        do {
            let result = try body(id)
            finish("done", nil, nil)
            return result
        } catch let error as MPCError {
            let refused = ["sign.refused", "sign.approval"].contains(error.check)
            finish(refused ? "refused" : "aborted", error.check, error.description)
            throw error
        } catch {
            finish("failed", nil, String(describing: error))
            throw error
        }
    }

    /// Marks the sessions a killed process left open as interrupted (and locks a share the
    /// co-signer stored in one), saying so once each.
    func sweepInterruptedTwoPartySessions(_ store: WalletStore) {
        let swept = (try? store.write { tx in
            try tx.sweepInterruptedTwoPartySessions(alive: { pid in pid > 0 && (kill(pid, 0) == 0 || errno == EPERM) }, at: clock())
        }) ?? []
        for s in swept {
            let locked = s.kind == "dkg" && s.role == "p2" && s.keyName != nil
            prompts?.warn("a two-party \(s.kind) session with \(s.peer) was interrupted (its process ended); recorded as interrupted"
                          + (locked ? ", and the key \(s.keyName ?? "") it made is locked: the console may never have received it" : ""))
        }
    }

    /// The newest two-party sessions, newest first.
    public func twoPartySessions(limit: Int) throws -> [TwoPartySession] {
        let store = try store()
        sweepInterruptedTwoPartySessions(store)
        return try store.read { try $0.twoPartySessions(limit: limit) }
    }

    // MARK: identity and peers

    /// This home's identity, made (and sealed) on first use.
    func twoPartyIdentity(_ store: WalletStore) throws -> PartyIdentity {
        if let (_, secret) = try store.read({ try $0.twoPartyIdentity() }) { return try PartyIdentity(secretKey: secret) }
        let fresh = PartyIdentity.generate()
        try store.write { try $0.saveTwoPartyIdentity(publicKey: fresh.publicKey, secretKey: fresh.secretKeyForStorage) }
        return fresh
    }

    /// The paired peers.
    public func twoPartyPeers() throws -> [TwoPartyPeer] { try store().read { try $0.twoPartyPeers() } }

    /// This home's identity fingerprint (made on first use).
    public func twoPartyFingerprint() throws -> String { try twoPartyIdentity(unlockedStore()).fingerprint }

    /// Pairs with the co-signer at `endpoint` under `name`: both fingerprints shown for the person
    /// to compare with the co-signer's screen (`yes` skips the question), then P1's proof group made
    /// and checked by the co-signer; the peer is pinned.
    public func pairCosigner(endpoint text: String, name: String, yes: Bool) throws -> TwoPartyPeer {
        let store = try unlockedStore()
        if let problem = KeyNaming.problem(with: name) { throw StoreError.invalidName(given: name, reason: problem) }
        let identity = try twoPartyIdentity(store)
        let endpoint = try Endpoint(text)
        return try audited("pair", role: "p1", peer: name, store: store) { _ in
            try pair(endpoint: endpoint, name: name, yes: yes, identity: identity, store: store)
        }
    }

    private func pair(endpoint: Endpoint, name: String, yes: Bool, identity: PartyIdentity, store: WalletStore) throws -> TwoPartyPeer {
        let channel = try SecureChannel.open(try SocketStream.connect(endpoint), identity: identity, initiator: true, pinned: nil)
        // A name already given to another co-signer stays with it (its keys name it).
        if let taken = try store.read({ try $0.twoPartyPeers() }).first(where: { $0.name.lowercased() == name.lowercased() }),
           taken.identityKey != channel.peerIdentity {
            channel.close()
            throw TwoPartyError.nameTaken(name: taken.name, fingerprint: PartyIdentity.fingerprint(of: taken.identityKey))
        }
        // The co-signer shows the request (both fingerprints) when pair.p1 arrives and answers at
        // once; only then is the person here asked to compare, while its operator compares too.
        // Each side waits for the other's person, so the pairing messages get a person's time.
        channel.timeout = CosignerGate.personSeconds
        let party = PairingParty1(pid1: identity.pid, pid2: Hash.sha256(channel.peerIdentity))
        let answer: Frame
        do {
            if let request = try party.next(nil) { try channel.send(request) }
            answer = try channel.receiveFrame(what: "the co-signer's answer to the pairing request")
        } catch {
            channel.close()
            throw error
        }
        show("the co-signer shows this pairing request; compare the two fingerprints there:\n"
            + "this console:  \(identity.fingerprint)\nthe co-signer: \(PartyIdentity.fingerprint(of: channel.peerIdentity))")
        do {
            try confirm("Does the co-signer show the same two fingerprints?", yes: yes)
        } catch {
            try? channel.send(party.abortFrame(for: .checkFailed(check: "pair.fingerprints", reason: "the console's user did not confirm the fingerprints")))
            channel.close()
            throw TwoPartyError.fingerprintsRejected
        }
        prompts?.status("pairing: two safe primes and a proof for the co-signer's signing proofs (a few seconds)…")
        // The answer already received is handed on as a responder's first frame would be.
        try ChannelRun.run(party, over: channel, initiator: false, first: answer)
        guard let group = party.group else { throw MPCError.badFrame(reason: "pairing ended without a group") }
        let stored = group.storedBytes
        let peer = TwoPartyPeer(name: name, role: "p1", endpoint: endpoint.description, identityKey: channel.peerIdentity,
                                nPed: stored.n, g: stored.g, h: stored.h, pairedAt: clock())
        try store.write { try $0.saveTwoPartyPeer(peer) }
        return peer
    }

    func pairedCosigner(named name: String?, _ store: WalletStore) throws -> TwoPartyPeer {
        let peers = try store.read { try $0.twoPartyPeers() }.filter { $0.role == "p1" }
        if let name {
            // By name, or by the address it was paired at.
            let address = (try? Endpoint(name))?.description
            guard let peer = peers.first(where: { $0.name.lowercased() == name.lowercased() || ($0.endpoint != nil && $0.endpoint == address) }) else {
                throw TwoPartyError.unknownCosigner(name: name, known: peers.map(\.name))
            }
            return peer
        }
        guard let only = peers.first else { throw TwoPartyError.noCosigner }
        guard peers.count == 1 else { throw TwoPartyError.unknownCosigner(name: "(none given)", known: peers.map(\.name)) }
        return only
    }

    func openChannel(to peer: TwoPartyPeer, identity: PartyIdentity) throws -> SecureChannel {
        guard let text = peer.endpoint else { throw TwoPartyError.unknownCosigner(name: peer.name, known: []) }
        return try SecureChannel.open(try SocketStream.connect(try Endpoint(text)), identity: identity, initiator: true,
                                      pinned: peer.identityKey)
    }

    // MARK: keys

    /// A joint key made with the co-signer (`key.generate --two-party`): neither side ever holds it.
    public func generateTwoPartyKey(kind: TwoPartyKind, name: String?, cosigner: String?) throws -> KeyRecord {
        let store = try unlockedStore()
        if let name, try store.read({ try $0.findKey(named: name) }) != nil { throw StoreError.duplicateName(name) }
        let peer = try pairedCosigner(named: cosigner, store)
        let identity = try twoPartyIdentity(store)
        let party = KeyGenerationParty1(kind: kind, pid1: identity.pid, pid2: Hash.sha256(peer.identityKey))
        try audited("dkg", role: "p1", peer: peer.name, key: name, store: store) { _ in
            let channel = try openChannel(to: peer, identity: identity)
            // Rounds as they are: this console sends 1 and 3, the co-signer answers 2 and 4.
            prompts?.status("2-party DKG with \(peer.name): making a Paillier key for round 1 of 4…")
            try ChannelRun.run(party, over: channel, initiator: true) { step in
                self.prompts?.status("2-party DKG with \(peer.name): round \(step) of 4 sent, the co-signer answers round \(step + 1)…")
                if self.explainTwoParty { TwoPartyTeaching.before(TwoPartyTeaching.dkg, step: step, first: 1).forEach(self.show) }
            }
            if explainTwoParty, let last = TwoPartyTeaching.dkg[4] { show(last) }
        }
        guard let share = party.share else { throw MPCError.badFrame(reason: "the key generation ended without a key") }
        let xpub = try share.chainCode.map { try ExtendedKey(publicKey: share.q, chainCode: $0).serialized(.xpub) }
        let parameters = TwoPartyKeyParameters(role: "p1", peer: peer.name, kind: kind.rawValue, q: share.q.compressed,
                                               qOther: share.q2.compressed, n: share.paillier.publicKey.nBytes,
                                               cKey: share.cKey.fixedBytes(512), chainCode: share.chainCode, sid: share.sid,
                                               transcript: share.transcript)
        return try store.write { tx in
            try tx.addTwoPartyKey(NewKey(name: name, kind: kind == .ecdsa ? .ecdsa : .hdMaster, source: .dkg,
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
                  let parameters = try tx.twoPartyParameters(keyID: master.id), let chainCode = parameters.chainCode else {
                throw TwoPartyError.notTwoParty(name: masterName)
            }
            let (_, child) = try JointDerivation.derive(try PublicKey(bytes: parameters.q), chainCode: chainCode, path: path)
            return try tx.addKey(NewKey(name: name ?? "\(master.name)\(path.description.dropFirst())".replacingOccurrences(of: "/", with: "-"),
                                        kind: .hdChild, source: .dkg, storage: .twoParty(peer: peer), publicKey: child,
                                        address: EthereumAddress(publicKey: child).checksummed, path: path, parentID: master.id))
        }
    }

    /// `mpc.unlock`: clears the lock of a two-party key (its master's), after the person said yes.
    public func unlockTwoPartyKey(named name: String, yes: Bool) throws -> KeyRecord {
        let store = try unlockedStore()
        let (record, master, parameters) = try store.read { tx in
            let record = try tx.key(named: name)
            let master = record.parentID.map { try? tx.key(id: $0) } ?? record
            guard let master, let parameters = try tx.twoPartyParameters(keyID: master.id) else { throw TwoPartyError.notTwoParty(name: name) }
            return (record, master, parameters)
        }
        guard parameters.status == "locked" else { return record }
        try confirm("Unlock \(master.name) (locked: \(parameters.lockedReason ?? "locked"))?", yes: yes)
        try store.write { try $0.setTwoPartyKeyLock(keyID: master.id, reason: nil) }
        return record
    }

    /// The joint key a stored key signs with: the key itself, or its two-party master and the path.
    func twoPartySigning(_ record: KeyRecord, _ tx: StoreTransaction) throws -> (master: KeyRecord, path: DerivationPath) {
        if record.kind == .hdChild, let parentID = record.parentID, let path = record.path {
            return (try tx.key(id: parentID), path)
        }
        return (record, DerivationPath(absolute: true, []))
    }

    // MARK: the co-signer

    /// `kcs cosigner serve`: answers consoles at `listen` until Ctrl-C (or after `sessions`
    /// sessions): pairing (after the person compares fingerprints, or unattended with `.all`), key
    /// generation and signing for paired consoles; every request to sign is shown, and recorded in
    /// this home's history once co-signed. `ready` gets the address actually listened on.
    public func serveCosigner(listen text: String, approval: TwoPartyApproval, sessions: Int? = nil,
                              pairAny: Bool = false, allowRawDigests: Bool = false,
                              ready: (String) -> Void = { _ in }) throws {
        let policy = CosignerPolicy(approval: approval, pairAny: pairAny, allowRawDigests: allowRawDigests)
        let store = try unlockedStore()
        let identity = try twoPartyIdentity(store)
        sweepInterruptedTwoPartySessions(store)
        let listener = try SocketListener(try Endpoint(text))
        ready(listener.endpoint.description)
        show("co-signer \(identity.fingerprint) listening on \(listener.endpoint) (approval: \(approval.rawValue))")
        // Each connection's handshake and first message run on a thread of their own, within a
        // total deadline, so a peer that trickles its bytes holds up nobody; the sessions
        // themselves (the store, the prompts) run one at a time (docs/two-party.md, "The co-signer").
        let gate = CosignerGate()
        var served = 0
        while sessions.map({ served < $0 }) ?? true {
            if prompts?.shouldInterrupt() == true { return }
            guard let socket = try listener.accept(seconds: 1) else { continue }
            served += 1
            guard gate.admit(socket.peerHost) else {
                prompts?.warn("co-signer: refused a connection from \(socket.peerHost ?? "an unknown address"):"
                    + " \(CosignerGate.perAddress) are already open from there")
                socket.shutdownNow()
                continue
            }
            gate.group.enter()
            // The session is used by this thread only inside `gate.serially`, one thread at a time.
            let shared = CosignerGate.Shared(session: self, identity: identity, store: store, policy: policy)
            let thread = Thread {
                defer { gate.leave(socket.peerHost) }
                do {
                    let channel = try SecureChannel.open(socket, identity: shared.identity, initiator: false, pinned: nil,
                                                         timeout: CosignerGate.handshakeSeconds)
                    // After the handshake, messages get the usual 30 s each (a console may make its
                    // pairing primes before the first one); only the handshake has the short bound.
                    channel.timeout = CosignerGate.messageSeconds
                    let first = try channel.receiveFrame(what: "the first message")
                    try gate.serially {
                        try shared.session.serveOne(first, channel: channel, identity: shared.identity, store: shared.store, policy: shared.policy)
                    }
                } catch {
                    gate.serially { shared.session.prompts?.warn("co-signer: \(error)") }
                }
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        gate.group.wait()
    }

    fileprivate func serveOne(_ first: Frame, channel: SecureChannel, identity: PartyIdentity, store: WalletStore, policy: CosignerPolicy) throws {
        let peerKey = channel.peerIdentity
        let known = try store.read { try $0.twoPartyPeer(identityKey: peerKey) }
        let kind = first.type.hasPrefix("pair.") ? "pair" : first.type.hasPrefix("dkg.") ? "dkg" : "sign"
        try audited(kind, role: "p2", peer: known?.name ?? PartyIdentity.fingerprint(of: peerKey), store: store) { auditID in
            try serveSession(first, channel: channel, identity: identity, known: known, store: store, policy: policy, auditID: auditID)
        }
    }

    private func serveSession(_ first: Frame, channel: SecureChannel, identity: PartyIdentity, known: TwoPartyPeer?, store: WalletStore,
                              policy: CosignerPolicy, auditID: Int64?) throws {
        let peerKey = channel.peerIdentity
        let pid1 = Hash.sha256(peerKey), pid2 = identity.pid
        switch first.type {
        case "pair.p1":
            show("pairing request:\nthe console:    \(PartyIdentity.fingerprint(of: peerKey))\nthis co-signer: \(identity.fingerprint)")
            // The answer leaves first, so the console shows the same two fingerprints to its user
            // while the operator here compares; pairing always needs the operator, whatever
            // --approve says, unless --pair-any (docs/two-party.md, "Pairing").
            let party = PairingParty2(pid1: pid1, pid2: pid2)
            do {
                if let answer = try party.next(first) { try channel.send(answer) }
            } catch let error as MPCError {
                try? channel.send(party.abortFrame(for: error))
                throw error
            }
            if !policy.pairAny {
                do {
                    try confirm("Does the console show the same two fingerprints?", yes: false)
                } catch {
                    try? channel.send(party.abortFrame(for: .checkFailed(check: "pair.fingerprints",
                                                                         reason: "the co-signer's operator did not confirm the fingerprints")))
                    throw TwoPartyError.fingerprintsRejected
                }
            }
            // The console's user may still be comparing, then the console makes its primes.
            try ChannelRun.run(party, over: channel, initiator: false, first: nil,
                               firstTimeout: policy.pairAny ? CosignerGate.messageSeconds : CosignerGate.personSeconds)
            guard let group = party.group else { return }
            let stored = group.storedBytes
            let name = try known?.name ?? Self.consoleName(peerKey, taken: store.read { try $0.twoPartyPeers() }.map(\.name))
            try store.write {
                try $0.saveTwoPartyPeer(TwoPartyPeer(name: name, role: "p2", endpoint: nil, identityKey: peerKey, nPed: stored.n,
                                                     g: stored.g, h: stored.h, pairedAt: clock()))
            }
            show("paired with \(name)")
        case "dkg.k1":
            guard let peer = known, peer.role == "p2" else {
                throw TwoPartyError.unpairedPeer(fingerprint: PartyIdentity.fingerprint(of: peerKey))
            }
            let party = KeyGenerationParty2(pid1: pid1, pid2: pid2)
            try ChannelRun.run(party, over: channel, initiator: false, first: first) { step in
                if step == 4, let share = party.share {
                    // Stored before the confirmation leaves (docs/two-party.md: P1 keeps the key only after it).
                    try self.storeCosignerShare(share, peer: peer, store: store, auditID: auditID)
                }
            }
            if let share = party.share, let kept = try store.read({ try $0.twoPartyKey(q: share.q.compressed, peer: peer.name) }) {
                // The console names the key as its user chose; both sides show the joint address.
                show("joint key \(EthereumAddress(publicKey: share.q).checksummed) made with \(peer.name), kept here as \(kept.0.name)")
            }
        case "sign.s0":
            guard let peer = known, peer.role == "p2" else {
                throw TwoPartyError.unpairedPeer(fingerprint: PartyIdentity.fingerprint(of: peerKey))
            }
            let reader = first.fields["q"]
            guard case .string(let qHex)? = reader, let q = try? Hex.decode(qHex),
                  let (record, _) = try store.read({ try $0.twoPartyKey(q: q, peer: peer.name) }) else {
                let abort = Frame(type: "abort", step: 1, sid: first.sid, fields: ["check": .string("sign.key"), "message": .string("not a key shared with this co-signer")])
                try? channel.send(abort)
                throw TwoPartyError.notTwoParty(name: "the requested key")
            }
            let (secret, parameters) = try store.read { try $0.openTwoPartyShare(of: record) }
            if parameters.status == "locked" {
                let locked = TwoPartyError.locked(name: record.name, reason: parameters.lockedReason ?? "locked")
                try? channel.send(Frame(type: "abort", step: 1, sid: first.sid, fields: ["check": .string("sign.key"), "message": .string("the co-signer has this key locked")]))
                throw locked
            }
            guard let kind = TwoPartyKind(rawValue: parameters.kind) else { throw TwoPartyError.notTwoParty(name: record.name) }
            let share = try Party2Share(kind: kind, q: try PublicKey(bytes: parameters.q), q1: try PublicKey(bytes: parameters.qOther),
                                        secret: secret, n: parameters.n, cKey: parameters.cKey, chainCode: parameters.chainCode,
                                        sid: parameters.sid, transcript: parameters.transcript)
            let group = try UnknownOrderGroup(stored: peer.nPed, g: peer.g, h: peer.h)
            let names = (try? self.ownKeyNames()) ?? { _ in nil }
            let party = SigningParty2(share: share, group: group, pid1: pid1, pid2: pid2, digest: TwoPartyPayload.digest, approve: { request in
                let child = (try? JointDerivation.derive(share.q, chainCode: share.chainCode, path: request.path).key) ?? share.q
                let address = EthereumAddress(publicKey: child).checksummed
                self.show("co-sign request from \(TerminalText.safe(peer.name)) for \(address) (the joint key kept here as \(record.name)):")
                let payload = TwoPartyPayload(kind: request.payloadKind, payload: request.payload)
                if payload == .digest && !policy.allowRawDigests {
                    self.show("refused: a bare digest cannot be shown, and co-signing it would be signing blind"
                        + " (kcs cosigner serve --allow-raw-digests accepts them)")
                    return false
                }
                var review: SigningReview
                do { review = try Session.review(payload, digest: request.digest, name: names) } catch {
                    self.show("refused: what it asks to sign cannot be read (\(error))")
                    return false
                }
                review.addSigner(address: address, keyName: record.name, path: request.path.description,
                                 device: "this co-signer, with the console \(peer.name)")
                self.show(review.rendered())
                if policy.approval == .all { return true }
                return (try? self.confirm("Co-sign it?", yes: false)) != nil
            })
            try ChannelRun.run(party, over: channel, initiator: false, first: first)
            if let signature = party.signature, let request = party.request {
                let child = try JointDerivation.derive(share.q, chainCode: share.chainCode, path: request.path).key
                _ = try self.record(signature, digest: request.digest, publicKey: child, keyName: record.name, path: request.path,
                               verified: true, checkedAgainst: "the joint key, by recovery", warning: nil,
                               kind: TwoPartyPayload.signatureKind(request.payloadKind), chainID: nil, store: store)
                show("co-signed for \(peer.name): \(Hex.encode(request.digest))")
            }
        default:
            let abort = Frame(type: "abort", step: first.step + 1, sid: first.sid, fields: ["check": .string("frame"), "message": .string("unexpected \(first.type)")])
            try? channel.send(abort)
        }
    }

    /// The co-signer's name for a console: `console-` and the start of its fingerprint, longer
    /// when another console already has that name (a name is never rebound to another identity).
    static func consoleName(_ identityKey: [UInt8], taken: [String]) -> String {
        let fingerprint = PartyIdentity.fingerprint(of: identityKey).replacingOccurrences(of: " ", with: "")
        let used = Set(taken.map { $0.lowercased() })
        for length in stride(from: 8, to: fingerprint.count, by: 4) {
            let name = "console-" + fingerprint.prefix(length)
            if !used.contains(name.lowercased()) { return name }
        }
        return "console-" + fingerprint
    }

    private func storeCosignerShare(_ share: Party2Share, peer: TwoPartyPeer, store: WalletStore, auditID: Int64?) throws {
        let parameters = TwoPartyKeyParameters(role: "p2", peer: peer.name, kind: share.kind.rawValue, q: share.q.compressed,
                                               qOther: share.q1.compressed, n: share.paillier.nBytes, cKey: share.cKey.fixedBytes(512),
                                               chainCode: share.chainCode, sid: share.sid, transcript: share.transcript)
        let xpub = try share.chainCode.map { try ExtendedKey(publicKey: share.q, chainCode: $0).serialized(.xpub) }
        try store.write { tx in
            let key = try tx.addTwoPartyKey(NewKey(name: nil, kind: share.kind == .ecdsa ? .ecdsa : .hdMaster, source: .dkg,
                                                   storage: .twoParty(peer: peer.name), publicKey: share.q,
                                                   address: EthereumAddress(publicKey: share.q).checksummed,
                                                   path: share.kind == .hdMaster ? DerivationPath(absolute: true, []) : nil,
                                                   extendedPublicKey: xpub),
                                            share: try share.secretBytes, parameters: parameters)
            // The session names the key it made, in the same transaction: a sweep finds it if the process dies here.
            if let auditID { try tx.setTwoPartySessionKey(id: auditID, keyName: key.name) }
        }
    }
}

/// The teaching lines of `mpc.explain on`: what each message of a key generation and of a
/// signature carries, and why (docs/two-party.md).
public enum TwoPartyTeaching {
    public static let overview = """
        A two-party key is a secp256k1 key no machine holds. The console (P1) keeps a share x1 and a
        Paillier key; the co-signer (P2) keeps a share x2. The key is x = x1 + x2, its public key
        Q = x1·G + x2·G; each side proves what it sends, so neither can steer Q or learn the other's share.
        Key types: ecdsa (one joint key, signing at m), hd-master (a joint key and a jointly chosen chain
        code: a BIP-32 root whose xpub any wallet can watch), and its HD-CHILD keys at non-hardened paths
        (the co-signer adds the public BIP-32 tweak to its share; hardened steps would need the whole key).
        Signing: both pick nonces (k1, k2) with proofs; the co-signer computes one Paillier ciphertext of
        the signature's core under P1's key, with a proof that it did so honestly; P1 checks the proof,
        decrypts, finishes an ordinary ECDSA signature and checks it against the joint key.
        """

    static let dkg: [Int: String] = [
        1: "P1 → P2: a commitment to Q1 = x1·G and to its half of the chain code, its Paillier modulus N, and c_key = Enc(x1) — the co-signer will compute with x1 without ever seeing it",
        2: "P2 → P1: Q2 = x2·G with a proof that it knows x2, and its half of the chain code — chosen before it saw Q1, so neither side can steer Q",
        3: "P1 → P2: opens the commitment and proves that it knows x1, that N is a valid Paillier modulus (ΠVP), that c_key encrypts the x1 of Q1 (ΠPDL) and that x1 is in range (ΠPE, ΠRP)",
        4: "P2 → P1: confirms the same transcript; the joint key is Q = Q1 + Q2, and x = x1 + x2 exists nowhere",
    ]

    static let sign: [Int: String] = [
        0: "P1 → P2: what to sign — the payload itself, so the co-signer computes the digest on its own — the key and the path",
        1: "P2 → P1: accepted (after showing it, and asking when it is set to ask); a fresh session id",
        2: "P1 → P2: a commitment to R1 = k1·G — so the co-signer cannot choose its R2 after seeing R1",
        3: "P2 → P1: R2 = k2·G with a proof that it knows k2",
        4: "P1 → P2: opens R1 with its proof; both now know R = k1·k2·G and r = x(R)",
        5: "P2 → P1: one Paillier ciphertext of k2⁻¹·(m + r·x) less P1's part, computed under P1's key, with a proof that it was computed honestly (ΠSIGN) — checked before anything is decrypted",
        6: "P1 → P2: the signature (r, s), s = k1⁻¹·Dec(c), checked against the joint key first",
    ]

    /// The lines to show before frame `step` leaves: the one received just before it, then its own.
    static func before(_ table: [Int: String], step: Int, first: Int) -> [String] {
        (step > first ? [table[step - 1]] : []).compactMap { $0 } + [table[step]].compactMap { $0 }
    }
}

/// The co-signer's connections: at most `perAddress` open from one address, their handshakes
/// concurrent, their sessions one at a time.
final class CosignerGate: @unchecked Sendable {
    /// Seconds a connection has for its whole handshake.
    static let handshakeSeconds = 10
    /// Seconds each later message has, the first included (the channel's usual deadline).
    static let messageSeconds = 30
    /// Seconds a pairing message has when the other side waits for a person comparing fingerprints.
    static let personSeconds = 300
    /// Connections one address may have open at once.
    static let perAddress = 4

    /// What a connection's thread needs, handed over once; the session is touched only inside `serially`.
    struct Shared: @unchecked Sendable {
        let session: Session
        let identity: PartyIdentity
        let store: WalletStore
        let policy: CosignerPolicy
    }

    let group = DispatchGroup()
    private let lock = NSLock()
    private let session = NSLock()
    private var open: [String: Int] = [:]

    func admit(_ host: String?) -> Bool {
        lock.withLock {
            let key = host ?? "?"
            guard open[key, default: 0] < Self.perAddress else { return false }
            open[key, default: 0] += 1
            return true
        }
    }

    func leave(_ host: String?) {
        lock.withLock { open[host ?? "?", default: 1] -= 1 }
        group.leave()
    }

    func serially<T>(_ body: () throws -> T) rethrows -> T {
        session.lock()
        defer { session.unlock() }
        return try body()
    }
}

/// What the co-signer will and will not do without its operator.
struct CosignerPolicy {
    let approval: TwoPartyApproval
    /// Pair any console without asking (else pairing is always confirmed at the co-signer's terminal).
    let pairAny: Bool
    /// Co-sign a bare digest (else refused: it cannot be shown).
    let allowRawDigests: Bool
}

/// What a two-party signature is over: the payload travels with the request, and the co-signer
/// computes the digest from it itself (docs/two-party-protocol.md §6).
public enum TwoPartyPayload: Sendable, Equatable {
    case digest
    case message([UInt8])
    case typed([UInt8])
    case transaction([UInt8])

    /// A payload as it travels: its kind (`eth-message`, `eth-typed`, `eth-tx`, else a digest) and bytes.
    init(kind: String, payload: [UInt8]) {
        switch kind {
        case "eth-message": self = .message(payload)
        case "eth-typed": self = .typed(payload)
        case "eth-tx": self = .transaction(payload)
        default: self = .digest
        }
    }

    var kind: String {
        switch self {
        case .digest: "digest"
        case .message: "eth-message"
        case .typed: "eth-typed"
        case .transaction: "eth-tx"
        }
    }

    func bytes(digest: [UInt8]) -> [UInt8] {
        switch self {
        case .digest: digest
        case .message(let b), .typed(let b), .transaction(let b): b
        }
    }

    static func signatureKind(_ kind: String) -> SignatureKind {
        switch kind {
        case "eth-message": .message
        case "eth-typed": .typed
        case "eth-tx": .transaction
        default: .hash
        }
    }

    /// The digest of a payload, as the co-signer computes it.
    static func digest(kind: String, payload: [UInt8]) throws(MPCError) -> [UInt8] {
        switch kind {
        case "eth-typed":
            guard let typed = try? TypedData(json: payload), let digest = try? typed.digest() else {
                throw .checkFailed(check: "sign.payload", reason: "the typed data does not parse")
            }
            return digest
        case "eth-tx":
            return Hash.keccak256(payload)
        default:
            return try PayloadDigest.standard(kind: kind, payload: payload)
        }
    }
}

/// A two-party key (or an HD child of one): signs with the co-signer; the signature is checked
/// against the joint key before it is returned and recorded.
public struct TwoPartySigner: Signer {
    public let session: Session
    public let keyName: String

    public init(session: Session, keyName: String) {
        self.session = session
        self.keyName = keyName
    }

    public func sign(digest: [UInt8], kind: SignatureKind, chainID: UInt64?, payload: TwoPartyPayload?,
                     finish: (Signed) throws -> Void) throws -> Signed {
        let store = try session.unlockedStore()
        let (record, master, path, secret, parameters, storedPeer) = try store.read { tx in
            let record = try tx.key(named: keyName)
            if record.retired { throw KeyCommandError.retired(name: record.name, successor: nil) }
            let (master, path) = try session.twoPartySigning(record, tx)
            let (secret, parameters) = try tx.openTwoPartyShare(of: master)
            return (record, master, path, secret, parameters, try tx.twoPartyPeer(named: parameters.peer))
        }
        if parameters.status == "locked" { throw TwoPartyError.locked(name: master.name, reason: parameters.lockedReason ?? "locked") }
        guard let peer = storedPeer, let twoKind = TwoPartyKind(rawValue: parameters.kind) else {
            throw TwoPartyError.unknownCosigner(name: parameters.peer, known: [])
        }
        if let when = peer.misbehavedAt {
            // Asked at a terminal; `sign` has no --yes to pass, so a batch run is refused here.
            guard session.prompts?.isInteractive == true else {
                throw TwoPartyError.peerMisbehaved(name: peer.name, check: peer.misbehaviour ?? "a check")
            }
            try session.confirm("\(peer.name) failed a check of the protocol at \(when) (\(peer.misbehaviour ?? "")). Sign with it anyway?", yes: false)
        }
        let share = try Party1Share(kind: twoKind, q: try PublicKey(bytes: parameters.q), q2: try PublicKey(bytes: parameters.qOther),
                                    secret: secret, n: parameters.n, cKey: parameters.cKey, chainCode: parameters.chainCode,
                                    sid: parameters.sid, transcript: parameters.transcript)
        let group = try UnknownOrderGroup(stored: peer.nPed, g: peer.g, h: peer.h)
        let payload = payload ?? .digest
        let request = SignRequest(key: share.q, path: path, payloadKind: payload.kind, payload: payload.bytes(digest: digest), digest: digest)
        let identity = try session.twoPartyIdentity(store)
        let party = try SigningParty1(share: share, group: group, request: request, pid1: identity.pid, pid2: Hash.sha256(peer.identityKey))
        session.prompts?.status("signing with \(peer.name)…")
        do {
            try session.audited("sign", role: "p1", peer: peer.name, key: record.name, digest: digest, path: path.description, store: store) { _ in
                let channel = try session.openChannel(to: peer, identity: identity)
                try ChannelRun.run(party, over: channel, initiator: true) { step in
                    if session.explainTwoParty { TwoPartyTeaching.before(TwoPartyTeaching.sign, step: step, first: 0).forEach(session.show) }
                }
            }
        } catch let error as MPCError {
            if error.check == "sign.proof" || error.check == "sign.dl" || error.check == "sign.r2" {
                try? store.write { try $0.markTwoPartyPeerMisbehaved(peer.name, reason: error.description) }
            } else if error.check == "sign.signature" {
                try? store.write { try $0.setTwoPartyKeyLock(keyID: master.id, reason: "signature-check-failed") }
            }
            throw error
        }
        guard let signature = party.signature else { throw MPCError.badFrame(reason: "signing ended without a signature") }
        return try session.record(signature, digest: digest, publicKey: party.childKey, keyName: record.name, path: record.path,
                                  verified: true, checkedAgainst: "the joint key, by recovery (co-signed by \(peer.name))", warning: nil,
                                  kind: kind, chainID: chainID, store: store, finish: finish)
    }
}
