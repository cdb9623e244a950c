import WalletCore
import WalletCrypto

// Signing (docs/two-party-protocol.md §6): P1 asks, P2 recomputes the digest from the payload and
// approves, both commit to and exchange nonce points with proofs, P2 returns one Paillier
// ciphertext with ΠSIGN, and P1 — only after ΠSIGN verifies — decrypts and finishes an ordinary
// ECDSA signature, checked against the joint (child) key before anyone sees it.

/// What P1 asks P2 to co-sign.
public struct SignRequest: Sendable, Equatable {
    public let key: PublicKey
    public let path: DerivationPath
    public let payloadKind: String
    public let payload: [UInt8]
    public let digest: [UInt8]

    public init(key: PublicKey, path: DerivationPath, payloadKind: String, payload: [UInt8], digest: [UInt8]) {
        self.key = key
        self.path = path
        self.payloadKind = payloadKind
        self.payload = payload
        self.digest = digest
    }
}

/// The digest of a payload as both parties compute it (`digest`, `eth-message`); the console
/// adds its own kinds (typed data, transactions) through `SigningParty2`'s `digest`.
public enum PayloadDigest {
    public static func standard(kind: String, payload: [UInt8]) throws(MPCError) -> [UInt8] {
        switch kind {
        case "digest":
            try require(payload.count == 32, "sign.payload", "a digest payload is 32 bytes, got \(payload.count)")
            return payload
        case "eth-message":
            return PersonalMessage.digest(payload)
        default:
            throw .checkFailed(
                check: "sign.payload", reason: "payload kind \(kind) is not one this party can recompute")
        }
    }
}

/// The commitment of S2, over R1 and its proof (A, z) as their bytes (P2 checks the opening first).
func signCommitment(
    sid: [UInt8], pid1: [UInt8], m: [UInt8], r1: [UInt8], a: [UInt8], z: [UInt8], rho: [UInt8]
) -> [UInt8] {
    var items = Items()
    items.b(sid)
    items.b(pid1)
    items.b(m)
    items.p(raw: r1)
    items.p(raw: a)
    items.f(raw: z)
    items.b(rho)
    return MPCHash.h("sign/com", items)
}

/// c_key' = c_key·(1 + q·2^σ·N) mod N²: the plaintext shifted by q·2^σ, so it stays positive.
func shiftedKeyCiphertext(_ pk: PaillierPublicKey, _ cKey: BigNum) throws(MPCError) -> BigNum {
    try arith {
        try BigNum.modMul(
            cKey, try BigNum.modAdd(Curve.one, try BigNum.modMul(Curve.qShifted(Curve.sigma), pk.n, pk.nn), pk.nn),
            pk.nn)
    }
}

/// P1 of signing: the console.
public final class SigningParty1: TwoPartyStep {
    let share: Party1Share
    let group: UnknownOrderGroup
    let request: SignRequest
    let pid1: [UInt8], pid2: [UInt8]
    let random: MPCRandom
    public private(set) var frameSID = [UInt8](repeating: 0, count: 32)
    public private(set) var expectedStep = 1
    public var isDone: Bool { expectedStep >= 7 }
    /// The signature, verified against the (child) key.
    public private(set) var signature: RecoverableSignature?
    /// The key signed with: Q, or Q + δ·G for a child.
    public let childKey: PublicKey
    private let delta: BigNum
    private var sid: [UInt8] = [], k1 = Curve.zero, r1: PublicKey?, proof1: DiscreteLogProof?, rho: [UInt8] = [],
        r2: PublicKey?

    public init(
        share: Party1Share, group: UnknownOrderGroup, request: SignRequest, pid1: [UInt8], pid2: [UInt8],
        random: MPCRandom = MPCRandom()
    ) throws(MPCError) {
        guard request.key == share.q else { throw .badFrame(reason: "the request names another key") }
        (delta, childKey) = try JointDerivation.derive(share.q, chainCode: share.chainCode, path: request.path)
        self.share = share
        self.group = group
        self.request = request
        self.pid1 = pid1
        self.pid2 = pid2
        self.random = random
    }

