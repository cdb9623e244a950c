import Foundation
import WalletCrypto

/// How much of each exchange the card trace shows (docs/card-explained.md). Each level shows what
/// the one before it shows, and more.
public enum TraceLevel: String, Sendable, Codable, CaseIterable, Comparable {
    /// Nothing.
    case off
    /// The APDUs on the wire: direction, header, Lc and data, response length, status word, time.
    case wire
    /// Also the secure channel from the inside: the inner command, the IV chain or the CCM counter,
    /// the encryption and the MAC or tag and its check, the key schedule.
    case channel
    /// Also the meaning: P1/P2, the data and the answer as a TLV tree with tag names, the status
    /// word, and what changed on the card.
    case explain

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (a: TraceLevel, b: TraceLevel) -> Bool { a.rank < b.rank }
}

/// What must not be kept of a command's or an answer's data (docs/card-explained.md, "Secrets").
public enum TraceSensitivity: Sendable, Equatable {
    /// Public.
    case none
    /// A key, a pairing secret, entropy: kept only when revealed (a simulated card).
    case secret
    /// A PIN or PUK: never kept, revealed or not.
    case pin

    /// What the data of `command` and of its answer are, on a card of `generation`.
    public static func of(
        _ command: CommandAPDU, generation: KeycardGeneration
    ) -> (command: TraceSensitivity, answer: TraceSensitivity) {
        switch CardCommand(command) {
        case .verifyPIN, .changePIN, .changePUK, .unblockPIN: (.pin, .none)
        case .initialize: (generation == .v4 ? .pin : .none, .none)
        case .changePairingSecret, .loadKey: (.secret, .none)
        case .exportKey: (.none, command.p2 == ExportKind.privateKey.rawValue ? .secret : .none)
        case .generateMnemonic, .exportLEE, .exportBIP85, .ecdh: (.none, .secret)
        default: (.none, .none)
        }
    }

    /// The data as a trace may keep it: nil unless public, or secret and revealed.
    public func kept(_ data: [UInt8], reveal: Bool) -> [UInt8]? {
        switch self {
        case .none: data
        case .secret: reveal ? data : nil
        case .pin: nil
        }
    }
}

extension TraceCommand {
    /// `apdu` as a trace keeps it: its data left out when `sensitivity` says so.
    public init(_ apdu: CommandAPDU, keeping sensitivity: TraceSensitivity, view: TraceView) {
        self.init(header: apdu.header, data: sensitivity.kept(apdu.data, reveal: view.reveal), count: apdu.data.count)
    }
}

extension TraceAnswer {
    /// `response` as a trace keeps it: its data left out when `sensitivity` says so.
    public init(_ response: ResponseAPDU, keeping sensitivity: TraceSensitivity, view: TraceView) {
        self.init(
            data: sensitivity.kept(response.data, reveal: view.reveal), count: response.data.count, sw: response.sw)
    }
}

extension TraceWire {
    /// One APDU on the wire as a trace keeps it. Through a secure channel the bytes are ciphertext;
    /// a plain exchange whose data the rule leaves out keeps only the command's header and Lc, and the
    /// answer's status word (a raw VERIFY PIN sent without a channel shows no PIN, revealed or not).
    public init(
        sent: [UInt8], received: [UInt8], micros: Int, plain: Bool,
        keeping sensitivity: (command: TraceSensitivity, answer: TraceSensitivity), view: TraceView
    ) {
        let hideCommand = plain && sensitivity.command.kept([], reveal: view.reveal) == nil
        let hideAnswer = plain && sensitivity.answer.kept([], reveal: view.reveal) == nil
        self.init(
            sent: hideCommand ? Array(sent.prefix(5)) : sent,
            received: hideAnswer ? Array(received.suffix(2)) : received,
            micros: micros)
    }
}

/// Watches a card's exchanges as they happen (docs/card-explained.md): the command set opens an
/// exchange for each command, the transport beneath reports the wire APDUs with their round-trip
/// times, the secure channel its steps, the command set closes the exchange with the answer; the
/// tracer keeps the record (secrets left out), learns the card's state from it, explains it and
/// hands it to `sink`. With no tracer installed none of this runs (`KeycardCommandSet.tracer`).
public final class CardTracer {
    public var level: TraceLevel
    public var view: TraceView
    /// The reader or `sim:NAME`, kept in each record.
    public var card: String
    /// Called with each finished exchange, and again with the steps added after it (the key schedule).
    public var sink: ((TraceExchange, _ addendum: [TraceStep]?) -> Void)?
    /// Lines that belong to no exchange (the ATR at a reader's connection).
    public var lineSink: (([String]) -> Void)?
    /// `card.step on`: called before each command leaves, with what is about to be sent; throws
    /// to stop it (nothing is sent).
    public var beforeSend: ((TraceExchange) throws(CardError) -> Void)?
    /// The exchanges so far (at most `maximumRecords`, the oldest dropped), for `card.trace save`.
    public private(set) var records: [TraceExchange] = []
    /// The card as the exchanges so far describe it.
    public private(set) var state = CardTraceState()
    /// The generation the last SELECT showed (3.x until a 4.0 answer is seen).
    public private(set) var generation: KeycardGeneration

    /// A trace keeps this many exchanges; a long session drops the oldest.
    public static let maximumRecords = 10_000

