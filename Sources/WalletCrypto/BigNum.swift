internal import COpenSSL

// Non-negative integers of any size on OpenSSL's BN (libcrypto, loaded on first use), for the
// two-party protocols' Paillier and proof arithmetic (docs/two-party.md): constant-time modular
// exponentiation for secret exponents, prime and safe-prime generation. A secret number lives
// in OpenSSL's secure heap and is cleared when released; it never prints.

/// A non-negative integer.
public final class BigNum: @unchecked Sendable, Equatable, Comparable, CustomStringConvertible {
    fileprivate let raw: UnsafeMutableRawPointer
    /// Held in the secure heap, cleared on release, never printed.
    public let isSecret: Bool

    private init(raw: UnsafeMutableRawPointer, secret: Bool) {
        self.raw = raw
        isSecret = secret
    }

    deinit { kcs_bn().pointee.clear_free(raw) }

    static func api() throws(WalletCryptoError) -> UnsafeMutablePointer<kcs_bn_api> {
        if let why = kcs_bn_load() { throw .cipherFailure(String(cString: why)) }
        return kcs_bn()
    }

    /// A fresh zero (secret numbers in the secure heap).
    static func fresh(secret: Bool) throws(WalletCryptoError) -> BigNum {
        let a = try api()
        guard let raw = secret ? a.pointee.secure_new() : a.pointee.new_() else {
            throw .cipherFailure("BN_new failed")
        }
        return BigNum(raw: raw, secret: secret)
    }

    /// The number whose big-endian bytes are `bytes`.
    public convenience init(bytes: [UInt8], secret: Bool = false) throws(WalletCryptoError) {
        let a = try Self.api()
        guard let raw = secret ? a.pointee.secure_new() : a.pointee.new_() else {
            throw .cipherFailure("BN_new failed")
        }
        self.init(raw: raw, secret: secret)
        guard bytes.withUnsafeBufferPointer({ a.pointee.bin2bn($0.baseAddress, Int32($0.count), raw) }) != nil else {
            throw .cipherFailure("BN_bin2bn failed")
        }
    }

