import WalletCrypto

// The hash inputs and hashes of kcs-2pecdsa/1 (docs/two-party-protocol.md §2): every input is a
// sequence of tagged, length-prefixed items, so no two different inputs hash alike.

/// A sequence of hash items: tag ‖ 4-byte big-endian length ‖ bytes.
struct Items {
    private(set) var data: [UInt8] = []

    private mutating func item(_ tag: UInt8, _ bytes: [UInt8]) {
        data.append(tag)
        let n = UInt32(bytes.count)
        data += [UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)]
        data += bytes
    }

    @discardableResult mutating func s(_ text: String) -> Items {
        item(0x53, Array(text.utf8))
        return self
    }
    @discardableResult mutating func b(_ bytes: [UInt8]) -> Items {
        item(0x42, bytes)
        return self
    }
    /// A fixed-width integer (the width is the field's: 32, 256 or 512 bytes).
    @discardableResult mutating func f(_ n: BigNum, _ width: Int) throws(MPCError) -> Items {
        guard let bytes = n.bytes(count: width) else {
            throw .arithmetic("a number wider than its \(width)-byte field")
        }
        item(0x46, bytes)
        return self
    }
    /// An unbounded integer, minimal big-endian (zero is one byte 00).
    @discardableResult mutating func u(_ n: BigNum) -> Items {
        item(0x55, n.bytes)
        return self
    }
    @discardableResult mutating func p(_ point: PublicKey) -> Items {
        item(0x50, point.compressed)
        return self
    }
    /// A point's 33 bytes as received, before they are checked (an opening is checked first).
    @discardableResult mutating func p(raw: [UInt8]) -> Items {
        item(0x50, raw)
        return self
    }
    /// A fixed-width integer's bytes as received.
    @discardableResult mutating func f(raw: [UInt8]) -> Items {
        item(0x46, raw)
        return self
    }
}

enum MPCHash {
    static let protocolID = "kcs-2pecdsa/1"

    private static func prefix(_ label: String) -> Items {
        var items = Items()
        items.s(protocolID)
        items.s(label)
        return items
    }

    /// H(label, items): SHA-256.
    static func h(_ label: String, _ items: Items) -> [UInt8] {
        Hash.sha256(prefix(label).data + items.data)
    }

    /// FS(label, sid, pid, items): SHA-512, the Fiat–Shamir challenge's source.
    static func fs(_ label: String, sid: [UInt8], pid: [UInt8], _ items: Items) -> [UInt8] {
        var head = prefix(label)
        head.b(sid)
        head.b(pid)
        return Hash.sha512(head.data + items.data)
    }

    /// The FS value mod q.
    static func challengeModQ(_ fs: [UInt8]) throws(MPCError) -> BigNum {
        try arith { try BigNum(bytes: fs).mod(Curve.q) }
    }

    /// The FS value's top `bits` bits.
    static func challengeBits(_ fs: [UInt8], _ bits: Int) throws(MPCError) -> BigNum {
        try arith { try BigNum(bytes: fs).shiftedRight(512 - bits) }
    }

    /// H2I(label, items, bits): SHA-256 in counter mode, cut to ⌈bits/8⌉ bytes, mod 2^bits.
    static func h2i(_ label: String, _ items: Items, bits: Int) throws(MPCError) -> BigNum {
        let count = (bits + 7) / 8
        var out: [UInt8] = []
        var j: UInt32 = 0
        while out.count < count {
            var block = prefix(label)
            block = Items(data: block.data + items.data)
            block.b([UInt8(j >> 24), UInt8(j >> 16 & 0xff), UInt8(j >> 8 & 0xff), UInt8(j & 0xff)])
            out += Hash.sha256(block.data)
            j += 1
        }
        out = Array(out.prefix(count))
        let extra = count * 8 - bits
        if extra > 0 { out[0] &= UInt8(0xff >> extra) }
        return try arith { try BigNum(bytes: out) }
    }
}

/// Random numbers by the protocol's rule: x ← [0, B) takes ⌈bits(B)/8⌉ + 16 random bytes, read
/// big-endian, mod B (bias below 2⁻¹²⁸), from the operating system's CSPRNG unless a test injects
/// another source.
public struct MPCRandom: Sendable {
    let source: RandomSource

    public init(_ source: RandomSource = SystemRandom()) { self.source = source }

    func bytes(_ n: Int) -> [UInt8] { source.bytes(n) }

    /// Uniform in [0, bound).
    func below(_ bound: BigNum, secret: Bool = true) throws(MPCError) -> BigNum {
        var raw = source.bytes((bound.bitCount + 7) / 8 + 16)
        defer { Secret.wipe(&raw) }
        return try arith { try BigNum(bytes: raw, secret: secret).mod(bound) }
    }

    /// Uniform in [1, bound).
    func nonZero(below bound: BigNum, secret: Bool = true) throws(MPCError) -> BigNum {
        while true {
            let x = try below(bound, secret: secret)
            if !x.isZero { return x }
        }
    }

    /// Uniform in Z*_m: non-zero and coprime to m.
    func unit(_ m: BigNum, secret: Bool = true) throws(MPCError) -> BigNum {
        while true {
            let x = try below(m, secret: secret)
            if !x.isZero, try arith({ try BigNum.gcd(x, m) }) == Curve.one { return x }
        }
    }
}

/// What each side of the channel handshake signs with its identity key (docs/two-party-protocol.md
/// §7): its role, both ephemeral keys, both nonces and both identity keys.
public enum ChannelTranscript {
    public static func hash(
        role: String, ephemeralI: [UInt8], ephemeralR: [UInt8], nonceI: [UInt8], nonceR: [UInt8],
        identityI: [UInt8], identityR: [UInt8]
    ) -> [UInt8] {
        var items = Items()
        items.s(role)
        items.b(ephemeralI)
        items.b(ephemeralR)
        items.b(nonceI)
        items.b(nonceR)
        items.b(identityI)
        items.b(identityR)
        return MPCHash.h("channel", items)
    }
}
