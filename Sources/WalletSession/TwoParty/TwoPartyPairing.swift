// Two-party pairing (docs/two-party.md, "Pairing"): this home's identity, the paired peers, and
// pairing with a co-signer after both people compared the fingerprints.
import Foundation
import KCSErrors
import MPCLink
import WalletCore
import WalletCrypto
import WalletMPC
import WalletStore

extension Session {
    /// This home's identity, made (and sealed) on first use.
    func twoPartyIdentity(_ store: WalletStore) throws -> PartyIdentity {
        if let (_, secret) = try store.read({ try $0.twoPartyIdentity() }) {
            return try PartyIdentity(secretKey: secret)
        }
        let fresh = PartyIdentity.generate()
        try store.write {
            try $0.saveTwoPartyIdentity(publicKey: fresh.publicKey, secretKey: fresh.secretKeyForStorage)
        }
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
        return try audited(.pair, role: .console, peer: name, store: store) { _ in
            try pair(endpoint: endpoint, name: name, yes: yes, identity: identity, store: store)
        }
    }

    private func pair(
        endpoint: Endpoint, name: String, yes: Bool, identity: PartyIdentity, store: WalletStore
    ) throws -> TwoPartyPeer {
        let channel = try SecureChannel.open(
            try SocketStream.connect(endpoint), identity: identity, initiator: true, pinned: nil)
        // A name already given to another co-signer stays with it (its keys name it).
        if let taken = try store.read({ try $0.twoPartyPeers() }).first(where: {
            $0.name.lowercased() == name.lowercased()
        }),
            taken.identityKey != channel.peerIdentity
        {
            channel.close()
            throw TwoPartyError.nameTaken(
                name: taken.name, fingerprint: PartyIdentity.fingerprint(of: taken.identityKey))
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
        show(
            "the co-signer shows this pairing request; compare the two fingerprints there:\n"
                + "this console:  \(identity.fingerprint)\nthe co-signer: \(PartyIdentity.fingerprint(of: channel.peerIdentity))"
        )
        do {
            try confirm("Does the co-signer show the same two fingerprints?", yes: yes)
        } catch {
            try? channel.send(
                party.abortFrame(
                    for: .checkFailed(
                        check: "pair.fingerprints", reason: "the console's user did not confirm the fingerprints")))
            channel.close()
            throw TwoPartyError.fingerprintsRejected
        }
        prompts?.status("pairing: two safe primes and a proof for the co-signer's signing proofs (a few seconds)…")
        // The answer already received is handed on as a responder's first frame would be.
        try ChannelRun.run(party, over: channel, initiator: false, first: answer)
        guard let group = party.group else { throw MPCError.badFrame(reason: "pairing ended without a group") }
        let stored = group.storedBytes
        let peer = TwoPartyPeer(
            name: name, role: .console, endpoint: endpoint.description, identityKey: channel.peerIdentity,
            nPed: stored.n, g: stored.g, h: stored.h, pairedAt: clock())
        try store.write { try $0.saveTwoPartyPeer(peer) }
        return peer
    }

    func pairedCosigner(named name: String?, _ store: WalletStore) throws -> TwoPartyPeer {
        let peers = try store.read { try $0.twoPartyPeers() }.filter { $0.role == .console }
        if let name {
            // By name, or by the address it was paired at.
            let address = (try? Endpoint(name))?.description
            guard
                let peer = peers.first(where: {
                    $0.name.lowercased() == name.lowercased() || ($0.endpoint != nil && $0.endpoint == address)
                })
            else {
                throw TwoPartyError.unknownCosigner(name: name, known: peers.map(\.name))
            }
            return peer
        }
        guard let only = peers.first else { throw TwoPartyError.noCosigner }
        guard peers.count == 1 else {
            throw TwoPartyError.unknownCosigner(name: "(none given)", known: peers.map(\.name))
        }
        return only
    }

    func openChannel(to peer: TwoPartyPeer, identity: PartyIdentity) throws -> SecureChannel {
        guard let text = peer.endpoint else { throw TwoPartyError.unknownCosigner(name: peer.name, known: []) }
        return try SecureChannel.open(
            try SocketStream.connect(try Endpoint(text)), identity: identity, initiator: true,
            pinned: peer.identityKey)
    }
}
