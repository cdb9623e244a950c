import WalletCrypto

/// ΠSIGN: P2 proves that its ciphertext c is C_r^(w1)·Enc(w1·m + w2·r + w3·q; w4) with
/// w1·R2 = G and w2·R2 = Q2', all ranges bounded (docs/two-party-protocol.md §6). P1 checks it
/// before it decrypts anything, so a lying co-signer learns nothing from a failed signature.
struct SignProof: Sendable {
    let w: [BigNum]
    let e: BigNum
    let z: [BigNum]
    let u: [BigNum]
    let v: BigNum

    /// The public values the proof is about.
    struct Statement {
        let pk: PaillierPublicKey
        let cKeyShifted: BigNum
        let cR: BigNum
        let c: BigNum
        let q2: PublicKey
        let r2: PublicKey
        let m: [UInt8]
        let r: BigNum
        let group: UnknownOrderGroup
    }

    static func challenge(
        _ s: Statement, w: [BigNum], wPrime: [BigNum], gStar: PublicKey, qStar: PublicKey, cPrime: BigNum,
        sid: [UInt8], pid: [UInt8]
    ) throws(MPCError) -> BigNum {
        var items = Items()
        try items.f(s.pk.n, 256)
        try items.f(s.cKeyShifted, 512)
        try items.f(s.c, 512)
        items.p(s.q2)
        items.p(s.r2)
        items.b(s.m)
        try items.f(s.r, 32)
        try items.f(s.group.n, 256)
        try items.f(s.group.g, 256)
        try items.f(s.group.h, 256)
        for x in w { try items.f(x, 256) }
        for x in wPrime { try items.f(x, 256) }
        items.p(gStar)
        items.p(qStar)
        try items.f(cPrime, 512)
        return try MPCHash.challengeBits(MPCHash.fs("sign/proof", sid: sid, pid: pid, items), Curve.kappa)
    }

    /// w1·m + w2·r + w3·q as an integer.
    static func plaintext(_ w1: BigNum, _ w2: BigNum, _ w3: BigNum, m: BigNum, r: BigNum) throws(MPCError) -> BigNum {
        try arith { try (try w1 * m) + (try w2 * r) + (try w3 * Curve.q) }
    }

    static func prove(
        _ s: Statement, w1: BigNum, w2: BigNum, w3: BigNum, w4: BigNum,
        sid: [UInt8], pid: [UInt8], random: MPCRandom
    ) throws(MPCError) -> SignProof {
        let group = s.group
        let nMask = try arith { try group.n.shiftedLeft(Curve.sigma) }
        let nMask2 = try arith { try group.n.shiftedLeft(2 * Curve.sigma + Curve.kappa) }
        let witness = [w1, w2, w3]
        var blind: [BigNum] = [], W: [BigNum] = []
        for wi in witness {
            let si = try random.below(nMask)
            blind.append(si)
            W.append(try arith { try BigNum(bytes: group.commit(wi, si).bytes) })
        }
        let m = try arith { try BigNum(bytes: s.m) }
        while true {
            let w1p = try random.below(Curve.qShifted(Curve.sigma + Curve.kappa))
            let w2p = try random.below(Curve.qShifted(Curve.sigma + Curve.kappa))
            let w3p = try random.below(Curve.q2Shifted(3 * Curve.sigma + Curve.kappa))
            guard let gStar = try? Curve.mul(s.r2, w1p), let qStar = try? Curve.mul(s.r2, w2p) else { continue }
            var blindPrime: [BigNum] = [], Wp: [BigNum] = []
            for wi in [w1p, w2p, w3p] {
                let si = try random.below(nMask2)
                blindPrime.append(si)
                Wp.append(try arith { try BigNum(bytes: group.commit(wi, si).bytes) })
            }
            let rEnc = try random.unit(s.pk.n)
            let cPrime = try arith {
                try BigNum(
                    bytes: s.pk.mul(
                        try s.pk.encrypt(try plaintext(w1p, w2p, w3p, m: m, r: s.r), r: rEnc),
                        try s.pk.pow(s.cR, w1p)
                    ).bytes)
            }
            let e = try challenge(s, w: W, wPrime: Wp, gStar: gStar, qStar: qStar, cPrime: cPrime, sid: sid, pid: pid)
            var z: [BigNum] = [], u: [BigNum] = []
            for i in 0..<3 {
                z.append(try arith { try BigNum(bytes: ([w1p, w2p, w3p][i] + (try e * witness[i])).bytes) })
                u.append(try arith { try BigNum(bytes: (blindPrime[i] + (try e * blind[i])).bytes) })
            }
            let v = try arith { try BigNum(bytes: BigNum.modMul(rEnc, try BigNum.modExp(w4, e, s.pk.n), s.pk.n).bytes) }
            return SignProof(w: W, e: e, z: z, u: u, v: v)
        }
    }

