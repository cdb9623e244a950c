import WalletCrypto

// The DKG's proofs over the fixed Pedersen group (docs/two-party-protocol.md §3): ΠPE (c_key and
// Com hide the same x1) and ΠRP (Com's x1 lies in (−q·2^σ, q·2^σ)). Together they bound the
// Paillier plaintext, which ΠPDL and P2's signing step rely on.

/// ΠPE: 10 parallel rounds with 13-bit challenge chunks (a 130-bit challenge).
struct PaillierPedersenEqualProof: Sendable {
    static let rounds = 10
    static let chunkBits = 13
    let e: BigNum
    let d: [BigNum]
    let dd: [BigNum]
    let nu: BigNum

    static var bound: BigNum { Curve.qShifted(chunkBits + Curve.sigma) }

    static func chunk(_ e: BigNum, _ i: Int) throws(MPCError) -> BigNum {
        try arith { try e.shiftedRight(chunkBits * i).mod(BigNum(1 << chunkBits)) }
    }

    static func challenge(
        pk: PaillierPublicKey, cKey: BigNum, com: BigNum, cTilde: [BigNum], comTilde: BigNum,
        sid: [UInt8], pid: [UInt8]
    ) throws(MPCError) -> BigNum {
        var items = Items()
        try items.f(pk.n, 256)
        try items.f(cKey, 512)
        try items.f(com, 256)
        for c in cTilde { try items.f(c, 512) }
        try items.f(comTilde, 256)
        return try MPCHash.challengeBits(MPCHash.fs("dkg/pe", sid: sid, pid: pid, items), rounds * chunkBits)
    }

    /// Σ v_i·2^(13i).
    static func packed(_ values: [BigNum]) throws(MPCError) -> BigNum {
        try arith {
            var sum = Curve.zero
            for (i, v) in values.enumerated() { sum = try sum + v.shiftedLeft(chunkBits * i) }
            return sum
        }
    }

    static func prove(
        pk: PaillierPublicKey, cKey: BigNum, com: BigNum, x1: BigNum, rKey: BigNum, rho: BigNum,
        sid: [UInt8], pid: [UInt8], random: MPCRandom
    ) throws(MPCError) -> PaillierPedersenEqualProof {
        let group = PedersenGroup.shared
        while true {
            var r: [BigNum] = [], rTilde: [BigNum] = [], cTilde: [BigNum] = []
            for _ in 0..<rounds {
                let ri = try random.below(bound)
                let Ri = try random.unit(pk.n)
                r.append(ri)
                rTilde.append(Ri)
                cTilde.append(try pk.encrypt(ri, r: Ri))
            }
            let mu = try random.below(group.order)
            let comTilde = try group.commit(try packed(r), mu)
            let e = try challenge(pk: pk, cKey: cKey, com: com, cTilde: cTilde, comTilde: comTilde, sid: sid, pid: pid)
            var d: [BigNum] = [], dd: [BigNum] = []
            var inRange = true
            for i in 0..<rounds {
                let ei = try chunk(e, i)
                let di = try arith { try BigNum(bytes: (try ei * x1 + r[i]).bytes) }
                if !(di < bound) {
                    inRange = false
                    break
                }
                d.append(di)
                dd.append(
                    try arith {
                        try BigNum(bytes: BigNum.modMul(try BigNum.modExp(rKey, ei, pk.n), rTilde[i], pk.n).bytes)
                    })
            }
            guard inRange else { continue }
            let nu = try arith {
                try BigNum(bytes: BigNum.modAdd(try BigNum.modMul(e, rho, group.order), mu, group.order).bytes)
            }
            return PaillierPedersenEqualProof(e: e, d: d, dd: dd, nu: nu)
        }
    }

    func verify(pk: PaillierPublicKey, cKey: BigNum, com: BigNum, sid: [UInt8], pid: [UInt8]) throws(MPCError) {
        let name = "dkg.pe", group = PedersenGroup.shared
        try require(group.isMember(com), name, "Com is not in the Pedersen subgroup")
        try require(e.bitCount <= Self.rounds * Self.chunkBits, name, "the challenge is too wide")
        try require(nu < group.order, name, "ν is out of range")
        for i in 0..<Self.rounds {
            try require(d[i] < Self.bound, name, "d[\(i)] is out of range")
            try require(pk.isUnit(dd[i]), name, "D[\(i)] is not in Z*_N")
        }
        let cKeyInverse = try pk.inverse(cKey)
        var cTilde: [BigNum] = []
        for i in 0..<Self.rounds {
            let ei = try Self.chunk(e, i)
            cTilde.append(try pk.mul(try pk.pow(cKeyInverse, ei), try pk.encrypt(d[i], r: dd[i])))
        }
        let comInverse = try arith { try BigNum.modInverse(com, group.p) }
        let comTilde = try group.mul(try group.commit(try Self.packed(d), nu), try group.exp(comInverse, e))
        let again = try Self.challenge(
            pk: pk, cKey: cKey, com: com, cTilde: cTilde, comTilde: comTilde, sid: sid, pid: pid)
        try require(again == e, name, "the challenge does not match the recomputed commitments")
    }

