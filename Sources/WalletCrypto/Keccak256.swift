import Foundation

/// Keccak-256 as Ethereum uses it: Keccak[r=1088, c=512] with the original
/// `0x01 … 0x80` padding. FIPS-202 SHA3-256 pads with `0x06` instead and gives
/// different digests ("" → c5d2…470 here, a7ff…434a for SHA3-256).
public struct Keccak256: Sendable {
    /// Bytes absorbed per permutation: 200 − 2·(digest length). 136 for Keccak-256.
    let rate: Int
    /// Digest length in bytes.
    let digestLength: Int

    private var state = [UInt64](repeating: 0, count: 25)
    private var buffer = [UInt8]()

    public init() { self.init(digestLength: 32) }

    /// A Keccak sponge with capacity 2·`digestLength` (32 → Keccak-256, 64 → Keccak-512).
    public init(digestLength: Int) {
        precondition(digestLength == 32 || digestLength == 64, "Keccak-256 and Keccak-512 only")
        self.digestLength = digestLength
        rate = 200 - 2 * digestLength
        buffer.reserveCapacity(rate)
    }

    /// Keccak-512 (original padding) of `data`.
    public static func hash512<D: DataProtocol>(_ data: D) -> [UInt8] {
        var h = Keccak256(digestLength: 64)
        h.update(data)
        return h.finalize()
    }

    /// Digest of `data` in one call.
    public static func hash<D: DataProtocol>(_ data: D) -> [UInt8] {
        var h = Keccak256()
        h.update(data)
        return h.finalize()
    }

    /// Absorbs more input.
    public mutating func update<D: DataProtocol>(_ data: D) {
        for region in data.regions {
            region.withUnsafeBytes { absorb($0) }
        }
    }

    /// Pads, squeezes and returns the 32-byte digest.
    public mutating func finalize() -> [UInt8] {
        var block = buffer
        block.append(contentsOf: repeatElement(0, count: rate - block.count))
        block[buffer.count] ^= 0x01
        block[rate - 1] ^= 0x80
        block.withUnsafeBytes { xorBlock($0.baseAddress!) }
        buffer.removeAll()
        var out = [UInt8](repeating: 0, count: digestLength)
        for i in 0..<(digestLength / 8) {
            let lane = state[i].littleEndian
            withUnsafeBytes(of: lane) { out.replaceSubrange(i * 8..<(i + 1) * 8, with: $0) }
        }
        return out
    }