    func verify(_ s: Statement, sid: [UInt8], pid: [UInt8]) throws(MPCError) {
        let name = "sign.proof", group = s.group
        try require(s.pk.isCiphertext(s.c), name, "c is not in Z*_N²")
        for (i, wi) in w.enumerated() { try require(group.isUnit(wi), name, "W[\(i)] is not in Z*_N_ped") }
        try require(s.pk.isUnit(v), name, "v is not in Z*_N")
        try require(e.bitCount <= Curve.kappa, name, "the challenge is too wide")
        let zMax = [
            Curve.qShifted(Curve.sigma + Curve.kappa + 1), Curve.qShifted(Curve.sigma + Curve.kappa + 1),
            Curve.q2Shifted(3 * Curve.sigma + Curve.kappa + 1),
        ]
        let uMax = try arith { try group.n.shiftedLeft(2 * Curve.sigma + Curve.kappa + 1) }
        for i in 0..<3 {
            try require(z[i] < zMax[i], name, "z[\(i)] is out of range")
            try require(u[i] < uMax, name, "u[\(i)] is out of range")
        }
        // W_i' = g^(z_i)·h^(u_i)·W_i^(−e)
        var Wp: [BigNum] = []
        for i in 0..<3 {
            let wInverse = try arith { try BigNum.modInverse(w[i], group.n) }
            Wp.append(try group.mul(try group.commit(z[i], u[i]), try group.exp(wInverse, e)))
        }
        // G* = z1·R2 − e·G, Q* = z2·R2 − e·Q2'
        let eG = try Curve.mulG(e)
        let eQ2 = try Curve.mul(s.q2, e)
        guard let gStar = try? Curve.add(try Curve.mul(s.r2, z[0]), eG.negated),
            let qStar = try? Curve.add(try Curve.mul(s.r2, z[1]), eQ2.negated)
        else {
            throw .checkFailed(check: name, reason: "a commitment point is the point at infinity")
        }
        // C' = Enc(z1·m + z2·r + z3·q; v)·C_r^(z1)·c^(−e)
        let m = try arith { try BigNum(bytes: s.m) }
        let cPrime = try s.pk.mul(
            try s.pk.mul(
                try s.pk.encrypt(try Self.plaintext(z[0], z[1], z[2], m: m, r: s.r), r: v),
                try s.pk.pow(s.cR, z[0])),
            try s.pk.pow(try s.pk.inverse(s.c), e))
        let again = try Self.challenge(
            s, w: w, wPrime: Wp, gStar: gStar, qStar: qStar, cPrime: cPrime, sid: sid, pid: pid)
        try require(again == e, name, "the co-signer's proof of its ciphertext does not verify")
    }

    var wire: WireValue {
        get throws(MPCError) {
            .object([
                "w": .list(try w.map { x throws(MPCError) in try x.wire(256) }), "e": e.wireU,
                "z": .list(z.map(\.wireU)), "u": .list(u.map(\.wireU)), "v": try v.wire(256),
            ])
        }
    }

    init(w: [BigNum], e: BigNum, z: [BigNum], u: [BigNum], v: BigNum) {
        self.w = w
        self.e = e
        self.z = z
        self.u = u
        self.v = v
    }

    init(_ r: FieldReader) throws(MPCError) {
        w = try r.fixedList("w", count: 3, width: 256)
        e = try r.unbounded("e", maxBits: Curve.kappa)
        z = try r.unboundedList("z", count: 3, maxBits: 1024)
        u = try r.unboundedList("u", count: 3, maxBits: 2048 + 2 * Curve.sigma + Curve.kappa + 2)
        v = try r.fixed("v", width: 256)
    }
}