    public func next(_ incoming: Frame?) throws(MPCError) -> Frame? {
        switch (expectedStep, incoming) {
        case (1, nil):
            frameSID = random.bytes(32)
            return Frame(
                type: "sign.s0", step: 0, sid: frameSID,
                fields: [
                    "q": .hex(request.key.compressed), "path": .string(request.path.description),
                    "payload_kind": .string(request.payloadKind), "payload": .hex(request.payload),
                    "m": .hex(request.digest),
                ])
        case (1, let f?):
            try f.expect("sign.s1", step: 1, sid: frameSID, fields: ["sid2"])
            sid = sessionID(
                "sign", n1: frameSID, n2: try FieldReader(f).bytes("sid2", count: 32), pid1: pid1, pid2: pid2)
            k1 = try random.nonZero(below: Curve.q)
            let r1 = try Curve.mulG(k1)
            let proof = try DiscreteLogProof.prove(x: k1, X: r1, label: "sign/dl1", sid: sid, pid: pid1, random: random)
            self.r1 = r1
            proof1 = proof
            rho = random.bytes(32)
            expectedStep = 3
            return Frame(
                type: "sign.s2", step: 2, sid: frameSID,
                fields: [
                    "com": .hex(
                        signCommitment(
                            sid: sid, pid1: pid1, m: request.digest, r1: r1.compressed, a: proof.a.compressed,
                            z: try Curve.scalar(proof.z), rho: rho))
                ])
        case (3, let f?):
            try f.expect("sign.s3", step: 3, sid: frameSID, fields: ["r2", "dl"])
            let r = FieldReader(f)
            let r2 = try r.point("r2")
            try DiscreteLogProof(try r.object("dl", fields: ["a", "z"])).verify(
                X: r2, label: "sign/dl2", sid: sid, pid: pid2, check: "sign.dl")
            self.r2 = r2
            guard let r1, let proof1 else { throw .badFrame(reason: "sign: no second step") }
            expectedStep = 5
            return Frame(
                type: "sign.s4", step: 4, sid: frameSID,
                fields: ["r1": .hex(r1.compressed), "dl": try proof1.wire, "rho": .hex(rho)])
        case (5, let f?):
            try f.expect("sign.s5", step: 5, sid: frameSID, fields: ["c", "proof"])
            let reader = FieldReader(f)
            guard let r2 else { throw .badFrame(reason: "sign: no third step") }
            let c = try reader.fixed("c", width: 512)
            let proof = try SignProof(try reader.object("proof", fields: ["w", "e", "z", "u", "v"]))
            let R = try Curve.mul(r2, k1)
            let r = try arith { try Curve.x(R).mod(Curve.q) }
            let pk = share.paillier.publicKey
            // Q2' = Q' − x1·G, computed here, never taken from the peer.
            let q2Child = try Curve.add(childKey, try Curve.mulG(share.x1).negated)
            let cKeyShifted = try shiftedKeyCiphertext(pk, share.cKey)
            let statement = SignProof.Statement(
                pk: pk, cKeyShifted: cKeyShifted, cR: try pk.pow(cKeyShifted, r), c: c, q2: q2Child,
                r2: r2, m: request.digest, r: r, group: group)
            try proof.verify(statement, sid: sid, pid: pid2)
            // Only now: decrypt and finish.
            let signature = try finish(c: c, R: R, r: r)
            self.signature = signature
            expectedStep = 7
            return Frame(
                type: "sign.s6", step: 6, sid: frameSID,
                fields: [
                    "r": .hex(signature.signature.r), "s": .hex(signature.signature.s),
                    "recid": .int(Int(signature.recoveryID)),
                ])
        default:
            throw .badFrame(reason: "sign: nothing expected now")
        }
    }

