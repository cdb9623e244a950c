import CardProtocol
import Foundation
import WalletCrypto

/// `kcs sim attach --trace LEVEL`: the card's side of every exchange a PC/SC client makes with the
/// simulated card (docs/card-explained.md, "The card's side"). The simulator holds the session keys,
/// so the command inside each secured APDU is decoded as the applet read it — what keycard-py, or any
/// other client, meant to send — with the same explainer, renderer and secret rule as the console's
/// own trace (a PIN never shown; keys and secrets masked unless `reveal`).
public final class AttachedCardTrace: VirtualCard {
    private let card: SimulatedCard
    private let renderer: CardTraceRenderer
    private let json: Bool
    private let output: (String) -> Void
    private var state = CardTraceState()
    private var count = 0
    private var inner: (header: [UInt8], data: [UInt8]?, answer: [UInt8])?

    public init(
        _ card: SimulatedCard, level: TraceLevel, view: TraceView, json: Bool, output: @escaping (String) -> Void
    ) {
        self.card = card
        self.renderer = CardTraceRenderer(level: level, view: view)
        self.json = json
        self.output = output
        card.applet.innerLog = { [weak self] header, data, answer in self?.inner = (header, data, answer) }
    }

    public var atr: [UInt8] { card.atr }

    public func powerOn() {
        note("power on: a new session; the card's transient state is gone")
        card.powerOn()
    }

    public func powerOff() {
        note("power off")
        card.powerOff()
    }

    public func reset() {
        note("reset")
        card.reset()
    }

    private var generation: KeycardGeneration { card.applet.profile.isVersion4 ? .v4 : .v3 }

    public func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        inner = nil
        let start = DispatchTime.now().uptimeNanoseconds
        let answer = try card.transmit(command)
        let micros = Int((DispatchTime.now().uptimeNanoseconds - start) / 1000)
        count += 1
        if let record = record(command, answer, micros: micros) {
            if json {
                output(renderer.json(record))
            } else {
                output(renderer.lines(record).joined(separator: "\n"))
            }
        }
        return answer
    }

    /// The exchange as the console's trace would keep it; nil for bytes that are no APDU.
    private func record(_ bytes: [UInt8], _ answer: [UInt8], micros: Int) -> TraceExchange? {
        guard bytes.count >= 4, answer.count >= 2 else { return nil }
        let outer = CardProtocol.CommandAPDU(
            cla: bytes[0], ins: bytes[1], p1: bytes[2], p2: bytes[3], data: Self.data(of: bytes))
        let header: [UInt8], data: [UInt8]?, reply: [UInt8]
        let channel: String
        if let inner {
            (header, data, reply) = (Array(inner.header.prefix(4)), inner.data, inner.answer)
            channel = generation == .v4 ? "V2" : "V1"
        } else {
            (header, data, reply) = (outer.header, outer.data, answer)
            channel = "plain"
        }
        let meant = CardProtocol.CommandAPDU(
            cla: header[0], ins: header[1], p1: header[2], p2: header[3], data: data ?? [])
        let sensitivity = TraceSensitivity.of(meant, generation: generation)
        let view = renderer.view
        // Data the applet never read (a V1 command refused before it decrypted it) is kept as nothing.
        let command =
            data == nil
            ? TraceCommand(header: meant.header, data: nil, count: 0)
            : TraceCommand(meant, keeping: sensitivity.command, view: view)
        let meantAnswer = CardProtocol.ResponseAPDU(
            data: Array(reply.dropLast(2)), sw1: reply[reply.count - 2], sw2: reply[reply.count - 1])
        var record = TraceExchange(
            number: count, generation: generation, channel: channel, card: "sim attach", command: command,
            answer: TraceAnswer(meantAnswer, keeping: sensitivity.answer, view: view),
            wire: [
                TraceWire(
                    sent: bytes, received: answer, micros: micros, plain: channel == "plain", keeping: sensitivity,
                    view: view)
            ])
        record.explain(view: view, state: &state)
        return record
    }

    /// The data of a short command APDU (after Lc), or none.
    private static func data(of bytes: [UInt8]) -> [UInt8] {
        guard bytes.count > 5 else { return [] }
        return Array(bytes[5..<min(bytes.count, 5 + Int(bytes[4]))])
    }

    private func note(_ text: String) {
        if !json { output("── \(text)") }
    }
}