    /// A small number.
    public convenience init(_ value: UInt64) throws(WalletCryptoError) {
        try self.init(bytes: (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) })
    }

    public var bitCount: Int { Int(kcs_bn().pointee.num_bits(raw)) }
    public var isZero: Bool { bitCount == 0 }

    /// The big-endian bytes, left-padded to `count` (nil when the number needs more).
    public func bytes(count: Int) -> [UInt8]? {
        guard (bitCount + 7) / 8 <= count else { return nil }
        var out = [UInt8](repeating: 0, count: count)
        _ = out.withUnsafeMutableBufferPointer { kcs_bn().pointee.bn2binpad(raw, $0.baseAddress, Int32(count)) }
        return out
    }

    /// The big-endian bytes, as few as the number needs (one zero byte for zero).
    public var bytes: [UInt8] { bytes(count: max(1, (bitCount + 7) / 8))! }

    public var description: String { isSecret ? "<secret number>" : "0x" + Hex.encode(bytes) }

    public static func == (a: BigNum, b: BigNum) -> Bool { kcs_bn().pointee.cmp(a.raw, b.raw) == 0 }
    public static func < (a: BigNum, b: BigNum) -> Bool { kcs_bn().pointee.cmp(a.raw, b.raw) < 0 }

    // MARK: arithmetic (a result is secret when an operand is)

    private static func run(
        _ what: String, _ operands: [BigNum],
        _ body: (UnsafeMutablePointer<kcs_bn_api>, UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Int32
    )
        throws(WalletCryptoError) -> BigNum
    {
        let a = try api()
        let secret = operands.contains(where: \.isSecret)
        let result = try fresh(secret: secret)
        guard let ctx = secret ? a.pointee.ctx_secure_new() : a.pointee.ctx_new() else {
            throw .cipherFailure("BN_CTX_new failed")
        }
        defer { a.pointee.ctx_free(ctx) }
        guard body(a, result.raw, ctx) == 1 else { throw .cipherFailure("\(what) failed") }
        return result
    }

    public static func + (a: BigNum, b: BigNum) throws(WalletCryptoError) -> BigNum {
        try run("BN_add", [a, b]) { f, r, _ in f.pointee.add(r, a.raw, b.raw) }
    }

    public static func * (a: BigNum, b: BigNum) throws(WalletCryptoError) -> BigNum {
        try run("BN_mul", [a, b]) { f, r, ctx in f.pointee.mul(r, a.raw, b.raw, ctx) }
    }

    /// a − b; refuses a negative result.
    public static func - (a: BigNum, b: BigNum) throws(WalletCryptoError) -> BigNum {
        guard b <= a else { throw .cipherFailure("a negative difference") }
        return try run("BN_sub", [a, b]) { f, r, _ in f.pointee.sub(r, a.raw, b.raw) }
    }

    /// a mod m, in [0, m).
    public func mod(_ m: BigNum) throws(WalletCryptoError) -> BigNum {
        try Self.run("BN_nnmod", [self, m]) { f, r, ctx in f.pointee.nnmod(r, self.raw, m.raw, ctx) }
    }

    public static func modAdd(_ a: BigNum, _ b: BigNum, _ m: BigNum) throws(WalletCryptoError) -> BigNum {
        try run("BN_mod_add", [a, b, m]) { f, r, ctx in f.pointee.mod_add(r, a.raw, b.raw, m.raw, ctx) }
    }

    public static func modSub(_ a: BigNum, _ b: BigNum, _ m: BigNum) throws(WalletCryptoError) -> BigNum {
        try run("BN_mod_sub", [a, b, m]) { f, r, ctx in f.pointee.mod_sub(r, a.raw, b.raw, m.raw, ctx) }
    }

    public static func modMul(_ a: BigNum, _ b: BigNum, _ m: BigNum) throws(WalletCryptoError) -> BigNum {
        try run("BN_mod_mul", [a, b, m]) { f, r, ctx in f.pointee.mod_mul(r, a.raw, b.raw, m.raw, ctx) }
    }

    /// aᵉ mod m. A secret base or exponent, or `constantTime`, takes OpenSSL's constant-time
    /// Montgomery exponentiation (an odd modulus).
    public static func modExp(
        _ a: BigNum, _ e: BigNum, _ m: BigNum, constantTime: Bool = false
    ) throws(WalletCryptoError) -> BigNum {
        if constantTime || a.isSecret || e.isSecret {
            return try run("BN_mod_exp_mont_consttime", [a, e, m]) { f, r, ctx in
                f.pointee.mod_exp_consttime(r, a.raw, e.raw, m.raw, ctx, nil)
            }
        }
        return try run("BN_mod_exp", [a, e, m]) { f, r, ctx in f.pointee.mod_exp(r, a.raw, e.raw, m.raw, ctx) }
    }

    /// a⁻¹ mod m; refuses a number with no inverse.
    public static func modInverse(_ a: BigNum, _ m: BigNum) throws(WalletCryptoError) -> BigNum {
        try run("BN_mod_inverse (no inverse)", [a, m]) { f, r, ctx in
            f.pointee.mod_inverse(r, a.raw, m.raw, ctx) == nil ? 0 : 1
        }
    }

    public static func gcd(_ a: BigNum, _ b: BigNum) throws(WalletCryptoError) -> BigNum {
        try run("BN_gcd", [a, b]) { f, r, ctx in f.pointee.gcd(r, a.raw, b.raw, ctx) }
    }

    /// A uniformly random number in [0, range) from OpenSSL's CSPRNG.
    public static func random(below range: BigNum, secret: Bool = true) throws(WalletCryptoError) -> BigNum {
        let a = try api()
        let r = try fresh(secret: secret)
        guard a.pointee.rand_range(r.raw, range.raw) == 1 else { throw .cipherFailure("BN_rand_range failed") }
        return r
    }

    /// A random prime of `bits` bits; with `safe`, (p − 1)/2 is prime too.
    public static func prime(bits: Int, safe: Bool, secret: Bool = true) throws(WalletCryptoError) -> BigNum {
        let a = try api()
        let r = try fresh(secret: secret)
        guard a.pointee.generate_prime(r.raw, Int32(bits), safe ? 1 : 0, nil, nil, nil) == 1 else {
            throw .cipherFailure("BN_generate_prime_ex failed")
        }
        return r
    }

    /// ⌊a / d⌋ (d ≠ 0).
    public static func / (a: BigNum, d: BigNum) throws(WalletCryptoError) -> BigNum {
        guard !d.isZero else { throw .cipherFailure("division by zero") }
        return try run("BN_div", [a, d]) { f, r, ctx in f.pointee.div(r, nil, a.raw, d.raw, ctx) }
    }

    /// ⌊self / 2ⁿ⌋.
    public func shiftedRight(_ n: Int) throws(WalletCryptoError) -> BigNum {
        try Self.run("BN_rshift", [self]) { f, r, _ in f.pointee.rshift(r, self.raw, Int32(n)) }
    }

    /// self · 2ⁿ.
    public func shiftedLeft(_ n: Int) throws(WalletCryptoError) -> BigNum {
        try Self.run("BN_lshift", [self]) { f, r, _ in f.pointee.lshift(r, self.raw, Int32(n)) }
    }

    /// 2ⁿ.
    public static func power2(_ n: Int) throws(WalletCryptoError) -> BigNum { try BigNum(1).shiftedLeft(n) }

    /// Bit `n` (bit 0 is the least significant).
    public func bit(_ n: Int) -> Bool { kcs_bn().pointee.is_bit_set(raw, Int32(n)) == 1 }

    public var isOdd: Bool { bit(0) }

    /// The 2048-bit MODP prime of RFC 3526 §3 (a safe prime), from OpenSSL.
    public static func rfc3526Prime2048() throws(WalletCryptoError) -> BigNum {
        let a = try api()
        let r = try fresh(secret: false)
        guard a.pointee.rfc3526_prime_2048(r.raw) != nil else {
            throw .cipherFailure("BN_get_rfc3526_prime_2048 failed")
        }
        return r
    }

    /// True when the number is prime (OpenSSL's Miller–Rabin rounds for its size).
    public var isProbablePrime: Bool {
        guard let a = try? Self.api(), let ctx = a.pointee.ctx_new() else { return false }
        defer { a.pointee.ctx_free(ctx) }
        return a.pointee.check_prime(raw, ctx, nil) == 1
    }
}
