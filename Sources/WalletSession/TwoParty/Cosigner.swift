// The co-signer (`kcs cosigner serve`, docs/two-party.md, "The co-signer"): its connections, its
// policy and the loop that pairs consoles, makes joint keys with them and co-signs what it shows.
import Foundation
import KCSErrors
import MPCLink
import WalletCore
import WalletCrypto
import WalletMPC
import WalletStore

extension Session {
    /// `kcs cosigner serve`: answers consoles at `listen` until Ctrl-C (or after `sessions`
    /// sessions): pairing (after the person compares fingerprints, or unattended with `.all`), key
    /// generation and signing for paired consoles; every request to sign is shown, and recorded in
    /// this home's history once co-signed. `ready` gets the address actually listened on.
    public func serveCosigner(
        listen text: String, approval: TwoPartyApproval, sessions: Int? = nil,
        pairAny: Bool = false, allowRawDigests: Bool = false
    ) throws {
        let policy = CosignerPolicy(approval: approval, pairAny: pairAny, allowRawDigests: allowRawDigests)
        let store = try unlockedStore()
        let identity = try twoPartyIdentity(store)
        sweepInterruptedTwoPartySessions(store)
        let listener = try SocketListener(try Endpoint(text))
        // Whoever started it learns the address it listens on (port 0 picks one): a file that
        // appears only once the socket is bound (docs/kcs.1, KCS_COSIGNER_READY_FILE).
        if let file = environment["KCS_COSIGNER_READY_FILE"], !file.isEmpty {
            FileManager.default.createFile(atPath: file, contents: Data((listener.endpoint.description + "\n").utf8))
        }
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
                prompts?.warn(
                    "co-signer: refused a connection from \(socket.peerHost ?? "an unknown address"):"
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
                    let channel = try SecureChannel.open(
                        socket, identity: shared.identity, initiator: false, pinned: nil,
                        timeout: CosignerGate.handshakeSeconds)
                    // After the handshake, messages get the usual 30 s each (a console may make its
                    // pairing primes before the first one); only the handshake has the short bound.
                    channel.timeout = CosignerGate.messageSeconds
                    let first = try channel.receiveFrame(what: "the first message")
                    try gate.serially {
                        try shared.session.serveOne(
                            first, channel: channel, identity: shared.identity, store: shared.store,
                            policy: shared.policy)
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

    fileprivate func serveOne(
        _ first: Frame, channel: SecureChannel, identity: PartyIdentity, store: WalletStore, policy: CosignerPolicy
    ) throws {
        let peerKey = channel.peerIdentity
        let known = try store.read { try $0.twoPartyPeer(identityKey: peerKey) }
        let kind: TwoPartySessionKind =
            first.type.hasPrefix("pair.") ? .pair : first.type.hasPrefix("dkg.") ? .dkg : .sign
        try audited(kind, role: .cosigner, peer: known?.name ?? PartyIdentity.fingerprint(of: peerKey), store: store) {
            auditID in
            try serveSession(
                first, channel: channel, identity: identity, known: known, store: store, policy: policy,
                auditID: auditID)
        }
    }

    private func serveSession(
        _ first: Frame, channel: SecureChannel, identity: PartyIdentity, known: TwoPartyPeer?, store: WalletStore,
        policy: CosignerPolicy, auditID: Int64?
    ) throws {
        let peerKey = channel.peerIdentity
        let pid1 = Hash.sha256(peerKey), pid2 = identity.pid
        switch first.type {
        case "pair.p1":
            show(
                "pairing request:\nthe console:    \(PartyIdentity.fingerprint(of: peerKey))\nthis co-signer: \(identity.fingerprint)"
            )
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
                    try? channel.send(
                        party.abortFrame(
                            for: .checkFailed(
                                check: "pair.fingerprints",
                                reason: "the co-signer's operator did not confirm the fingerprints")))
                    throw TwoPartyError.fingerprintsRejected
                }
            }
            // The console's user may still be comparing, then the console makes its primes.
            try ChannelRun.run(
                party, over: channel, initiator: false, first: nil,
                firstTimeout: policy.pairAny ? CosignerGate.messageSeconds : CosignerGate.personSeconds)
            guard let group = party.group else { return }
            let stored = group.storedBytes
            let name =
                try known?.name ?? Self.consoleName(peerKey, taken: store.read { try $0.twoPartyPeers() }.map(\.name))
            try store.write {
                try $0.saveTwoPartyPeer(
                    TwoPartyPeer(
                        name: name, role: .cosigner, endpoint: nil, identityKey: peerKey, nPed: stored.n,
                        g: stored.g, h: stored.h, pairedAt: clock()))
            }
            show("paired with \(name)")
        case "dkg.k1":
            guard let peer = known, peer.role == .cosigner else {
                throw TwoPartyError.unpairedPeer(fingerprint: PartyIdentity.fingerprint(of: peerKey))
            }
            let party = KeyGenerationParty2(pid1: pid1, pid2: pid2)
            try ChannelRun.run(party, over: channel, initiator: false, first: first) { step in
                if step == 4, let share = party.share {
                    // Stored before the confirmation leaves (docs/two-party.md: P1 keeps the key only after it).
                    try self.storeCosignerShare(share, peer: peer, store: store, auditID: auditID)
                }
            }
            if let share = party.share,
                let kept = try store.read({ try $0.twoPartyKey(q: share.q.compressed, peer: peer.name) })
            {
                // The console names the key as its user chose; both sides show the joint address.
                show(
                    "joint key \(EthereumAddress(publicKey: share.q).checksummed) made with \(peer.name), kept here as \(kept.0.name)"
                )
            }
        case "sign.s0":
            guard let peer = known, peer.role == .cosigner else {
                throw TwoPartyError.unpairedPeer(fingerprint: PartyIdentity.fingerprint(of: peerKey))
            }
            let reader = first.fields["q"]
            guard case .string(let qHex)? = reader, let q = try? Hex.decode(qHex),
                let (record, _) = try store.read({ try $0.twoPartyKey(q: q, peer: peer.name) })
            else {
                let abort = Frame(
                    type: "abort", step: 1, sid: first.sid,
                    fields: ["check": .string("sign.key"), "message": .string("not a key shared with this co-signer")])
                try? channel.send(abort)
                throw TwoPartyError.notTwoParty(name: "the requested key")
            }
            let (secret, parameters) = try store.read { try $0.openTwoPartyShare(of: record) }
            if parameters.status == .locked {
                let locked = TwoPartyError.locked(name: record.name, reason: parameters.lockedReason ?? "locked")
                try? channel.send(
                    Frame(
                        type: "abort", step: 1, sid: first.sid,
                        fields: ["check": .string("sign.key"), "message": .string("the co-signer has this key locked")])
                )
                throw locked
            }
            guard let kind = TwoPartyKind(rawValue: parameters.kind) else {
                throw TwoPartyError.notTwoParty(name: record.name)
            }
            let share = try Party2Share(
                kind: kind, q: try PublicKey(bytes: parameters.q), q1: try PublicKey(bytes: parameters.qOther),
                secret: secret, n: parameters.n, cKey: parameters.cKey, chainCode: parameters.chainCode,
                sid: parameters.sid, transcript: parameters.transcript)
            let group = try UnknownOrderGroup(stored: peer.nPed, g: peer.g, h: peer.h)
            let names = (try? self.ownKeyNames()) ?? { _ in nil }
            let delegates = (try? self.delegateList()) ?? .shipped
            let party = SigningParty2(
                share: share, group: group, pid1: pid1, pid2: pid2, digest: SigningPayload.digest,
                approve: { request in
                    let child =
                        (try? JointDerivation.derive(share.q, chainCode: share.chainCode, path: request.path).key)
                        ?? share.q
                    let address = EthereumAddress(publicKey: child).checksummed
                    self.show(
                        "co-sign request from \(TerminalText.safe(peer.name)) for \(address) (the joint key kept here as \(record.name)):"
                    )
                    let payload = SigningPayload(kind: request.payloadKind, payload: request.payload)
                    if payload == .digest && !policy.allowRawDigests {
                        self.show(
                            "refused: a bare digest cannot be shown, and co-signing it would be signing blind"
                                + " (kcs cosigner serve --allow-raw-digests accepts them)")
                        return false
                    }
                    var review: SigningReview
                    do {
                        review = try Session.review(payload, digest: request.digest, name: names, delegates: delegates)
                    } catch {
                        self.show("refused: what it asks to sign cannot be read (\(error))")
                        return false
                    }
                    review.addSigner(
                        address: address, keyName: record.name, path: request.path.description,
                        device: "this co-signer, with the console \(peer.name)")
                    self.show(review.rendered())
                    if policy.approval == .all { return true }
                    return (try? self.confirm("Co-sign it?", yes: false)) != nil
                })
            try ChannelRun.run(party, over: channel, initiator: false, first: first)
            if let signature = party.signature, let request = party.request {
                let child = try JointDerivation.derive(share.q, chainCode: share.chainCode, path: request.path).key
                _ = try self.record(
                    signature, digest: request.digest, publicKey: child, keyName: record.name, path: request.path,
                    verified: true, checkedAgainst: "the joint key, by recovery", warning: nil,
                    kind: SigningPayload.signatureKind(request.payloadKind), chainID: nil, store: store)
                show("co-signed for \(peer.name): \(Hex.encode(request.digest))")
            }
        default:
            let abort = Frame(
                type: "abort", step: first.step + 1, sid: first.sid,
                fields: ["check": .string("frame"), "message": .string("unexpected \(first.type)")])
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

    private func storeCosignerShare(
        _ share: Party2Share, peer: TwoPartyPeer, store: WalletStore, auditID: Int64?
    ) throws {
        let parameters = TwoPartyKeyParameters(
            role: .cosigner, peer: peer.name, kind: share.kind.rawValue, q: share.q.compressed,
            qOther: share.q1.compressed, n: share.paillier.nBytes, cKey: share.cKey.fixedBytes(512),
            chainCode: share.chainCode, sid: share.sid, transcript: share.transcript)
        let xpub = try share.chainCode.map { try ExtendedKey(publicKey: share.q, chainCode: $0).serialized(.xpub) }
        try store.write { tx in
            let key = try tx.addTwoPartyKey(
                NewKey(
                    name: nil, kind: share.kind == .ecdsa ? .ecdsa : .hdMaster, source: .dkg,
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