    private var pending: TraceExchange?
    private var pendingSensitivity: (command: TraceSensitivity, answer: TraceSensitivity) = (.none, .none)
    private var count = 0

    public init(level: TraceLevel, view: TraceView, card: String, generation: KeycardGeneration = .v3) {
        self.level = level
        self.view = view
        self.card = card
        self.generation = generation
    }

    /// Forgets the records kept so far (the numbering goes on).
    public func clearRecords() { records.removeAll() }

    // MARK: Reports from the card stack

    /// A command is about to be sent, plain or through channel `channel` (`plain`, `V1`, `V2`).
    func begin(_ command: CommandAPDU, channel: String) throws(CardError) {
        count += 1
        pendingSensitivity = TraceSensitivity.of(command, generation: generation)
        var exchange = TraceExchange(
            number: count, generation: generation, channel: channel, card: card,
            command: TraceCommand(command, keeping: pendingSensitivity.command, view: view))
        pending = exchange
        guard let beforeSend else { return }
        // Only a step shows the command before its answer; `end` explains the whole exchange.
        exchange.explained = KeycardExplainer(generation: generation, view: view).explain(exchange.command)
        do { try beforeSend(exchange) } catch {
            pending = nil
            throw error
        }
    }

    /// One APDU went over the wire and came back (GET RESPONSE rounds each count).
    func wire(sent: [UInt8], received: [UInt8], micros: Int) {
        guard let channel = pending?.channel else { return }
        pending?.wire.append(
            TraceWire(
                sent: sent, received: received, micros: micros, plain: channel == "plain",
                keeping: pendingSensitivity, view: view))
    }

    /// A public step of the channel, with its bytes (if any).
    func step(
        _ phase: TraceStep.Phase, _ label: String, _ value: [UInt8]? = nil, role: TraceRole? = nil, note: String? = nil
    ) {
        guard pending != nil || phase == .after else { return }
        add(TraceStep(phase, label, value: value, role: role, note: note))
    }

    /// A secret step (a session key, a shared secret): its bytes kept only when revealed.
    func secretStep(_ phase: TraceStep.Phase, _ label: String, _ value: Secret) {
        let bytes = view.reveal ? value.withUnsafeBytes { Array($0) } : nil
        add(TraceStep(phase, label, value: bytes, count: value.count, secret: true))
    }

    private var addendum: [TraceStep] = []

    private func add(_ step: TraceStep) {
        if pending != nil {
            pending?.steps.append(step)
        } else if !records.isEmpty {
            records[records.count - 1].steps.append(step)
            addendum.append(step)
        }
    }

    /// Steps made after the exchange ended (the key schedule) are handed on as one addendum.
    func flushAddendum() {
        guard !addendum.isEmpty, let last = records.last else { return }
        sink?(last, addendum)
        addendum = []
    }

    /// The exchange ended: with the (inner) answer, or with an error.
    func end(_ response: ResponseAPDU?, error: CardError?) {
        guard var exchange = pending else { return }
        pending = nil
        if let response {
            let answer = TraceAnswer(response, keeping: pendingSensitivity.answer, view: view)
            exchange.answer = answer
            learnGeneration(exchange.command, answer)
            exchange.generation = generation
            exchange.explain(view: view, state: &state)
        }
        exchange.error = error?.description
        records.append(exchange)
        if records.count > Self.maximumRecords { records.removeFirst(records.count - Self.maximumRecords) }
        sink?(exchange, nil)
    }

    private func learnGeneration(_ command: TraceCommand, _ answer: TraceAnswer) {
        guard command.command == .select, answer.sw == 0x9000, let data = answer.data,
            let info = try? ApplicationInfo(selectResponse: data)
        else { return }
        if info.isInitialized || info.version != nil { generation = info.usesSecureChannelV2 ? .v4 : .v3 }
    }
}

/// A transport that reports each APDU and its round-trip time to the tracer of the command set
/// above it; with no tracer it only passes the bytes on.
public final class TappedTransport: CardTransport {
    public let inner: CardTransport
    weak var tracer: CardTracer?

    public init(_ inner: CardTransport) { self.inner = inner }

    public func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        guard let tracer else { return try inner.transmit(command) }
        let start = DispatchTime.now().uptimeNanoseconds
        let answer = try inner.transmit(command)
        let micros = Int((DispatchTime.now().uptimeNanoseconds - start) / 1000)
        tracer.wire(sent: command, received: answer, micros: micros)
        return answer
    }
}

extension TraceExchange {
    /// Makes its explanation from its bytes (the command, the answer, then what changed on the card,
    /// given what `state` knew before it; `state` learns from it). Live and replayed alike.
    public mutating func explain(view: TraceView, state: inout CardTraceState) {
        var explainer = KeycardExplainer(generation: generation, view: view)
        let showsKeys: Set<CardCommand> = [.select, .exportKey, .sign]
        randomKey = state.keyIsRandom && showsKeys.contains(command.command) ? true : nil
        explainer.keysAreRandom = randomKey == true
        explained = explainer.explain(command)
        guard let answer else { return }
        explained += explainer.explain(answer, to: command)
        explained += state.apply(command, answer, generation: generation, view: view).map { ExplainLine("card: " + $0) }
    }
}
