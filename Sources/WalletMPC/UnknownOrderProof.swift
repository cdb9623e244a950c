import WalletCrypto

/// ΠUO: g = h^α mod N_ped (g ∈ ⟨h⟩) in a group of unknown order, 128 binary rounds
/// (docs/two-party-protocol.md §3). P1 proves it at pairing, so P2's commitments in ΠSIGN hide.
struct UnknownOrderProof: Sendable {
    static let rounds = 128
    static let l = 2048 + Curve.sigma
    let e: BigNum
    let z: [BigNum]

    static func challenge(group: UnknownOrderGroup, r: [BigNum], sid: [UInt8], pid: [UInt8]) throws(MPCError) -> BigNum
    {
        var items = Items()
        try items.f(group.n, 256)
        try items.f(group.g, 256)
        try items.f(group.h, 256)
        items.u(try arith { try BigNum(UInt64(l)) })
        for ri in r { try items.f(ri, 256) }
        return try MPCHash.challengeBits(MPCHash.fs("pair/uo", sid: sid, pid: pid, items), rounds)
    }

    static func prove(
        group: UnknownOrderGroup, alpha: BigNum, sid: [UInt8], pid: [UInt8], random: MPCRandom
    ) throws(MPCError) -> UnknownOrderProof {
        let bound = try arith { try BigNum.power2(l + Curve.sigma + 1) }
        var masks: [BigNum] = [], r: [BigNum] = []
        for _ in 0..<rounds {
            let zi = try random.below(bound)
            masks.append(zi)
            r.append(try arith { try BigNum(bytes: group.exp(group.h, zi).bytes) })
        }
        let e = try challenge(group: group, r: r, sid: sid, pid: pid)
        var z: [BigNum] = []
        for i in 0..<rounds {
            z.append(try arith { try BigNum(bytes: (e.bit(rounds - 1 - i) ? try masks[i] + alpha : masks[i]).bytes) })
        }
        return UnknownOrderProof(e: e, z: z)
    }

    /// The checks P2 makes on P1's group before it proves anything with it.
    static func checkGroup(_ group: UnknownOrderGroup) throws(MPCError) {
        let name = "pair.group"
        try require(group.n.bitCount == 2048, name, "N_ped has \(group.n.bitCount) bits, not 2048")
        try require(
            Curve.one < group.g && group.g < group.n && Curve.one < group.h && group.h < group.n, name,
            "g or h is out of range")
        try require(
            (try? BigNum.gcd(try BigNum.modMul(group.g, group.h, group.n), group.n)) == Curve.one, name,
            "g or h shares a factor with N_ped")
    }

    func verify(group: UnknownOrderGroup, sid: [UInt8], pid: [UInt8]) throws(MPCError) {
        let name = "pair.uo"
        try Self.checkGroup(group)
        try require(e.bitCount <= Self.rounds, name, "the challenge is too wide")
        for (i, zi) in z.enumerated() {
            try require(zi.bitCount <= Self.l + Curve.sigma + 2, name, "z[\(i)] is out of range")
        }
        let gInverse = try arith { try BigNum.modInverse(group.g, group.n) }
        var r: [BigNum] = []
        for i in 0..<Self.rounds {
            var ri = try group.exp(group.h, z[i])
            if e.bit(Self.rounds - 1 - i) { ri = try group.mul(ri, gInverse) }
            r.append(ri)
        }
        let again = try Self.challenge(group: group, r: r, sid: sid, pid: pid)
        try require(again == e, name, "the proof that g lies in ⟨h⟩ does not verify")
    }

    var wire: WireValue { .object(["e": e.wireU, "z": .list(z.map(\.wireU))]) }

    init(e: BigNum, z: [BigNum]) {
        self.e = e
        self.z = z
    }

    init(_ r: FieldReader) throws(MPCError) {
        e = try r.unbounded("e", maxBits: Self.rounds)
        z = try r.unboundedList("z", count: Self.rounds, maxBits: Self.l + Curve.sigma + 2)
    }
}
