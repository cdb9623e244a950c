import WalletCrypto

// The DKG (docs/two-party-protocol.md §5): P1 commits to Q1 and its chain-code half, sends its
// Paillier key and Enc(x1); P2 answers with Q2, its proof and its chain-code half; P1 opens and
// proves everything about N and c_key; P2 checks in order, cheapest first, and confirms with
// the transcript hash. Neither party ever holds x = x1 + x2.

/// What P1 keeps of a joint key.
public struct Party1Share: Sendable {
    public let kind: TwoPartyKind
    /// The joint public key Q = Q1 + Q2.
    public let q: PublicKey
    public let q1: PublicKey
    public let q2: PublicKey
    let x1: BigNum
    public let paillier: PaillierSecretKey
    public let cKey: BigNum
    /// The joint chain code (`hd-master` only).
    public let chainCode: [UInt8]?
    public let sid: [UInt8]
    public let transcript: [UInt8]
}

/// What P2 keeps of a joint key.
public struct Party2Share: Sendable {
    public let kind: TwoPartyKind
    public let q: PublicKey
    public let q1: PublicKey
    public let q2: PublicKey
    let x2: BigNum
    public let paillier: PaillierPublicKey
    public let cKey: BigNum
    public let chainCode: [UInt8]?
    public let sid: [UInt8]
    public let transcript: [UInt8]
}

/// The commitment of K1; `q1` as its 33 bytes (P2 checks the opening before the point).
func dkgCommitment(n1: [UInt8], pid1: [UInt8], kind: TwoPartyKind, q1: [UInt8], cc1: [UInt8], rho: [UInt8]) -> [UInt8] {
    var items = Items()
    items.b(n1)
    items.b(pid1)
    items.s(kind.rawValue)
    items.p(raw: q1)
    items.b(cc1)
    items.b(rho)
    return MPCHash.h("dkg/com", items)
}

func chainCode(sid: [UInt8], cc1: [UInt8], cc2: [UInt8]) -> [UInt8] {
    var items = Items()
    items.b(sid)
    items.b(cc1)
    items.b(cc2)
    return MPCHash.h("chaincode", items)
}

func transcriptHash(_ frames: [[UInt8]]) -> [UInt8] {
    var items = Items()
    for f in frames { items.b(f) }
    return MPCHash.h("dkg/transcript", items)
}

/// P1 of the DKG.
public final class KeyGenerationParty1: TwoPartyStep {
    let kind: TwoPartyKind
    let pid1: [UInt8], pid2: [UInt8]
    let random: MPCRandom
    let makePaillier: () throws(MPCError) -> PaillierSecretKey
    public private(set) var frameSID = [UInt8](repeating: 0, count: 32)
    public private(set) var expectedStep = 1
    public var isDone: Bool { expectedStep >= 5 }
    /// The share, once P2 confirmed the key.
    public private(set) var share: Party1Share?

    private var x1 = Curve.zero, q1: PublicKey?, cc1: [UInt8] = [], rho: [UInt8] = []
    private var paillier: PaillierSecretKey?, rKey = Curve.zero, cKey = Curve.zero
    private var frames: [[UInt8]] = []
    private var pending: Party1Share?

    public init(
        kind: TwoPartyKind, pid1: [UInt8], pid2: [UInt8], random: MPCRandom = MPCRandom(),
        paillier: @escaping () throws(MPCError) -> PaillierSecretKey = PaillierSecretKey.generate
    ) {
        self.kind = kind
        self.pid1 = pid1
        self.pid2 = pid2
        self.random = random
        makePaillier = paillier
    }

