import WalletCrypto

/// ΠDL: Schnorr's proof of knowledge of x with X = x·G (docs/two-party-protocol.md §3).
struct DiscreteLogProof: Sendable {
    let a: PublicKey
    let z: BigNum

    static func prove(
        x: BigNum, X: PublicKey, label: String, sid: [UInt8], pid: [UInt8], random: MPCRandom
    ) throws(MPCError) -> DiscreteLogProof {
        let a = try random.nonZero(below: Curve.q)
        let A = try Curve.mulG(a)
        let e = try challenge(X: X, A: A, label: label, sid: sid, pid: pid)
        let z = try arith { try BigNum.modAdd(a, try BigNum.modMul(e, x, Curve.q), Curve.q) }
        return DiscreteLogProof(a: A, z: try arith { try BigNum(bytes: z.bytes) })
    }

    private static func challenge(
        X: PublicKey, A: PublicKey, label: String, sid: [UInt8], pid: [UInt8]
    ) throws(MPCError) -> BigNum {
        var items = Items()
        items.p(X)
        items.p(A)
        return try MPCHash.challengeModQ(MPCHash.fs(label, sid: sid, pid: pid, items))
    }

    /// Fails check `check` unless z·G = A + e·X.
    func verify(X: PublicKey, label: String, sid: [UInt8], pid: [UInt8], check: String) throws(MPCError) {
        try require(!z.isZero && z < Curve.q, check, "the response is out of range")
        let e = try Self.challenge(X: X, A: a, label: label, sid: sid, pid: pid)
        try require(!e.isZero, check, "a zero challenge")
        let lhs = try Curve.mulG(z)
        let rhs = try? Curve.add(a, try Curve.mul(X, e))
        try require(rhs == lhs, check, "the proof of knowledge of the discrete log does not verify")
    }

    var wire: WireValue {
        get throws(MPCError) { .object(["a": .hex(a.compressed), "z": try z.wire(32)]) }
    }

    init(a: PublicKey, z: BigNum) {
        self.a = a
        self.z = z
    }

    init(_ r: FieldReader) throws(MPCError) {
        a = try r.point("a")
        z = try r.fixed("z", width: 32)
    }
}
