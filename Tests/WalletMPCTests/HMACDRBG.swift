import Foundation
import WalletCrypto

/// HMAC_DRBG over SHA-256 (NIST SP 800-90A Rev. 1 §10.1.2), the deterministic randomness of the
/// golden transcripts (docs/two-party-protocol.md §2): Instantiate(seed, nonce "", personalization),
/// one Generate per request, no reseed. Test-only: production draws from the OS.
final class HMACDRBG: RandomSource, @unchecked Sendable {
    private var k = [UInt8](repeating: 0, count: 32)
    private var v = [UInt8](repeating: 1, count: 32)
    private let lock = NSLock()

    init(seed: [UInt8], personalization: String) {
        update(seed + Array(personalization.utf8))
    }

    private func update(_ provided: [UInt8]) {
        k = Hash.hmacSHA256(key: k, data: v + [0] + provided)
        v = Hash.hmacSHA256(key: k, data: v)
        guard !provided.isEmpty else { return }
        k = Hash.hmacSHA256(key: k, data: v + [1] + provided)
        v = Hash.hmacSHA256(key: k, data: v)
    }

    func generate(_ n: Int) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        var out: [UInt8] = []
        while out.count < n {
            v = Hash.hmacSHA256(key: k, data: v)
            out += v
        }
        update([])
        return Array(out.prefix(n))
    }

    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        let bytes = generate(buffer.count)
        for i in 0..<buffer.count { buffer[i] = bytes[i] }
    }
}