    var wire: WireValue {
        get throws(MPCError) {
            .object([
                "e": e.wireU, "d": .list(d.map(\.wireU)),
                "dd": .list(try dd.map { x throws(MPCError) in try x.wire(256) }), "nu": try nu.wire(256),
            ])
        }
    }

    init(e: BigNum, d: [BigNum], dd: [BigNum], nu: BigNum) {
        self.e = e
        self.d = d
        self.dd = dd
        self.nu = nu
    }

    init(_ r: FieldReader) throws(MPCError) {
        e = try r.unbounded("e", maxBits: 130)
        d = try r.unboundedList("d", count: Self.rounds, maxBits: 400)
        dd = try r.fixedList("dd", count: Self.rounds, width: 256)
        nu = try r.fixed("nu", width: 256)
    }
}

/// ΠRP: 128 binary rounds (Boudot's range proof with slack), verified in one batch with the
/// verifier's fresh 64-bit weights.
struct PedersenRangeProof: Sendable {
    static let rounds = 128
    let c: [BigNum]
    let d: [BigNum]
    let f: [BigNum]

    static var bound: BigNum { Curve.qShifted(Curve.sigma) }

    static func challenge(com: BigNum, c: [BigNum], sid: [UInt8], pid: [UInt8]) throws(MPCError) -> BigNum {
        var items = Items()
        try items.f(com, 256)
        for ci in c { try items.f(ci, 256) }
        return try MPCHash.challengeBits(MPCHash.fs("dkg/rp", sid: sid, pid: pid, items), rounds)
    }

    static func prove(
        com: BigNum, x1: BigNum, rho: BigNum, sid: [UInt8], pid: [UInt8], random: MPCRandom
    ) throws(MPCError) -> PedersenRangeProof {
        let group = PedersenGroup.shared
        while true {
            var x: [BigNum] = [], r: [BigNum] = [], c: [BigNum] = []
            for _ in 0..<rounds {
                let xi = try random.below(bound), ri = try random.below(group.order)
                x.append(xi)
                r.append(ri)
                c.append(
                    try arith {
                        try BigNum(
                            bytes: group.mul(try group.exp(group.sqrtG, xi), try group.exp(group.sqrtH, ri)).bytes)
                    })
            }
            let e = try challenge(com: com, c: c, sid: sid, pid: pid)
            var d: [BigNum] = [], f: [BigNum] = []
            var inRange = true
            for i in 0..<rounds {
                let bit = e.bit(rounds - 1 - i)
                let di = try arith { try BigNum(bytes: (bit ? try x[i] + x1 : x[i]).bytes) }
                if !(di < bound) {
                    inRange = false
                    break
                }
                d.append(di)
                f.append(
                    try arith { try BigNum(bytes: (bit ? try BigNum.modAdd(r[i], rho, group.order) : r[i]).bytes) })
            }
            if inRange { return PedersenRangeProof(c: c, d: d, f: f) }
        }
    }

    /// `random` gives the batch weights: the verifier's own, fresh (never a test's deterministic source).
    func verify(com: BigNum, sid: [UInt8], pid: [UInt8], random: MPCRandom = MPCRandom()) throws(MPCError) {
        let name = "dkg.rp", group = PedersenGroup.shared
        try require(group.isMember(com), name, "Com is not in the Pedersen subgroup")
        for i in 0..<Self.rounds {
            try require(!c[i].isZero && c[i] < group.p, name, "c[\(i)] is out of range")
            try require(d[i] < Self.bound, name, "d[\(i)] is out of range")
            try require(f[i] < group.order, name, "f[\(i)] is out of range")
        }
        let e = try Self.challenge(com: com, c: c, sid: sid, pid: pid)
        let weightBound = try arith { try BigNum.power2(64) }
        var left = Curve.one, comExponent = Curve.zero, gExponent = Curve.zero, hExponent = Curve.zero
        for i in 0..<Self.rounds {
            let w = try random.below(weightBound, secret: false)
            left = try group.mul(left, try group.exp(c[i], w))
            try arith {
                if e.bit(Self.rounds - 1 - i) { comExponent = try comExponent + w }
                gExponent = try gExponent + (try w * d[i])
                hExponent = try BigNum.modAdd(hExponent, try BigNum.modMul(w, f[i], group.order), group.order)
            }
        }
        left = try group.mul(try group.mul(left, left), try group.exp(com, comExponent))
        let right = try group.commit(gExponent, hExponent)
        try require(left == right, name, "the batched range check fails")
    }

    var wire: WireValue {
        get throws(MPCError) {
            .object([
                "c": .list(try c.map { x throws(MPCError) in try x.wire(256) }), "d": .list(d.map(\.wireU)),
                "f": .list(try f.map { x throws(MPCError) in try x.wire(256) }),
            ])
        }
    }

    init(c: [BigNum], d: [BigNum], f: [BigNum]) {
        self.c = c
        self.d = d
        self.f = f
    }

    init(_ r: FieldReader) throws(MPCError) {
        c = try r.fixedList("c", count: Self.rounds, width: 256)
        d = try r.unboundedList("d", count: Self.rounds, maxBits: 330)
        f = try r.fixedList("f", count: Self.rounds, width: 256)
    }
}
