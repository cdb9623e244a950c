import WalletCrypto

// secp256k1 scalars as BigNums, and the constants of docs/two-party-protocol.md §1.

enum Curve {
    static let q = try! BigNum(bytes: Secp256k1.order)
    static let halfQ = try! BigNum(bytes: Secp256k1.halfOrder)
    static let one = try! BigNum(1)
    static let zero = try! BigNum(0)
    static let sigma = 64
    static let kappa = 128
    static let generator = try! PublicKey.generator(times: [UInt8](repeating: 0, count: 31) + [1])

    /// q · 2^n.
    static func qShifted(_ n: Int) -> BigNum { try! q.shiftedLeft(n) }
    /// q² · 2^n.
    static func q2Shifted(_ n: Int) -> BigNum { try! (q * q).shiftedLeft(n) }

    /// The 32 bytes of n mod q.
    static func scalar(_ n: BigNum) throws(MPCError) -> [UInt8] {
        try arith { try n.mod(q).bytes(count: 32)! }
    }

    /// (n mod q)·G; refuses zero.
    static func mulG(_ n: BigNum) throws(MPCError) -> PublicKey {
        let k = try scalar(n)
        guard k.contains(where: { $0 != 0 }) else { throw .arithmetic("a zero multiplier of G") }
        return try arith { try PublicKey.generator(times: k) }
    }

    /// (n mod q)·P; refuses zero.
    static func mul(_ p: PublicKey, _ n: BigNum) throws(MPCError) -> PublicKey {
        let k = try scalar(n)
        guard k.contains(where: { $0 != 0 }) else { throw .arithmetic("a zero multiplier of a point") }
        return try arith { try p.multiplied(by: k) }
    }

    static func add(_ a: PublicKey, _ b: PublicKey) throws(MPCError) -> PublicKey {
        try arith { try a.plus(b) }
    }

    /// x(P) as a number.
    static func x(_ p: PublicKey) throws(MPCError) -> BigNum {
        try arith { try BigNum(bytes: Array(p.compressed[1...])) }
    }
}
