import Synchronization
import WalletCrypto

/// A `RandomSource` that hands out given bytes in order, then continues with a fallback source. Feed it
/// the card's random values in the order the applet draws them (see `KeycardApplet`) to reproduce a
/// transcript byte for byte, e.g. docs/keycard-protocol.md §16.2: instance UID ‖ pre-INIT channel key ‖
/// post-INIT channel key ‖ PAIR card challenge ‖ pairing salt ‖ OPEN SC salt ‖ OPEN SC IV ‖ MUTUALLY
/// AUTHENTICATE card random.
public final class ReplayRandom: RandomSource {
    private let state: Mutex<(bytes: [UInt8], position: Int)>
    private let fallback: any RandomSource

    /// Plays `bytes`, then `fallback` (a fixed `SeededRandom` by default, so runs stay reproducible).
    public init(_ bytes: [UInt8], fallback: any RandomSource = SeededRandom(seed: 0)) {
        state = Mutex((bytes, 0))
        self.fallback = fallback
    }

    /// Plays the concatenation of `chunks` (convenient for one value per draw).
    public convenience init(chunks: [[UInt8]], fallback: any RandomSource = SeededRandom(seed: 0)) {
        self.init(chunks.flatMap { $0 }, fallback: fallback)
    }

    /// How many of the given bytes have not been drawn yet.
    public var remaining: Int { state.withLock { $0.bytes.count - $0.position } }

    /// Copies the next given bytes into `buffer`, then draws the rest from the fallback.
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        let taken = state.withLock { st -> Int in
            let n = min(buffer.count, st.bytes.count - st.position)
            for i in 0..<n { buffer[i] = st.bytes[st.position + i] }
            st.position += n
            return n
        }
        if taken < buffer.count { fallback.fill(UnsafeMutableRawBufferPointer(rebasing: buffer[taken...])) }
    }
}
