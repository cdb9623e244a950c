import Foundation
import WalletCrypto

/// Turns trace records into the lines a person reads, at a level (docs/card-explained.md): the
/// same records, live, from `card.trace save` or replayed by `trace.explain`, give the same lines.
/// One fact a line; the lines of an exchange sit under a rule that names it.
public struct CardTraceRenderer: Sendable {
    public var level: TraceLevel
    public var view: TraceView

    public init(level: TraceLevel, view: TraceView = TraceView()) {
        self.level = level
        self.view = view
    }

    /// The width of the rule above each exchange.
    static let width = 76

    /// The lines of one exchange at this level (none when off).
    public func lines(_ e: TraceExchange) -> [String] {
        let out = allLines(e)
        // A DER signature is 70 to 72 bytes: when diffable, the sizes it changes are not shown.
        return view.diffable && Self.holdsDERSignature(e) ? out.map(Self.withoutCounts) : out
    }

    private func allLines(_ e: TraceExchange) -> [String] {
        guard level > .off else { return [] }
        var out = [header(e)]
        let secured = e.channel != "plain"
        if secured, level >= .channel {
            out.append("   inner  \(commandBytes(e.command, e))")
            out += steps(e.steps, .wrap)
        }
        for w in e.wire { out += wireLines(w, e) }
        if secured, level >= .channel {
            out += steps(e.steps, .unwrap)
            if let a = e.answer { out.append("   inner answer  \(answerBytes(a, e))") }
        }
        if let error = e.error { out.append("   ✗ \(error)") }
        if level >= .explain { out += e.explained.map { "   " + $0.description } }
        if level >= .channel { out += steps(e.steps, .after) }
        return out
    }

    /// What `card.step` shows before a command leaves: its rule, its bytes and their meaning.
    public func preview(_ e: TraceExchange) -> [String] {
        [header(e), "   about to send  \(commandBytes(e.command, e))"] + e.explained.map { "   " + $0.description }
    }

    /// The lines of steps added after an exchange was shown (the key schedule).
    public func addendumLines(_ steps: [TraceStep]) -> [String] {
        level >= .channel ? self.steps(steps, .after) : []
    }

    /// The same records as the trace file keeps them, as one line of JSON (secrets already out).
    public func json(_ e: TraceExchange) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(e) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: Pieces

    private func header(_ e: TraceExchange) -> String {
        let name = KeycardExplainer(generation: e.generation, view: view).name(of: e.command)
        let title = "── \(e.number) \(name) "
        let tail = e.channel == "plain" ? " plain" : " secured \(e.channel)"
        let fill = max(3, Self.width - title.count - tail.count)
        return title + String(repeating: "─", count: fill) + tail
    }

    private func wireLines(_ w: TraceWire, _ e: TraceExchange) -> [String] {
        let secured = e.channel != "plain"
        var sent = "\(spaced(Array(w.sent.prefix(4))))"
        let body = Array(w.sent.dropFirst(4))
        let sentRole: TraceRole? = secured ? (e.channel == "V2" ? .sealed : .ciphertext) : Self.commandRole(e.command)
        if let lc = body.first, body.count > 1 {
            let data = Array(body.dropFirst().prefix(Int(lc)))
            sent += " \(hexByte(lc)) │ " + (w.sent.count <= 5 + 0 ? "" : view.bytes(data, role: sentRole))
            if body.count > 1 + Int(lc) { sent += " · Le \(hexByte(body.last!))" }
        } else if let le = body.first {
            sent += " · Le \(hexByte(le))"
        }
        if w.sent.count == 5, e.command.count > 0, e.channel == "plain" { sent += TraceView.masked(e.command.count) }
        let data = Array(w.received.dropLast(2))
        let sw = spaced(Array(w.received.suffix(2)))
        let answerRole: TraceRole? = secured ? (e.channel == "V2" ? .sealed : .ciphertext) : Self.answerRole(e)
        var got = data.isEmpty ? sw : "\(view.bytes(data, role: answerRole)) │ \(sw)"
        got += " · \(data.count)+2 B"
        if !view.diffable { got += " · " + Self.duration(w.micros) }
        return [">> " + sent, "<< " + got]
    }

