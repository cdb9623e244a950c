import WalletCrypto

// Paillier encryption with g = N + 1 (docs/two-party-protocol.md §1): Enc(m; r) = (1 + m·N)·r^N
// mod N², decryption by CRT with the secret primes.

/// A Paillier public key: N and N².
public struct PaillierPublicKey: Sendable {
    public let n: BigNum
    public let nn: BigNum

    public static let bits = 2048

    public init(n: BigNum) throws(MPCError) {
        self.n = n
        nn = try arith { try n * n }
    }

    /// Enc(m; r) for 0 ≤ m (taken mod N) and r ∈ Z*_N.
    public func encrypt(_ m: BigNum, r: BigNum) throws(MPCError) -> BigNum {
        try arith {
            let gm = try BigNum.modAdd(Curve.one, try BigNum.modMul(m.mod(n), n, nn), nn)
            return try BigNum.modMul(gm, try BigNum.modExp(r, n, nn), nn)
        }
    }

    /// c ∈ Z*_{N²}: 0 < c < N² and gcd(c, N) = 1.
    func isCiphertext(_ c: BigNum) -> Bool {
        !c.isZero && c < nn && (try? BigNum.gcd(c, n)) == Curve.one
    }

    /// r ∈ Z*_N.
    func isUnit(_ r: BigNum) -> Bool {
        !r.isZero && r < n && (try? BigNum.gcd(r, n)) == Curve.one
    }

    /// a·b mod N², a^e mod N², a⁻¹ mod N².
    func mul(_ a: BigNum, _ b: BigNum) throws(MPCError) -> BigNum { try arith { try BigNum.modMul(a, b, nn) } }
    func pow(_ a: BigNum, _ e: BigNum) throws(MPCError) -> BigNum { try arith { try BigNum.modExp(a, e, nn) } }
    func inverse(_ a: BigNum) throws(MPCError) -> BigNum { try arith { try BigNum.modInverse(a, nn) } }
}

/// A Paillier secret key: the two primes. Never printed, never sent.
public final class PaillierSecretKey: @unchecked Sendable, CustomStringConvertible {
    public let publicKey: PaillierPublicKey
    let p: BigNum
    let q: BigNum
    /// φ(N) = (p − 1)(q − 1).
    let phi: BigNum
    private let pp: BigNum, qq: BigNum, hp: BigNum, hq: BigNum, pInvQ: BigNum

    /// From two distinct primes whose product has exactly 2048 bits.
    public init(p: BigNum, q: BigNum) throws(MPCError) {
        self.p = p
        self.q = q
        let n = try arith { try BigNum(bytes: (try p * q).bytes) }  // public
        guard n.bitCount == PaillierPublicKey.bits, p != q else {
            throw .arithmetic("the Paillier primes do not make a 2048-bit modulus")
        }
        publicKey = try PaillierPublicKey(n: n)
        (phi, pp, qq, hp, hq, pInvQ) = try arith {
            let p1 = try p - Curve.one, q1 = try q - Curve.one
            let pp = try p * p, qq = try q * q
            // h_p = L_p(g^(p−1) mod p²)⁻¹ mod p, with g = N + 1 (Paillier 1999 §7).
            let g = try n + Curve.one
            let lp = try (try BigNum.modExp(g, p1, pp) - Curve.one) / p
            let lq = try (try BigNum.modExp(g, q1, qq) - Curve.one) / q
            return (
                try p1 * q1, pp, qq, try BigNum.modInverse(lp, p), try BigNum.modInverse(lq, q),
                try BigNum.modInverse(p, q)
            )
        }
    }

    /// A fresh key: two random 1024-bit primes (top two bits set, OpenSSL's generator).
    public static func generate() throws(MPCError) -> PaillierSecretKey {
        while true {
            let (p, q) = try arith {
                (try BigNum.prime(bits: 1024, safe: false), try BigNum.prime(bits: 1024, safe: false))
            }
            if let key = try? PaillierSecretKey(p: p, q: q) { return key }
        }
    }

    /// Dec(c) by CRT, in [0, N).
    public func decrypt(_ c: BigNum) throws(MPCError) -> BigNum {
        try arith {
            let p1 = try p - Curve.one, q1 = try q - Curve.one
            let mp = try BigNum.modMul(
                (try BigNum.modExp(c.mod(pp), p1, pp, constantTime: true) - Curve.one) / p, hp, p)
            let mq = try BigNum.modMul(
                (try BigNum.modExp(c.mod(qq), q1, qq, constantTime: true) - Curve.one) / q, hq, q)
            // m = mp + p·((mq − mp)·p⁻¹ mod q)
            let t = try BigNum.modMul(try BigNum.modSub(mq, mp.mod(q), q), pInvQ, q)
            return try mp + (try p * t)
        }
    }

    public var description: String { "<Paillier secret key>" }
}
