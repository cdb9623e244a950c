import WalletCrypto

// The two commitment groups (docs/two-party-protocol.md §1): the fixed Pedersen group on RFC
// 3526's 2048-bit safe prime for the DKG's range proofs, and the unknown-order group P1 makes at
// pairing for P2's signing proof.

/// g = 4, h = √h² in the order-p' subgroup of Z*_p, p = RFC 3526's 2048-bit MODP prime.
struct PedersenGroup: Sendable {
    let p: BigNum
    /// (p − 1)/2, the subgroup's order.
    let order: BigNum
    let sqrtG: BigNum
    let g: BigNum
    let sqrtH: BigNum
    let h: BigNum

    static let shared: PedersenGroup = try! PedersenGroup()

    private init() throws {
        p = try BigNum.rfc3526Prime2048()
        order = try (p - Curve.one).shiftedRight(1)
        sqrtG = try BigNum(2)
        g = try BigNum(4)
        sqrtH = try MPCHash.h2i("pedersen-h", Items(), bits: 2176).mod(p)
        h = try BigNum.modMul(sqrtH, sqrtH, p)
    }

    func exp(_ base: BigNum, _ e: BigNum) throws(MPCError) -> BigNum { try arith { try BigNum.modExp(base, e, p) } }
    func mul(_ a: BigNum, _ b: BigNum) throws(MPCError) -> BigNum { try arith { try BigNum.modMul(a, b, p) } }

    /// 1 < x < p and x^p' = 1: in the subgroup.
    func isMember(_ x: BigNum) -> Bool {
        Curve.one < x && x < p && (try? BigNum.modExp(x, order, p)) == Curve.one
    }

    /// g^x·h^ρ.
    func commit(_ x: BigNum, _ rho: BigNum) throws(MPCError) -> BigNum {
        try mul(try exp(g, x), try exp(h, rho))
    }
}

/// The unknown-order group of P2's signing proof: N_ped (two safe primes, P1's), h a square,
/// g = h^α. Made by P1, the verifier of that proof, at pairing; P2 checks ΠUO.
public struct UnknownOrderGroup: Sendable, Equatable {
    public let n: BigNum
    public let g: BigNum
    public let h: BigNum

    public init(n: BigNum, g: BigNum, h: BigNum) {
        self.n = n
        self.g = g
        self.h = h
    }

    func exp(_ base: BigNum, _ e: BigNum) throws(MPCError) -> BigNum { try arith { try BigNum.modExp(base, e, n) } }
    func mul(_ a: BigNum, _ b: BigNum) throws(MPCError) -> BigNum { try arith { try BigNum.modMul(a, b, n) } }

    /// 0 < x < N_ped and gcd(x, N_ped) = 1.
    func isUnit(_ x: BigNum) -> Bool {
        !x.isZero && x < n && (try? BigNum.gcd(x, n)) == Curve.one
    }

    /// g^x·h^r.
    func commit(_ x: BigNum, _ r: BigNum) throws(MPCError) -> BigNum {
        try mul(try exp(g, x), try exp(h, r))
    }
}
