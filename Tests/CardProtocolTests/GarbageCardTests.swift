// A card that answers garbage (docs/habits.md "Bad input"): every command of the session walk and the
// key commands, fed random response bytes, fails with a CardError — never a crash or a hang.
import CardProtocol
import Testing
import WalletCore
import WalletCrypto

/// Answers every APDU with random bytes (0…300 of them), from a seeded source.
final class GarbageTransport: CardTransport {
    let random: SeededRandom
    init(seed: UInt64) { random = SeededRandom(seed: seed) }
    func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        let n = Int(random.uniform(below: 301))
        var bytes = random.bytes(n)
        // Half the time end with a plausible status word, so parsers behind it get exercised.
        if n >= 2, random.uniform(below: 2) == 0 {
            bytes[n - 2] = 0x90
            bytes[n - 1] = 0x00
        }
        return bytes
    }
}

@Suite("Garbage from the card")
struct GarbageCardTests {
    @Test(arguments: 0..<200)
    func everyCommand_onGarbage_failsWithACardErrorOrParses(seed: Int) {
        let commands = KeycardCommandSet(transport: GarbageTransport(seed: UInt64(seed)), random: SeededRandom(seed: 1))
        var outcomes = 0
        func attempt(_ body: () throws -> Void) {
            do { try body() } catch {
                outcomes += 1
                #expect(error is CardError, "a typed card error, got \(type(of: error))")
                #expect(!String(describing: error).isEmpty)
            }
        }
        attempt { _ = try commands.select() }
        attempt { _ = try commands.identify() }
        attempt { _ = try commands.pair(secret: PairingSecret(password: "x")) }
        attempt { _ = try commands.getStatus() }
        attempt { _ = try commands.sign(digest: [UInt8](repeating: 1, count: 32), option: .pinless) }
        attempt { _ = try commands.getData() }
        #expect(outcomes >= 1, "random answers cannot all be valid")
    }
}
