import CardProtocol
import Foundation
import KCSErrors
import WalletCore

/// What `card.trace` and `card.step` are set to (docs/card-explained.md).
public struct CardTraceSettings: Sendable, Equatable {
    public var level: TraceLevel = .off
    public var view = TraceView()
    /// Each exchange as one JSON document instead of lines (`--json`).
    public var json = false
    /// `card.step on`: each command shown and asked before it leaves.
    public var step = false

    public init() {}
}

/// Why a trace or a trace file was refused.
public enum CardTraceError: WalletError, Equatable {
    /// `--reveal` on a card in a reader.
    case revealOnRealCard(reader: String)
    /// A saved trace that cannot be read (`line` 0: the file itself).
    case badTraceFile(path: String, line: Int, reason: String)

    public var id: String {
        switch self {
        case .revealOnRealCard: "card.revealRefused"
        case .badTraceFile: "trace.badFile"
        }
    }

    public var description: String {
        switch self {
        case .revealOnRealCard(let reader):
            "--reveal shows session keys and key material, and is allowed only on a simulated card (its secrets "
                + "are in a file anyway); the card in \(reader) is real, so the trace stays masked"
        case .badTraceFile(let path, let line, let reason):
            line == 0 ? "\(path): \(reason)" : "\(path):\(line): \(reason)"
        }
    }
}

extension Session {
    /// `card.trace LEVEL`: from now on every exchange with a card is shown at `level` (and kept for
    /// `card.trace save`); `reveal` only while a simulated card (or none) is connected.
    public func setCardTrace(
        _ level: TraceLevel, reveal: Bool = false, diffable: Bool = false, json: Bool? = nil
    ) throws -> CardTraceSettings {
        if reveal, let card, case .reader = card.medium { throw CardTraceError.revealOnRealCard(reader: card.name) }
        cardTraceSettings.level = level
        cardTraceSettings.view = TraceView(reveal: reveal, diffable: diffable)
        if let json { cardTraceSettings.json = json }
        applyTraceSettings()
        return cardTraceSettings
    }

    /// The words a trace level is given by: off, wire, channel, explain.
    public static let cardTraceLevels = TraceLevel.allCases.map(\.rawValue)

    /// `kcs --trace LEVEL`: the whole run traced (a word not in `cardTraceLevels` changes nothing).
    public func traceEveryCard(at level: String, json: Bool, diffable: Bool = false) {
        guard let level = TraceLevel(rawValue: level) else { return }
        cardTraceSettings.level = level
        cardTraceSettings.json = json
        cardTraceSettings.view.diffable = diffable
        applyTraceSettings()
    }

    /// `card.step on|off`. Stepping needs a person: a batch run never steps.
    public func setCardStep(_ on: Bool) -> CardTraceSettings {
        cardTraceSettings.step = on && (prompts?.isInteractive ?? false)
        applyTraceSettings()
        return cardTraceSettings
    }

    /// How many exchanges the trace holds now.
    public var cardTraceCount: Int { cardTracer?.records.count ?? 0 }

    /// `card.trace save FILE`: the exchanges traced so far as JSON lines (secrets already left out),
    /// written whole or not at all, mode 0600. Returns how many.
    public func saveCardTrace(to path: String) throws -> Int {
        let records = cardTracer?.records ?? []
        let renderer = CardTraceRenderer(level: .explain)
        let text = records.map { renderer.json($0) + "\n" }.joined()
        try AtomicFile.write(Array(text.utf8), to: path, mode: 0o600)
        return records.count
    }

    /// The tracer a new connection starts with (nil when nothing is traced or stepped); a card in a
    /// reader never gets `--reveal`.
    func tracerForConnection(real: Bool) -> CardTracer? {
        if real, cardTraceSettings.view.reveal {
            cardTraceSettings.view.reveal = false
            prompts?.warn("card.trace: --reveal is off: it is allowed only on a simulated card")
            applyTraceSettings()
        }
        return cardTraceSettings.level > .off || cardTraceSettings.step ? cardTracer : nil
    }