    private mutating func absorb(_ input: UnsafeRawBufferPointer) {
        guard var p = input.baseAddress else { return }
        var remaining = input.count
        if !buffer.isEmpty {
            let take = min(rate - buffer.count, remaining)
            buffer.append(contentsOf: UnsafeRawBufferPointer(start: p, count: take))
            p += take
            remaining -= take
            if buffer.count == rate {
                buffer.withUnsafeBytes { xorBlock($0.baseAddress!) }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        while remaining >= rate {
            xorBlock(p)
            p += rate
            remaining -= rate
        }
        if remaining > 0 { buffer.append(contentsOf: UnsafeRawBufferPointer(start: p, count: remaining)) }
    }

    /// XORs one rate-sized block into the state and permutes.
    private mutating func xorBlock(_ block: UnsafeRawPointer) {
        let lanes = rate / 8
        state.withUnsafeMutableBufferPointer { s in
            for i in 0..<lanes {
                s[i] ^= UInt64(littleEndian: block.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))
            }
            Self.permute(s.baseAddress!)
        }
    }

    // MARK: - Keccak-f[1600]

    private static let roundConstants: [UInt64] = [
        0x0000_0000_0000_0001, 0x0000_0000_0000_8082, 0x8000_0000_0000_808A, 0x8000_0000_8000_8000,
        0x0000_0000_0000_808B, 0x0000_0000_8000_0001, 0x8000_0000_8000_8081, 0x8000_0000_0000_8009,
        0x0000_0000_0000_008A, 0x0000_0000_0000_0088, 0x0000_0000_8000_8009, 0x0000_0000_8000_000A,
        0x0000_0000_8000_808B, 0x8000_0000_0000_008B, 0x8000_0000_0000_8089, 0x8000_0000_0000_8003,
        0x8000_0000_0000_8002, 0x8000_0000_0000_0080, 0x0000_0000_0000_800A, 0x8000_0000_8000_000A,
        0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008,
    ]

    @inline(__always)
    private static func rotl(_ x: UInt64, _ n: UInt64) -> UInt64 { (x << n) | (x >> (64 &- n)) }

    /// The 24-round permutation, written lane by lane (ρ and π folded into one pass).
    static func permute(_ a: UnsafeMutablePointer<UInt64>) {
        for round in 0..<24 {
            // θ
            let c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20]
            let c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21]
            let c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22]
            let c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23]
            let c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24]
            let d0 = c4 ^ rotl(c1, 1), d1 = c0 ^ rotl(c2, 1), d2 = c1 ^ rotl(c3, 1)
            let d3 = c2 ^ rotl(c4, 1), d4 = c3 ^ rotl(c0, 1)
            // ρ and π: b[y][2x+3y] = rotl(a[x][y] ^ d[x], r[x][y])
            let b00 = a[0] ^ d0
            let b10 = rotl(a[6] ^ d1, 44)
            let b20 = rotl(a[12] ^ d2, 43)
            let b30 = rotl(a[18] ^ d3, 21)
            let b40 = rotl(a[24] ^ d4, 14)
            let b01 = rotl(a[3] ^ d3, 28)
            let b11 = rotl(a[9] ^ d4, 20)
            let b21 = rotl(a[10] ^ d0, 3)
            let b31 = rotl(a[16] ^ d1, 45)
            let b41 = rotl(a[22] ^ d2, 61)
            let b02 = rotl(a[1] ^ d1, 1)
            let b12 = rotl(a[7] ^ d2, 6)
            let b22 = rotl(a[13] ^ d3, 25)
            let b32 = rotl(a[19] ^ d4, 8)
            let b42 = rotl(a[20] ^ d0, 18)
            let b03 = rotl(a[4] ^ d4, 27)
            let b13 = rotl(a[5] ^ d0, 36)
            let b23 = rotl(a[11] ^ d1, 10)
            let b33 = rotl(a[17] ^ d2, 15)
            let b43 = rotl(a[23] ^ d3, 56)
            let b04 = rotl(a[2] ^ d2, 62)
            let b14 = rotl(a[8] ^ d3, 55)
            let b24 = rotl(a[14] ^ d4, 39)
            let b34 = rotl(a[15] ^ d0, 41)
            let b44 = rotl(a[21] ^ d1, 2)
            // χ, row by row, and ι on lane 0
            a[0] = b00 ^ (~b10 & b20) ^ roundConstants[round]
            a[1] = b10 ^ (~b20 & b30)
            a[2] = b20 ^ (~b30 & b40)
            a[3] = b30 ^ (~b40 & b00)
            a[4] = b40 ^ (~b00 & b10)
            a[5] = b01 ^ (~b11 & b21)
            a[6] = b11 ^ (~b21 & b31)
            a[7] = b21 ^ (~b31 & b41)
            a[8] = b31 ^ (~b41 & b01)
            a[9] = b41 ^ (~b01 & b11)
            a[10] = b02 ^ (~b12 & b22)
            a[11] = b12 ^ (~b22 & b32)
            a[12] = b22 ^ (~b32 & b42)
            a[13] = b32 ^ (~b42 & b02)
            a[14] = b42 ^ (~b02 & b12)
            a[15] = b03 ^ (~b13 & b23)
            a[16] = b13 ^ (~b23 & b33)
            a[17] = b23 ^ (~b33 & b43)
            a[18] = b33 ^ (~b43 & b03)
            a[19] = b43 ^ (~b03 & b13)
            a[20] = b04 ^ (~b14 & b24)
            a[21] = b14 ^ (~b24 & b34)
            a[22] = b24 ^ (~b34 & b44)
            a[23] = b34 ^ (~b44 & b04)
            a[24] = b44 ^ (~b04 & b14)
        }
    }
}