    public func next(_ incoming: Frame?) throws(MPCError) -> Frame? {
        switch (expectedStep, incoming) {
        case (1, nil):
            frameSID = random.bytes(32)
            x1 = try random.nonZero(below: Curve.q)
            let q1 = try Curve.mulG(x1)
            self.q1 = q1
            cc1 = random.bytes(32)
            rho = random.bytes(32)
            let key = try makePaillier()
            paillier = key
            rKey = try random.unit(key.publicKey.n)
            cKey = try arith { try BigNum(bytes: key.publicKey.encrypt(x1, r: rKey).bytes) }
            let frame = Frame(
                type: "dkg.k1", step: 1, sid: frameSID,
                fields: [
                    "kind": .string(kind.rawValue),
                    "com": .hex(
                        dkgCommitment(n1: frameSID, pid1: pid1, kind: kind, q1: q1.compressed, cc1: cc1, rho: rho)),
                    "n": try key.publicKey.n.wire(256), "c_key": try cKey.wire(512),
                ])
            frames.append(frame.json)
            expectedStep = 2
            return frame
        case (2, let f?):
            try f.expect("dkg.k2", step: 2, sid: frameSID, fields: ["sid2", "q2", "dl", "cc2"])
            frames.append(f.json)
            let r = FieldReader(f)
            let sid = sessionID("dkg", n1: frameSID, n2: try r.bytes("sid2", count: 32), pid1: pid1, pid2: pid2)
            let q2 = try r.point("q2")
            let cc2 = try r.bytes("cc2", count: 32)
            try DiscreteLogProof(try r.object("dl", fields: ["a", "z"])).verify(
                X: q2, label: "dkg/dl2", sid: sid, pid: pid2, check: "dkg.dl")
            guard let q1, let paillier else { throw .badFrame(reason: "dkg: no first step") }
            guard let q = try? Curve.add(q1, q2) else {
                throw .checkFailed(check: "dkg.q2", reason: "Q1 + Q2 is the point at infinity")
            }
            let pk = paillier.publicKey, group = PedersenGroup.shared
            let pedersenRho = try random.below(group.order)
            let com = try arith { try BigNum(bytes: group.commit(x1, pedersenRho).bytes) }
            let frame = Frame(
                type: "dkg.k3", step: 3, sid: frameSID,
                fields: [
                    "q1": .hex(q1.compressed), "cc1": .hex(cc1), "rho": .hex(rho),
                    "dl": try DiscreteLogProof.prove(
                        x: x1, X: q1, label: "dkg/dl1", sid: sid, pid: pid1, random: random
                    ).wire,
                    "com_ped": try com.wire(256),
                    "vp": try ValidPaillierProof.prove(key: paillier, sid: sid, pid: pid1).wire,
                    "pdl": try PaillierDiscreteLogProof.prove(
                        pk: pk, cKey: cKey, q1: q1, x1: x1, rKey: rKey, sid: sid, pid: pid1,
                        random: random
                    ).wire,
                    "pe": try PaillierPedersenEqualProof.prove(
                        pk: pk, cKey: cKey, com: com, x1: x1, rKey: rKey, rho: pedersenRho,
                        sid: sid, pid: pid1, random: random
                    ).wire,
                    "rp": try PedersenRangeProof.prove(
                        com: com, x1: x1, rho: pedersenRho, sid: sid, pid: pid1, random: random
                    ).wire,
                ])
            frames.append(frame.json)
            pending = Party1Share(
                kind: kind, q: q, q1: q1, q2: q2, x1: x1, paillier: paillier, cKey: cKey,
                chainCode: kind == .hdMaster ? chainCode(sid: sid, cc1: cc1, cc2: cc2) : nil,
                sid: sid, transcript: transcriptHash(frames))
            expectedStep = 4
            return frame
        case (4, let f?):
            try f.expect("dkg.k4", step: 4, sid: frameSID, fields: ["result", "transcript", "q"])
            let r = FieldReader(f)
            guard let pending else { throw .badFrame(reason: "dkg: no third step") }
            try require(try r.string("result") == "confirm", "dkg.transcript", "the co-signer did not confirm")
            try require(
                try r.bytes("transcript", count: 32) == pending.transcript, "dkg.transcript", "the transcripts differ")
            try require(try r.point("q") == pending.q, "dkg.transcript", "the joint keys differ")
            share = pending
            expectedStep = 5
            return nil
        default:
            throw .badFrame(reason: "dkg: nothing expected now")
        }
    }
}

/// P2 of the DKG.
public final class KeyGenerationParty2: TwoPartyStep {
    let pid1: [UInt8], pid2: [UInt8]
    let random: MPCRandom
    public private(set) var frameSID = [UInt8](repeating: 0, count: 32)
    public private(set) var expectedStep = 1
    public var isDone: Bool { expectedStep >= 5 }
    /// The share, once every check passed (stored before P2 confirms).
    public private(set) var share: Party2Share?

    private var kind = TwoPartyKind.ecdsa, com: [UInt8] = [], pk: PaillierPublicKey?, cKey = Curve.zero
    private var x2 = Curve.zero, q2: PublicKey?, cc2: [UInt8] = [], sid: [UInt8] = []
    private var frames: [[UInt8]] = []

    public init(pid1: [UInt8], pid2: [UInt8], random: MPCRandom = MPCRandom()) {
        self.pid1 = pid1
        self.pid2 = pid2
        self.random = random
    }