    private func finish(c: BigNum, R: PublicKey, r: BigNum) throws(MPCError) -> RecoverableSignature {
        let pk = share.paillier.publicKey
        var d = try share.paillier.decrypt(c)
        let half = try arith { try (pk.n + Curve.one).shiftedRight(1) }
        let dModQ: BigNum
        if d < half {
            dModQ = try arith { try d.mod(Curve.q) }
        } else {
            d = try arith { try pk.n - d }  // D − N, negative: −(N − D)
            dModQ = try arith { try BigNum.modSub(Curve.zero, d.mod(Curve.q), Curve.q) }
        }
        let k1Inverse = try arith { try BigNum.modExp(k1, try Curve.q - BigNum(2), Curve.q, constantTime: true) }
        var s = try arith { try BigNum.modMul(dModQ, k1Inverse, Curve.q) }
        try require(!s.isZero && !r.isZero, "sign.signature", "s or r is zero")
        var parity = R.compressed[0] == 3
        if Curve.halfQ < s {
            s = try arith { try Curve.q - s }
            parity.toggle()
        }
        let xR = try Curve.x(R)
        try require(xR < Curve.q, "sign.signature", "x(R) ≥ q; sign again")
        let signature: RecoverableSignature
        do {
            signature = try RecoverableSignature(
                signature: try ECDSASignature(r: try Curve.scalar(r), s: try arith { try s.bytes(count: 32)! }),
                recoveryID: parity ? 1 : 0)
        } catch {
            throw .checkFailed(check: "sign.signature", reason: "the signature does not parse")
        }
        let recovered = try? signature.recoverPublicKey(digest: request.digest)
        try require(
            Secp256k1.verify(signature.signature, digest: request.digest, publicKey: childKey) && recovered == childKey,
            "sign.signature", "the joint signature does not verify under the joint key")
        return signature
    }
}

/// P2 of signing: the co-signer.
public final class SigningParty2: TwoPartyStep {
    let share: Party2Share
    let group: UnknownOrderGroup
    let pid1: [UInt8], pid2: [UInt8]
    let random: MPCRandom
    let digest: (String, [UInt8]) throws(MPCError) -> [UInt8]
    let approve: (SignRequest) -> Bool
    public private(set) var frameSID = [UInt8](repeating: 0, count: 32)
    public private(set) var expectedStep = 0
    public var isDone: Bool { expectedStep >= 7 }
    /// The request as P2 recomputed it.
    public private(set) var request: SignRequest?
    /// The signature P1 reported, checked against the (child) key.
    public private(set) var signature: RecoverableSignature?
    private var sid: [UInt8] = [], childKey: PublicKey?, x2Child = Curve.zero, k2 = Curve.zero, r2: PublicKey?,
        com: [UInt8] = []
    private var ownR: [UInt8] = []

    public init(
        share: Party2Share, group: UnknownOrderGroup, pid1: [UInt8], pid2: [UInt8], random: MPCRandom = MPCRandom(),
        digest: @escaping (String, [UInt8]) throws(MPCError) -> [UInt8] = PayloadDigest.standard,
        approve: @escaping (SignRequest) -> Bool = { _ in true }
    ) {
        self.share = share
        self.group = group
        self.pid1 = pid1
        self.pid2 = pid2
        self.random = random
        self.digest = digest
        self.approve = approve
    }