    /// Makes, changes or drops the tracer to match the settings, on the connected card too.
    private func applyTraceSettings() {
        let s = cardTraceSettings
        guard s.level > .off || s.step else {
            // Off: nothing is watched any more, but what was traced stays for `card.trace save`.
            card?.commands.tracer = nil
            cardTracer?.sink = nil
            cardTracer?.beforeSend = nil
            return
        }
        let tracer = cardTracer ?? CardTracer(level: s.level, view: s.view, card: card?.name ?? "")
        tracer.level = s.level
        tracer.view = s.view
        let renderer = CardTraceRenderer(level: s.level, view: s.view)
        tracer.sink = { [weak self] exchange, addendum in
            guard let self else { return }
            if s.json {
                if addendum == nil { self.prompts?.trace(renderer.json(exchange)) }
            } else {
                let lines = addendum.map(renderer.addendumLines) ?? renderer.lines(exchange)
                if !lines.isEmpty { self.prompts?.trace(lines.joined(separator: "\n")) }
            }
        }
        tracer.lineSink = { [weak self] lines in self?.prompts?.trace(lines.joined(separator: "\n")) }
        tracer.beforeSend =
            s.step ? { [weak self] exchange throws(CardError) in try self?.step(before: exchange) } : nil
        cardTracer = tracer
        if let card, card.commands.tracer !== tracer {
            tracer.card = card.name
            card.commands.tracer = tracer
        }
    }

    /// `card.step`: shows the command about to leave and asks; anything but Enter or `send` stops it.
    private func step(before exchange: TraceExchange) throws(CardError) {
        guard let prompts, prompts.isInteractive else { return }
        let level = max(cardTraceSettings.level, .explain)
        let preview = CardTraceRenderer(level: level, view: cardTraceSettings.view).preview(exchange)
        prompts.trace(preview.joined(separator: "\n"))
        let answer: String?
        do { answer = try prompts.ask(prompt: "card.step: send it? [Enter/send, abort] ") } catch {
            throw .stopped(command: exchange.command.command, interrupted: true)
        }
        let word = answer?.trimmingCharacters(in: .whitespaces).lowercased() ?? "abort"
        guard word.isEmpty || word == "send" || word == "s" else {
            throw .stopped(command: exchange.command.command, interrupted: false)
        }
    }

    // MARK: Replay

    /// `trace.explain FILE`: the exchanges of a saved trace, read back (at most `maximumBytes`).
    public func readCardTrace(_ path: String, maximumBytes: Int = 64 << 20) throws -> [TraceExchange] {
        let data: [UInt8]
        switch BoundedFile.read(path, maximumBytes: maximumBytes) {
        case .bytes(let b): data = b
        case .tooLarge(let size):
            throw CardTraceError.badTraceFile(
                path: path, line: 0, reason: "\(size) bytes; a trace file is at most \(maximumBytes)")
        case .unreadable:
            throw CardTraceError.badTraceFile(path: path, line: 0, reason: "no such file or not readable")
        }
        let decoder = JSONDecoder()
        var out: [TraceExchange] = []
        for (index, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            do {
                out.append(try decoder.decode(TraceExchange.self, from: Data(line)))
            } catch {
                throw CardTraceError.badTraceFile(
                    path: path, line: index + 1, reason: "not a trace record (\(Self.decodingReason(error)))")
            }
        }
        return out
    }

    private static func decodingReason(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "field \"\(key.stringValue)\" missing"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            "field \"\(c.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        case DecodingError.dataCorrupted(let c):
            c.codingPath.isEmpty
                ? "not JSON"
                : "field \"\(c.codingPath.map(\.stringValue).joined(separator: "."))\": \(c.debugDescription)"
        default: "unreadable"
        }
    }
}

extension Session {
    /// `trace.explain FILE`: a saved trace shown again at `level`, without a card; each exchange is
    /// explained anew from its bytes. With `step` (at a terminal), one exchange at a time: Enter
    /// goes on, `back` one back, `quit` stops. Returns the text (empty when it was stepped through).
    public func explainCardTrace(_ path: String, level: TraceLevel, view: TraceView, step: Bool) throws -> String {
        var state = CardTraceState()
        let records = try readCardTrace(path).map { record in
            var r = record
            r.explain(view: view, state: &state)
            return r
        }
        let renderer = CardTraceRenderer(level: level, view: view)
        guard step, let prompts, prompts.isInteractive else {
            return records.map { renderer.lines($0).joined(separator: "\n") }.joined(separator: "\n")
        }
        var i = 0
        while records.indices.contains(i) {
            prompts.write(renderer.lines(records[i]).joined(separator: "\n") + "\n")
            let word = try prompts.ask(prompt: "trace \(i + 1)/\(records.count) [Enter next, back, quit] ")?
                .trimmingCharacters(in: .whitespaces).lowercased()
            switch word {
            case nil, "quit"?, "q"?: return ""
            case "back"?, "b"?: i = max(0, i - 1)
            default: i += 1
            }
        }
        return ""
    }
}
