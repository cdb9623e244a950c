// Test doubles for the card stack, all at the CardTransport / RandomSource seams (STYLE
// habit 7). None of them shares code with CardSimulator: the scripted transport replays
// recorded bytes, and MiniSecureCard is the few lines of card-side Secure Channel V1 the
// channel tests need.
import CardProtocol
import Synchronization
import Testing
import WalletCrypto

/// Hex → bytes for literals in tests (a typo is a test bug, so it traps).
func h(_ hex: String) -> [UInt8] { try! Hex.decode(hex.replacingOccurrences(of: " ", with: "")) }

/// A `RandomSource` that hands out exactly the bytes it was given, in order, and traps
/// when asked for more: it pins which random inputs a flow consumes and in what order.
final class ScriptedRandom: RandomSource {
    private let queue: Mutex<[UInt8]>

    init(_ chunks: [[UInt8]]) { queue = Mutex(chunks.flatMap { $0 }) }

    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        queue.withLock { q in
            precondition(q.count >= buffer.count, "ScriptedRandom: asked for \(buffer.count) bytes, \(q.count) left")
            for i in 0..<buffer.count { buffer[i] = q[i] }
            q.removeFirst(buffer.count)
        }
    }

    var remaining: Int { queue.withLock { $0.count } }
}

/// One expected exchange: the exact command bytes and the answer to give.
struct Exchange {
    let label: String
    let command: [UInt8]
    let response: [UInt8]
}

/// A transport that checks every command against a script byte for byte and answers with
/// the scripted response. A command past the end of the script is a connection loss.
final class ScriptedTransport: CardTransport {
    private var script: [Exchange]
    private(set) var sent: [[UInt8]] = []

    init(_ script: [Exchange]) { self.script = script }

    var isFinished: Bool { script.isEmpty }

    func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        sent.append(command)
        guard !script.isEmpty else { throw .connectionLost(detail: "script exhausted") }
        let step = script.removeFirst()
        #expect(command.hex == step.command.hex, "command \(step.label) differs")
        return step.response
    }
}

/// The card side of Secure Channel V1 with fixed session keys, just enough to answer
/// protected commands: it checks each command MAC, decrypts the payload, records it and
/// answers `reply(plaintext command)` (data ‖ SW) encrypted with the command MAC as IV,
/// or with the previous IV when `staleIV` is set (docs/keycard-protocol.md §9.5, §9.9).
final class MiniSecureCard: CardTransport {
    let keys: SessionKeys
    private var iv: [UInt8]
    var staleIV = false
    var reply: (CommandAPDU) -> [UInt8] = { _ in [0x90, 0x00] }
    /// Plaintext commands received, with their decrypted data.
    private(set) var received: [CommandAPDU] = []

    init(keys: SessionKeys) {
        self.keys = keys
        iv = keys.iv
    }

    func transmit(_ bytes: [UInt8]) throws(TransportError) -> [UInt8] {
        let header = Array(bytes[0..<4])
        let lc = Int(bytes[4])
        let data = Array(bytes[5..<(5 + lc)])
        let mac = Array(data[0..<16])
        let ciphertext = Array(data[16...])
        let meta = header + [UInt8(lc)] + [UInt8](repeating: 0, count: 11)
        guard (try? SecureChannel.mac(meta + ciphertext, key: keys.macKey)) == mac else { return [0x69, 0x82] }
        let plain = (try? SecureChannel.decrypt(ciphertext, key: keys.encryptionKey, iv: iv)) ?? nil
        let command = CommandAPDU(cla: header[0], ins: header[1], p1: header[2], p2: header[3], data: plain ?? [])
        received.append(command)
        let responseIV = staleIV ? iv : mac
        let encrypted = try! SecureChannel.encrypt(reply(command), key: keys.encryptionKey, iv: responseIV)
        let total = 16 + encrypted.count
        let responseMAC = try! SecureChannel.mac(
            [UInt8(total & 0xff)] + [UInt8](repeating: 0, count: 15) + encrypted,
            key: keys.macKey)
        iv = responseMAC
        return responseMAC + encrypted + [0x90, 0x00]
    }
}

/// Session keys for channel tests (the §16.2 session's keys and IV0).
func fixedSessionKeys() -> SessionKeys {
    try! SessionKeys(
        encryptionKey: Secret(bytes: h("00E547E1EFCC1C2BCDC552BA26187431AD812ADC79497E565E7FA411631A5D82")),
        macKey: Secret(bytes: h("4BE95D36A79B97F25576E1C36376DC6D2BCFAFC7AB143F61E3CFA1AE5E6B30C2")),
        iv: h("57D3DE5C1217C83F3A9D90B29D240091"))
}

/// A secret from ASCII text.
func ascii(_ s: String) -> Secret { Secret(utf8: s) }
