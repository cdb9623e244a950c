import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where random bytes come from. Production code uses `SystemRandom` (the kernel
/// CSPRNG); tests hand in a `SeededRandom` so every run is reproducible.
public protocol RandomSource: Sendable {
    /// Fills `buffer` with random bytes.
    func fill(_ buffer: UnsafeMutableRawBufferPointer)
}

extension RandomSource {
    /// `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { fill($0) }
        return out
    }

    /// `count` random bytes held as a secret from the start.
    public func secret(_ count: Int) -> Secret {
        Secret(count: count) { fill($0) }
    }

    /// A uniformly random integer in `0..<bound` (rejection sampling, no modulo bias).
    public func uniform(below bound: UInt32) -> UInt32 {
        precondition(bound > 0)
        let limit = UInt32.max - UInt32.max % bound
        while true {
            var v: UInt32 = 0
            withUnsafeMutableBytes(of: &v) { fill($0) }
            if v < limit { return v % bound }
        }
    }
}

/// The operating system's CSPRNG.
public struct SystemRandom: RandomSource {
    public init() {}

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        // The standard library's generator reads getrandom(2) on Linux and
        // arc4random on Apple platforms: the kernel CSPRNG either way.
        var generator = SystemRandomNumberGenerator()
        var i = 0
        while i < buffer.count {
            let word = generator.next()
            withUnsafeBytes(of: word) { w in
                let n = min(8, buffer.count - i)
                for j in 0..<n { buffer[i + j] = w[j] }
                i += n
            }
        }
    }
}

/// A deterministic generator for tests and reproducible runs: block i of the output
/// stream is SHA-256(seed ‖ i as 8 big-endian bytes). Not for real keys.
public final class SeededRandom: RandomSource {
    private let seed: [UInt8]
    private let state = Mutex<(counter: UInt64, pool: [UInt8])>((0, []))

    /// A generator whose whole output is fixed by `seed`.
    public init(seed: UInt64) {
        self.seed = withUnsafeBytes(of: seed.bigEndian) { Array($0) }
    }

    /// A generator seeded with arbitrary bytes.
    public init(seedBytes: [UInt8]) { self.seed = seedBytes }

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        state.withLock { st in
            var i = 0
            while i < buffer.count {
                if st.pool.isEmpty {
                    var block = seed
                    withUnsafeBytes(of: st.counter.bigEndian) { block.append(contentsOf: $0) }
                    st.pool = Hash.sha256(block)
                    st.counter += 1
                }
                buffer[i] = st.pool.removeFirst()
                i += 1
            }
        }
    }
}