    /// True for an exchange whose answer holds a DER signature (SIGN with ECDSA, IDENTIFY, a 4.0
    /// OPEN SECURE CHANNEL): its length varies from run to run.
    static func holdsDERSignature(_ e: TraceExchange) -> Bool {
        switch e.command.command {
        case .sign: !(e.generation == .v4 && e.command.p2 == 0x03)
        case .identify: true
        case .openSecureChannel: e.generation == .v4
        default: false
        }
    }

    /// `142+2 B` → `n+2 B`, `= 48 B` → `= n B`: counts of bytes left out of a diffable line.
    static func withoutCounts(_ line: String) -> String {
        var out = ""
        var digits = ""
        var rest = Substring(line)
        while let c = rest.first {
            rest = rest.dropFirst()
            if c.isNumber, c.isASCII {
                digits.append(c)
                continue
            }
            if !digits.isEmpty {
                let tail = String(c) + rest.prefix(3)
                let counted = tail.hasPrefix(" B") || tail.hasPrefix("+2 B") || tail.hasPrefix(" B)")
                let standalone = out.last.map { !$0.isLetter && !$0.isNumber && $0 != "+" } ?? true
                out += counted && standalone ? "n" : digits
                digits = ""
            }
            out.append(c)
        }
        return out + digits
    }

    /// `850 µs`, `2.4 ms`.
    static func duration(_ micros: Int) -> String {
        micros < 1000 ? "\(micros) µs" : String(format: "%.1f ms", Double(micros) / 1000)
    }

    private func steps(_ steps: [TraceStep], _ phase: TraceStep.Phase) -> [String] {
        steps.filter { $0.phase == phase }.map { s in
            var line = "   " + s.label
            if s.secret {
                line += ": " + view.secret(s.value, count: s.count)
            } else if let v = s.value {
                line += ": " + view.bytes(v, role: s.role)
            }
            if let note = s.note { line += " · " + note }
            return line
        }
    }

    private func commandBytes(_ c: TraceCommand, _ e: TraceExchange) -> String {
        var text = spaced(c.header) + " \(hexByte(UInt8(truncatingIfNeeded: c.count)))"
        guard c.count > 0 else { return text }
        if let d = c.data {
            text += " │ " + view.bytes(d, role: Self.commandRole(c))
        } else {
            text +=
                " │ "
                + (TraceSensitivity.of(
                    CommandAPDU(cla: c.cla, ins: c.ins, p1: c.p1, p2: c.p2), generation: e.generation
                ).command == .pin
                    ? TraceView.bullets(c.count) : TraceView.masked(c.count))
        }
        return text
    }

    private func answerBytes(_ a: TraceAnswer, _ e: TraceExchange) -> String {
        let sw = spaced([UInt8(a.sw >> 8), UInt8(a.sw & 0xFF)])
        guard a.count > 0 else { return sw }
        let data = a.data.map { view.bytes($0, role: Self.answerRole(e)) } ?? TraceView.masked(a.count)
        return data + " │ " + sw
    }

    /// Commands whose whole data is random (shown by role when diffable).
    static func commandRole(_ c: TraceCommand) -> TraceRole? {
        switch c.command {
        case .pair: c.p1 == 0 ? .challenge : .cryptogram
        case .openSecureChannel: .clientKey
        case .mutuallyAuthenticate, .identify: .challenge
        case .initialize: .ciphertext
        default: c.cla == 0x80 && c.ins == 0x18 ? .sealed : nil
        }
    }

    /// Answers holding random bytes (a channel key, a UID, a signature, a challenge).
    static func answerRole(_ e: TraceExchange) -> TraceRole? {
        let c = e.command
        if e.randomKey == true { return .random }
        switch c.command {
        case .select, .pair, .openSecureChannel, .mutuallyAuthenticate, .identify, .sign, .getChallenge: return .random
        case .generateKey: return .keyUID
        default: return c.cla == 0x80 && c.ins == 0x18 ? .sealed : nil
        }
    }
}
