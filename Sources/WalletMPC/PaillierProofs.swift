import WalletCrypto

// The DKG's proofs about P1's Paillier key and its encrypted share (docs/two-party-protocol.md
// §3): ΠVP (the modulus is a valid Paillier modulus) and ΠPDL (c_key encrypts the discrete log
// of Q1). ΠPDL is sound only together with ΠPE and ΠRP, which bound the plaintext.

enum ModulusCheck {
    /// The product of the primes below 2^13, for the "no small factor" check.
    static let smallPrimes: BigNum = {
        let limit = 1 << 13
        var sieve = [Bool](repeating: true, count: limit)
        var product = Curve.one
        for i in 2..<limit where sieve[i] {
            var j = i * i
            while j < limit {
                sieve[j] = false
                j += i
            }
            product = try! product * BigNum(UInt64(i))
        }
        return product
    }()

    /// |N| = 2048, N odd, no prime factor below 2^13.
    static func check(_ n: BigNum, name: String) throws(MPCError) {
        try require(n.bitCount == PaillierPublicKey.bits, name, "the Paillier modulus has \(n.bitCount) bits, not 2048")
        try require(n.isOdd, name, "the Paillier modulus is even")
        try require(
            (try? BigNum.gcd(n, smallPrimes)) == Curve.one, name, "the Paillier modulus has a prime factor below 2^13")
    }
}

/// ΠVP: N-th roots of 10 hashed values, which exist for all of them only when gcd(N, φ(N)) = 1.
struct ValidPaillierProof: Sendable {
    static let rounds = 10
    let roots: [BigNum]

    static func rho(_ i: Int, n: BigNum, sid: [UInt8], pid: [UInt8]) throws(MPCError) -> BigNum {
        var items = Items()
        items.b(sid)
        items.b(pid)
        try items.f(n, 256)
        items.u(try arith { try BigNum(UInt64(i)) })
        return try arith { try MPCHash.h2i("dkg/vp", items, bits: 2176).mod(n) }
    }

    static func prove(key: PaillierSecretKey, sid: [UInt8], pid: [UInt8]) throws(MPCError) -> ValidPaillierProof {
        let n = key.publicKey.n
        let d = try arith { try BigNum.modInverse(n, key.phi) }
        var roots: [BigNum] = []
        for i in 0..<rounds {
            let rho = try rho(i, n: n, sid: sid, pid: pid)
            roots.append(try arith { try BigNum(bytes: BigNum.modExp(rho, d, n, constantTime: true).bytes) })
        }
        return ValidPaillierProof(roots: roots)
    }

    func verify(n: BigNum, sid: [UInt8], pid: [UInt8]) throws(MPCError) {
        for (i, root) in roots.enumerated() {
            let rho = try Self.rho(i, n: n, sid: sid, pid: pid)
            try require(
                !rho.isZero && (try? BigNum.gcd(rho, n)) == Curve.one, "dkg.vp",
                "a challenge value shares a factor with N")
            try require(!root.isZero && root < n, "dkg.vp", "root \(i) is out of range")
            try require(
                (try? BigNum.modExp(root, n, n)) == rho, "dkg.vp", "root \(i) is not an N-th root of its challenge")
        }
    }

    var wire: WireValue { get throws(MPCError) { .list(try roots.map { r throws(MPCError) in try r.wire(256) }) } }
    init(roots: [BigNum]) { self.roots = roots }
    init(_ r: FieldReader, key: String) throws(MPCError) {
        roots = try r.fixedList(key, count: Self.rounds, width: 256)
    }
}

/// ΠPDL: c_key = Enc(x1; r_key) and Q1 = x1·G.
struct PaillierDiscreteLogProof: Sendable {
    let cR: BigNum
    let R: PublicKey
    let z: BigNum
    let rZ: BigNum

    static let label = "dkg/pdl"

    static func challenge(
        pk: PaillierPublicKey, cKey: BigNum, q1: PublicKey, cR: BigNum, R: PublicKey,
        sid: [UInt8], pid: [UInt8]
    ) throws(MPCError) -> BigNum {
        var items = Items()
        try items.f(pk.n, 256)
        try items.f(cKey, 512)
        items.p(q1)
        try items.f(cR, 512)
        items.p(R)
        return try MPCHash.challengeModQ(MPCHash.fs(label, sid: sid, pid: pid, items))
    }

    static func prove(
        pk: PaillierPublicKey, cKey: BigNum, q1: PublicKey, x1: BigNum, rKey: BigNum,
        sid: [UInt8], pid: [UInt8], random: MPCRandom
    ) throws(MPCError) -> PaillierDiscreteLogProof {
        let r0 = try random.nonZero(below: Curve.q)
        let r2 = try random.below(Curve.qShifted(Curve.sigma))
        let r = try arith { try r2 * Curve.q + r0 }
        let rRand = try random.unit(pk.n)
        let cR = try arith { try BigNum(bytes: pk.encrypt(r, r: rRand).bytes) }
        let R = try Curve.mulG(r0)
        let e = try challenge(pk: pk, cKey: cKey, q1: q1, cR: cR, R: R, sid: sid, pid: pid)
        let z = try arith { try BigNum(bytes: (try r + (try e * x1)).bytes) }
        let rZ = try arith { try BigNum(bytes: BigNum.modMul(rRand, try BigNum.modExp(rKey, e, pk.n), pk.n).bytes) }
        return PaillierDiscreteLogProof(cR: cR, R: R, z: z, rZ: rZ)
    }

    func verify(pk: PaillierPublicKey, cKey: BigNum, q1: PublicKey, sid: [UInt8], pid: [UInt8]) throws(MPCError) {
        let name = "dkg.pdl"
        try require(pk.isCiphertext(cR), name, "c_r is not in Z*_N²")
        try require(pk.isUnit(rZ), name, "r_z is not in Z*_N")
        let bound = try arith { try (Curve.q * Curve.q) * (try Curve.power2Sigma + Curve.one) }
        try require(z < bound, name, "z is out of range")
        let e = try Self.challenge(pk: pk, cKey: cKey, q1: q1, cR: cR, R: R, sid: sid, pid: pid)
        try require(!e.isZero, name, "a zero challenge")
        let zG = try? Curve.mulG(z)
        try require(zG == (try? Curve.add(R, try Curve.mul(q1, e))), name, "z·G ≠ R + e·Q1")
        let lhs = try pk.encrypt(z, r: rZ)
        let rhs = try pk.mul(cR, try pk.pow(cKey, e))
        try require(lhs == rhs, name, "Enc(z; r_z) ≠ c_r·c_key^e")
    }

    var wire: WireValue {
        get throws(MPCError) {
            .object(["c_r": try cR.wire(512), "r": .hex(R.compressed), "z": z.wireU, "r_z": try rZ.wire(256)])
        }
    }

    init(cR: BigNum, R: PublicKey, z: BigNum, rZ: BigNum) {
        self.cR = cR
        self.R = R
        self.z = z
        self.rZ = rZ
    }

    init(_ r: FieldReader) throws(MPCError) {
        cR = try r.fixed("c_r", width: 512)
        R = try r.point("r")
        z = try r.unbounded("z", maxBits: 600)
        rZ = try r.fixed("r_z", width: 256)
    }
}

extension Curve {
    static var power2Sigma: BigNum { get throws { try BigNum.power2(sigma) } }
}