    public func next(_ incoming: Frame?) throws(MPCError) -> Frame? {
        guard let f = incoming else { throw .badFrame(reason: "sign: P2 does not start") }
        switch expectedStep {
        case 0:
            try f.expect("sign.s0", step: 0, sid: f.sid, fields: ["q", "path", "payload_kind", "payload", "m"])
            frameSID = f.sid
            expectedStep = 2
            let r = FieldReader(f)
            try require(
                try r.point("q") == share.q, "sign.key", "the request names a key this co-signer does not share")
            let kind = try r.string("payload_kind")
            guard let payload = FieldReader.hexBytes(try r.string("payload")) else {
                throw r.bad("payload", "expected hex")
            }
            let m = try digest(kind, payload)
            try require(m == (try r.bytes("m", count: 32)), "sign.payload", "the digest does not match the payload")
            guard let path = try? DerivationPath(try r.string("path")), path.isAbsolute else {
                throw .checkFailed(check: "sign.path", reason: "not a derivation path")
            }
            let (delta, child) = try JointDerivation.derive(share.q, chainCode: share.chainCode, path: path)
            let request = SignRequest(key: share.q, path: path, payloadKind: kind, payload: payload, digest: m)
            try require(approve(request), "sign.refused", "the co-signer refused to sign")
            self.request = request
            childKey = child
            x2Child = try arith { try BigNum.modAdd(share.x2, delta, Curve.q) }
            let n2 = random.bytes(32)
            sid = sessionID("sign", n1: frameSID, n2: n2, pid1: pid1, pid2: pid2)
            return Frame(type: "sign.s1", step: 1, sid: frameSID, fields: ["sid2": .hex(n2)])
        case 2:
            try f.expect("sign.s2", step: 2, sid: frameSID, fields: ["com"])
            com = try FieldReader(f).bytes("com", count: 32)
            k2 = try random.nonZero(below: Curve.q)
            let r2 = try Curve.mulG(k2)
            self.r2 = r2
            expectedStep = 4
            return Frame(
                type: "sign.s3", step: 3, sid: frameSID,
                fields: [
                    "r2": .hex(r2.compressed),
                    "dl": try DiscreteLogProof.prove(
                        x: k2, X: r2, label: "sign/dl2", sid: sid, pid: pid2, random: random
                    ).wire,
                ])
        case 4:
            try f.expect("sign.s4", step: 4, sid: frameSID, fields: ["r1", "dl", "rho"])
            let reader = FieldReader(f)
            guard let request, let r2, let childKey else { throw .badFrame(reason: "sign: no first step") }
            let r1Bytes = try reader.bytes("r1", count: 33), rho = try reader.bytes("rho", count: 32)
            let dl = try reader.object("dl", fields: ["a", "z"])
            try require(
                signCommitment(
                    sid: sid, pid1: pid1, m: request.digest, r1: r1Bytes, a: try dl.bytes("a", count: 33),
                    z: try dl.bytes("z", count: 32), rho: rho) == com,
                "sign.opening", "the opening does not match the commitment")
            guard let r1 = try? PublicKey(bytes: r1Bytes) else {
                throw .checkFailed(check: "sign.r1", reason: "R1 is not a point on the curve")
            }
            guard let proof1 = try? DiscreteLogProof(dl) else {
                throw .checkFailed(check: "sign.dl", reason: "the proof's A is not a point")
            }
            try proof1.verify(X: r1, label: "sign/dl1", sid: sid, pid: pid1, check: "sign.dl")
            let R = try Curve.mul(r1, k2)
            let r = try arith { try Curve.x(R).mod(Curve.q) }
            try require(!r.isZero, "sign.r1", "r is zero")
            ownR = try Curve.scalar(r)
            let pk = share.paillier
            let cKeyShifted = try shiftedKeyCiphertext(pk, share.cKey)
            let cR = try pk.pow(cKeyShifted, r)
            let w1 = try arith { try BigNum.modExp(k2, try Curve.q - BigNum(2), Curve.q, constantTime: true) }
            let w2 = try arith { try BigNum.modMul(w1, x2Child, Curve.q) }
            let w3 = try random.below(Curve.q2Shifted(2 * Curve.sigma))
            let w4 = try random.unit(pk.n)
            let m = try arith { try BigNum(bytes: request.digest) }
            let c = try arith {
                try BigNum(
                    bytes: pk.mul(
                        try pk.pow(cR, w1), try pk.encrypt(try SignProof.plaintext(w1, w2, w3, m: m, r: r), r: w4)
                    ).bytes)
            }
            let statement = SignProof.Statement(
                pk: pk, cKeyShifted: cKeyShifted, cR: cR, c: c, q2: try Curve.mulG(x2Child), r2: r2,
                m: request.digest, r: r, group: group)
            let proof = try SignProof.prove(
                statement, w1: w1, w2: w2, w3: w3, w4: w4, sid: sid, pid: pid2, random: random)
            expectedStep = 6
            return Frame(
                type: "sign.s5", step: 5, sid: frameSID, fields: ["c": try c.wire(512), "proof": try proof.wire])
        case 6:
            try f.expect("sign.s6", step: 6, sid: frameSID, fields: ["r", "s", "recid"])
            let reader = FieldReader(f)
            guard let request, let childKey else { throw .badFrame(reason: "sign: no first step") }
            let recid = try reader.int("recid")
            guard (0...1).contains(recid), try reader.bytes("r", count: 32) == ownR,
                let sig = try? RecoverableSignature(
                    signature: try ECDSASignature(
                        r: try reader.bytes("r", count: 32), s: try reader.bytes("s", count: 32)),
                    recoveryID: UInt8(recid)),
                Secp256k1.verify(sig.signature, digest: request.digest, publicKey: childKey),
                (try? sig.recoverPublicKey(digest: request.digest)) == childKey
            else {
                throw .checkFailed(
                    check: "sign.signature", reason: "the reported signature does not verify under the joint key")
            }
            signature = sig
            expectedStep = 7
            return nil
        default:
            throw .badFrame(reason: "sign: nothing expected now")
        }
    }
}
