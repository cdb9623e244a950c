// Signing with a two-party key (docs/two-party-protocol.md §6): the payload the co-signer is
// shown, and the `Signer` that runs the protocol with it.
import Foundation
import KCSErrors
import MPCLink
import WalletCore
import WalletCrypto
import WalletMPC
import WalletStore

/// A payload as the two-party protocol carries it (docs/two-party-protocol.md §6): the co-signer
/// computes the digest from it itself.
extension SigningPayload {
    /// A payload as it travels: its kind (`eth-message`, `eth-typed`, `eth-tx`, else a digest) and bytes.
    init(kind: String, payload: [UInt8]) {
        switch kind {
        case "eth-message": self = .message(payload)
        case "eth-typed": self = .typed(payload)
        case "eth-tx": self = .transaction(payload)
        case "eth-auth": self = .authorization(payload)
        default: self = .digest
        }
    }

    var kind: String {
        switch self {
        case .digest: "digest"
        case .message: "eth-message"
        case .typed: "eth-typed"
        case .transaction: "eth-tx"
        case .authorization: "eth-auth"
        }
    }

    func bytes(digest: [UInt8]) -> [UInt8] {
        switch self {
        case .digest: digest
        case .message(let b), .typed(let b), .transaction(let b), .authorization(let b): b
        }
    }

    static func signatureKind(_ kind: String) -> SignatureKind {
        switch kind {
        case "eth-message": .message
        case "eth-typed": .typed
        case "eth-tx": .transaction
        case "eth-auth": .authorization
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
        case "eth-auth":
            guard (try? EIP7702Authorization.decodePreimage(payload)) != nil else {
                throw .checkFailed(check: "sign.payload", reason: "the EIP-7702 authorization does not parse")
            }
            return Hash.keccak256(payload)
        default:
            return try PayloadDigest.standard(kind: kind, payload: payload)
        }
    }
}

/// A two-party key (or an HD child of one): signs with the co-signer; the signature is checked
/// against the joint key before it is returned and recorded.
struct TwoPartySigner: Signer {
    let session: Session
    let record: KeyRecord

    var keyName: String { record.name }
    var keyRecord: KeyRecord? { record }

    /// The joint key (or its HD child) as stored, known without the vault.
    func publicKey() throws -> PublicKey {
        try SoftwareSigner.storedKey(of: record, signingKinds: [.hdMaster, .hdChild])
    }

    func make(_ request: SigningRequest) throws -> MadeSignature {
        let digest = request.digest
        let store = try session.unlockedStore()
        let (record, master, path, secret, parameters, storedPeer) = try store.read { tx in
            let record = try tx.key(id: self.record.id)
            if record.retired { throw KeyCommandError.retired(name: record.name, successor: nil) }
            let (master, path) = try session.twoPartySigning(record, tx)
            let (secret, parameters) = try tx.openTwoPartyShare(of: master)
            return (record, master, path, secret, parameters, try tx.twoPartyPeer(named: parameters.peer))
        }
        if parameters.status == .locked {
            throw TwoPartyError.locked(name: master.name, reason: parameters.lockedReason ?? "locked")
        }
        guard let peer = storedPeer, let twoKind = TwoPartyKind(rawValue: parameters.kind) else {
            throw TwoPartyError.unknownCosigner(name: parameters.peer, known: [])
        }
        if let when = peer.misbehavedAt {
            // Asked at a terminal; `sign` has no --yes to pass, so a batch run is refused here.
            guard session.prompts?.isInteractive == true else {
                throw TwoPartyError.peerMisbehaved(name: peer.name, check: peer.misbehaviour ?? "a check")
            }
            try session.confirm(
                "\(peer.name) failed a check of the protocol at \(when) (\(peer.misbehaviour ?? "")). Sign with it anyway?",
                yes: false)
        }
        let share = try Party1Share(
            kind: twoKind, q: try PublicKey(bytes: parameters.q), q2: try PublicKey(bytes: parameters.qOther),
            secret: secret, n: parameters.n, cKey: parameters.cKey, chainCode: parameters.chainCode,
            sid: parameters.sid, transcript: parameters.transcript)
        let group = try UnknownOrderGroup(stored: peer.nPed, g: peer.g, h: peer.h)
        let payload = request.payload
        let mpcRequest = SignRequest(
            key: share.q, path: path, payloadKind: payload.kind, payload: payload.bytes(digest: digest), digest: digest)
        let identity = try session.twoPartyIdentity(store)
        let party = try SigningParty1(
            share: share, group: group, request: mpcRequest, pid1: identity.pid, pid2: Hash.sha256(peer.identityKey))
        session.prompts?.status("signing with \(peer.name)…")
        do {
            try session.audited(
                .sign, role: .console, peer: peer.name, key: record.name, digest: digest, path: path.description,
                store: store
            ) { _ in
                let channel = try session.openChannel(to: peer, identity: identity)
                try ChannelRun.run(party, over: channel, initiator: true) { step in
                    if session.explainTwoParty {
                        TwoPartyTeaching.before(TwoPartyTeaching.sign, step: step, first: 0).forEach(session.show)
                    }
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
        guard let signature = party.signature else {
            throw MPCError.badFrame(reason: "signing ended without a signature")
        }
        return MadeSignature(
            signature: signature, publicKey: party.childKey, expected: party.childKey, path: record.path,
            checkedAgainst: "the joint key, by recovery (co-signed by \(peer.name))", warning: nil, store: store)
    }
}