    public func next(_ incoming: Frame?) throws(MPCError) -> Frame? {
        guard let f = incoming else { throw .badFrame(reason: "dkg: P2 does not start") }
        switch expectedStep {
        case 1:
            try f.expect("dkg.k1", step: 1, sid: f.sid, fields: ["kind", "com", "n", "c_key"])
            frameSID = f.sid
            frames.append(f.json)
            let r = FieldReader(f)
            guard let kind = TwoPartyKind(rawValue: try r.string("kind")) else {
                throw r.bad("kind", "expected ecdsa or hd-master")
            }
            self.kind = kind
            com = try r.bytes("com", count: 32)
            let pk = try PaillierPublicKey(n: try r.fixed("n", width: 256))
            self.pk = pk
            cKey = try r.fixed("c_key", width: 512)
            try require(!cKey.isZero && cKey < pk.nn, "dkg.c-key", "c_key is out of range")
            // Draw order (docs/two-party-protocol.md §2): x2, sid2, cc2, then the proof.
            x2 = try random.nonZero(below: Curve.q)
            let n2 = random.bytes(32)
            sid = sessionID("dkg", n1: frameSID, n2: n2, pid1: pid1, pid2: pid2)
            let q2 = try Curve.mulG(x2)
            self.q2 = q2
            cc2 = random.bytes(32)
            let frame = Frame(
                type: "dkg.k2", step: 2, sid: frameSID,
                fields: [
                    "sid2": .hex(n2), "q2": .hex(q2.compressed), "cc2": .hex(cc2),
                    "dl": try DiscreteLogProof.prove(
                        x: x2, X: q2, label: "dkg/dl2", sid: sid, pid: pid2, random: random
                    ).wire,
                ])
            frames.append(frame.json)
            expectedStep = 3
            return frame
        case 3:
            try f.expect(
                "dkg.k3", step: 3, sid: frameSID,
                fields: ["q1", "cc1", "rho", "dl", "com_ped", "vp", "pdl", "pe", "rp"])
            frames.append(f.json)
            let r = FieldReader(f)
            guard let pk, let q2 else { throw .badFrame(reason: "dkg: no first step") }
            // Cheap checks first: the opening, Q1 and its proof, the modulus; then the proofs.
            let q1Bytes = try r.bytes("q1", count: 33)
            let cc1 = try r.bytes("cc1", count: 32), rho = try r.bytes("rho", count: 32)
            try require(
                dkgCommitment(n1: frameSID, pid1: pid1, kind: kind, q1: q1Bytes, cc1: cc1, rho: rho) == com,
                "dkg.opening", "the opening does not match the commitment of the first message")
            guard let q1 = try? PublicKey(bytes: q1Bytes) else {
                throw .checkFailed(check: "dkg.q1", reason: "Q1 is not a point on the curve")
            }
            try DiscreteLogProof(try r.object("dl", fields: ["a", "z"])).verify(
                X: q1, label: "dkg/dl1", sid: sid, pid: pid1, check: "dkg.dl")
            try ModulusCheck.check(pk.n, name: "dkg.n")
            try require(pk.isCiphertext(cKey), "dkg.c-key", "c_key shares a factor with N")
            try ValidPaillierProof(r, key: "vp").verify(n: pk.n, sid: sid, pid: pid1)
            try PaillierDiscreteLogProof(try r.object("pdl", fields: ["c_r", "r", "z", "r_z"]))
                .verify(pk: pk, cKey: cKey, q1: q1, sid: sid, pid: pid1)
            let com = try r.fixed("com_ped", width: 256)
            try PaillierPedersenEqualProof(try r.object("pe", fields: ["e", "d", "dd", "nu"]))
                .verify(pk: pk, cKey: cKey, com: com, sid: sid, pid: pid1)
            try PedersenRangeProof(try r.object("rp", fields: ["c", "d", "f"])).verify(com: com, sid: sid, pid: pid1)
            guard let q = try? Curve.add(q1, q2) else {
                throw .checkFailed(check: "dkg.q1", reason: "Q1 + Q2 is the point at infinity")
            }
            let transcript = transcriptHash(frames)
            share = Party2Share(
                kind: kind, q: q, q1: q1, q2: q2, x2: x2, paillier: pk, cKey: cKey,
                chainCode: kind == .hdMaster ? chainCode(sid: sid, cc1: cc1, cc2: cc2) : nil,
                sid: sid, transcript: transcript)
            expectedStep = 5
            return Frame(
                type: "dkg.k4", step: 4, sid: frameSID,
                fields: [
                    "result": .string("confirm"), "transcript": .hex(transcript), "q": .hex(q.compressed),
                ])
        default:
            throw .badFrame(reason: "dkg: nothing expected now")
        }
    }
}

