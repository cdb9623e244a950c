import WalletCrypto

/// Which Keycard generation an exchange belongs to: the command tables differ (docs/keycard-protocol.md §10, §14).
public enum KeycardGeneration: String, Sendable, Codable, CaseIterable {
    /// Applets 3.x: pairing, Secure Channel V1.
    case v3 = "3.1"
    /// Applet 4.0: Secure Channel V2, no pairing.
    case v4 = "4.0"
}

/// A command as the card reads it (for a secured command: the inner one): header and data, the data
/// left out when it is secret (`data` nil, `count` kept).
public struct TraceCommand: Sendable, Equatable, Codable {
    /// CLA INS P1 P2.
    @HexBytes public var header: [UInt8]
    /// The data, or nil when masked.
    @OptionalHexBytes public var data: [UInt8]?
    /// The data's length.
    public var count: Int

    public init(header: [UInt8], data: [UInt8]?, count: Int) {
        self.header = header
        self.data = data
        self.count = count
    }

    public var cla: UInt8 { header[0] }
    public var ins: UInt8 { header[1] }
    public var p1: UInt8 { header[2] }
    public var p2: UInt8 { header[3] }
    /// The command's name, as `CardCommand` recognises it.
    public var command: CardCommand {
        CardCommand(CommandAPDU(cla: cla, ins: ins, p1: p1, p2: p2, data: []))
    }
}

/// An answer (for a secured command: the inner one), its data left out when it is secret.
public struct TraceAnswer: Sendable, Equatable, Codable {
    @OptionalHexBytes public var data: [UInt8]?
    public var count: Int
    public var sw: UInt16

    public init(data: [UInt8]?, count: Int, sw: UInt16) {
        self.data = data
        self.count = count
        self.sw = sw
    }
}

/// One APDU on the wire (below any secure channel): what was sent, what came back, how long it took.
public struct TraceWire: Sendable, Equatable, Codable {
    @HexBytes public var sent: [UInt8]
    @HexBytes public var received: [UInt8]
    /// Round-trip time in microseconds.
    public var micros: Int

    public init(sent: [UInt8], received: [UInt8], micros: Int) {
        self.sent = sent
        self.received = received
        self.micros = micros
    }
}

/// One step of the secure channel (the channel layer): a computation and its result, the result
/// masked when secret. `phase` places it: before the command leaves, after the answer came, or after
/// the whole exchange (the key schedule of OPEN SECURE CHANNEL).
public struct TraceStep: Sendable, Equatable, Codable {
    public enum Phase: String, Sendable, Codable { case wrap, unwrap, after }
    public var phase: Phase
    /// What was computed: `C = AES-256-CBC(encKey, IV, pad(6 B))`.
    public var label: String
    /// Its value, when it has bytes: nil when secret and not revealed.
    @OptionalHexBytes public var value: [UInt8]?
    /// The value's length.
    public var count: Int
    /// True for a secret value (session keys, shared secrets): masked unless revealed.
    public var secret: Bool
    /// What the value is when it is random (for `--diffable`).
    public var role: TraceRole?
    /// A verdict or a note with no bytes: `MAC ok`, `IV ← M′`.
    public var note: String?

    public init(
        _ phase: Phase, _ label: String, value: [UInt8]? = nil, count: Int? = nil, secret: Bool = false,
        role: TraceRole? = nil, note: String? = nil
    ) {
        self.phase = phase
        self.label = label
        self.value = value
        self.count = count ?? value?.count ?? 0
        self.secret = secret
        self.role = role
        self.note = note
    }
}

/// One exchange as the trace keeps it and `card.trace save` writes it (one JSON line each): the
/// command as meant, the answer, the wire exchanges beneath it, the channel's steps, and the
/// explanation. Secrets are left out by the same rule as the history (docs/card-explained.md,
/// "Secrets"); nothing in it is enough to recover a PIN, a key or a session key.
public struct TraceExchange: Sendable, Equatable, Codable {
    /// 1, 2, … within the trace.
    public var number: Int
    public var generation: KeycardGeneration
    /// `plain`, `V1` or `V2`.
    public var channel: String
    /// The reader or `sim:NAME`.
    public var card: String
    public var command: TraceCommand
    public var answer: TraceAnswer?
    public var wire: [TraceWire]
    public var steps: [TraceStep]
    /// The failure below or inside the channel, if any.
    public var error: String?
    /// The explanation (the `explain` layer), as it was made when the exchange ran.
    public var explained: [ExplainLine]
    /// True when the answer holds keys of a key GENERATE KEY made (random: by role when diffable).
    public var randomKey: Bool?

    public init(
        number: Int, generation: KeycardGeneration, channel: String, card: String, command: TraceCommand,
        answer: TraceAnswer? = nil, wire: [TraceWire] = [], steps: [TraceStep] = [], error: String? = nil,
        explained: [ExplainLine] = []
    ) {
        self.number = number
        self.generation = generation
        self.channel = channel
        self.card = card
        self.command = command
        self.answer = answer
        self.wire = wire
        self.steps = steps
        self.error = error
        self.explained = explained
    }
}

/// Bytes written as one hex string in a saved trace.
@propertyWrapper
public struct HexBytes: Sendable, Equatable, Codable {
    public var wrappedValue: [UInt8]
    public init(wrappedValue: [UInt8]) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let bytes = try? Hex.decode(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not hex: \(text)"))
        }
        wrappedValue = bytes
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Hex.encode(wrappedValue))
    }
}

/// Bytes or null (left out because secret) in a saved trace.
@propertyWrapper
public struct OptionalHexBytes: Sendable, Equatable, Codable {
    public var wrappedValue: [UInt8]?
    public init(wrappedValue: [UInt8]?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            wrappedValue = nil
            return
        }
        wrappedValue = try HexBytes(from: decoder).wrappedValue
    }

    public func encode(to encoder: any Encoder) throws {
        if let wrappedValue { return try HexBytes(wrappedValue: wrappedValue).encode(to: encoder) }
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}