// MARK: - A share as the store keeps it (docs/two-party.md, "Storage")

extension Party1Share {
    /// The secret part: x1 (32 bytes) ‖ p (128) ‖ q (128), the Paillier primes. Sealed by the store.
    public var secretBytes: Secret {
        get throws(MPCError) {
            guard let x = x1.bytes(count: 32), let p = paillier.p.bytes(count: 128),
                let q = paillier.q.bytes(count: 128)
            else {
                throw .arithmetic("a share that does not fit its fields")
            }
            var all = x + p + q
            defer { Secret.wipe(&all) }
            return Secret(bytes: all)
        }
    }

    /// A share from its sealed secret part and the public parameters stored beside it; checks
    /// that they belong together (x1·G + Q2 = Q, p·q = N).
    public init(
        kind: TwoPartyKind, q: PublicKey, q2: PublicKey, secret: Secret, n: [UInt8], cKey: [UInt8], chainCode: [UInt8]?,
        sid: [UInt8], transcript: [UInt8]
    ) throws(MPCError) {
        guard secret.count == 288 else { throw .badFrame(reason: "a stored share of \(secret.count) bytes") }
        var raw = secret.withUnsafeBytes { Array($0) }
        defer { Secret.wipe(&raw) }
        let (x1, p, pq) = try arith {
            (
                try BigNum(bytes: Array(raw[0..<32]), secret: true),
                try BigNum(bytes: Array(raw[32..<160]), secret: true),
                try BigNum(bytes: Array(raw[160..<288]), secret: true)
            )
        }
        let paillier = try PaillierSecretKey(p: p, q: pq)
        let q1 = try Curve.mulG(x1)
        guard paillier.publicKey.n.bytes(count: 256) == n, (try? Curve.add(q1, q2)) == q else {
            throw .checkFailed(check: "store.share", reason: "the stored share does not match its public parameters")
        }
        self.init(
            kind: kind, q: q, q1: q1, q2: q2, x1: x1, paillier: paillier, cKey: try arith { try BigNum(bytes: cKey) },
            chainCode: chainCode, sid: sid, transcript: transcript)
    }
}

extension Party2Share {
    /// The secret part: x2 (32 bytes). Sealed by the store.
    public var secretBytes: Secret {
        get throws(MPCError) {
            guard var x = x2.bytes(count: 32) else { throw .arithmetic("a share that does not fit its field") }
            defer { Secret.wipe(&x) }
            return Secret(bytes: x)
        }
    }

    public init(
        kind: TwoPartyKind, q: PublicKey, q1: PublicKey, secret: Secret, n: [UInt8], cKey: [UInt8], chainCode: [UInt8]?,
        sid: [UInt8], transcript: [UInt8]
    ) throws(MPCError) {
        guard secret.count == 32 else { throw .badFrame(reason: "a stored share of \(secret.count) bytes") }
        var raw = secret.withUnsafeBytes { Array($0) }
        defer { Secret.wipe(&raw) }
        let x2 = try arith { try BigNum(bytes: raw, secret: true) }
        let q2 = try Curve.mulG(x2)
        guard (try? Curve.add(q1, q2)) == q, n.count == 256 else {
            throw .checkFailed(check: "store.share", reason: "the stored share does not match its public parameters")
        }
        self.init(
            kind: kind, q: q, q1: q1, q2: q2, x2: x2,
            paillier: try PaillierPublicKey(n: try arith { try BigNum(bytes: n) }),
            cKey: try arith { try BigNum(bytes: cKey) }, chainCode: chainCode, sid: sid, transcript: transcript)
    }
}

extension UnknownOrderGroup {
    /// The group from its stored bytes (256 each).
    public init(stored n: [UInt8], g: [UInt8], h: [UInt8]) throws(MPCError) {
        self.init(
            n: try arith { try BigNum(bytes: n) }, g: try arith { try BigNum(bytes: g) },
            h: try arith { try BigNum(bytes: h) })
    }

    /// N_ped, g, h as 256 bytes each.
    public var storedBytes: (n: [UInt8], g: [UInt8], h: [UInt8]) {
        (n.bytes(count: 256) ?? [], g.bytes(count: 256) ?? [], h.bytes(count: 256) ?? [])
    }
}

extension PaillierPublicKey {
    /// N as 256 bytes.
    public var nBytes: [UInt8] { n.bytes(count: 256) ?? [] }
}

extension BigNum {
    /// The number as `width` bytes (for the store's fixed-width columns).
    public func fixedBytes(_ width: Int) -> [UInt8] { bytes(count: width) ?? [] }
}
