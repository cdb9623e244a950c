import WalletCrypto

// MARK: - Trace records

/// One command and its outcome, rendered for people (docs/habits.md §4: nothing secret).
///
/// Commands inside the secure channel are shown in plaintext (what was meant, not the
/// ciphertext), with the data of VERIFY PIN, CHANGE PIN/PUK/PAIRING SECRET, UNBLOCK PIN and
/// LOAD KEY, and the answers of EXPORT KEY (private key) and GENERATE MNEMONIC, replaced by
/// `<masked N bytes>`. Only the rendered text is kept, never the bytes.
public struct APDUTraceRecord: Sendable, Equatable, CustomStringConvertible {
    /// Which command it was.
    public let command: CardCommand
    /// True when it went through the secure channel.
    public let secure: Bool
    /// The command: `80 20 00 00 06 <masked 6 bytes>`.
    public let commandText: String
    /// The answer: `A3090201030201050101 9000`, or nil when the exchange failed.
    public let responseText: String?
    /// The failure below or inside the channel, if any (status words are not failures here).
    public let error: CardError?

    /// Renders one exchange.
    public init(command apdu: CommandAPDU, secure: Bool, response: ResponseAPDU?, error: CardError?) {
        let name = CardCommand(apdu)
        let policy = TraceMask.policy(for: apdu)
        command = name
        self.secure = secure
        var text = apdu.header.map(hexByte).joined(separator: " ")
        if !apdu.data.isEmpty {
            text += " " + hexByte(UInt8(truncatingIfNeeded: apdu.data.count)) + " "
            text += policy.maskCommand ? TraceMask.masked(apdu.data.count) : apdu.data.hex.uppercased()
        }
        if let le = apdu.le { text += " " + hexByte(le) }
        commandText = text
        if let response {
            let sw = hexSW(response.sw)
            if response.data.isEmpty {
                responseText = sw
            } else {
                let data = policy.maskResponse ? TraceMask.masked(response.data.count) : response.data.hex.uppercased()
                responseText = data + " " + sw
            }
        } else {
            responseText = nil
        }
        self.error = error
    }

    /// Two lines: `→ [SC] VERIFY PIN: 80 20 …` and `← 63C2` (or `✗ <error>`).
    public var description: String {
        let channel = secure ? "[SC] " : ""
        let answer = responseText.map { "← \($0)" } ?? "✗ \(error?.description ?? "no answer")"
        return "→ \(channel)\(command.name): \(commandText)\n  \(answer)"
    }
}

/// Receives one record per exchange.
public typealias APDUTraceSink = (APDUTraceRecord) -> Void

/// Which parts of an exchange carry secrets, decided from the command header alone, so a
/// raw APDU typed by the user is masked the same way as one built by `KeycardCommands`.
public enum TraceMask {
    /// Whether to mask the command data and the response data: the card trace's rule
    /// (`TraceSensitivity`), read as for a 4.0 card since this record does not know the
    /// generation — so INIT's data (a 4.0 card's PIN and PUK) is masked on either.
    public static func policy(for apdu: CommandAPDU) -> (maskCommand: Bool, maskResponse: Bool) {
        let rule = TraceSensitivity.of(apdu, generation: .v4)
        return (rule.command != .none, rule.answer != .none)
    }

    /// `<masked 6 bytes>`.
    public static func masked(_ count: Int) -> String { "<masked \(count) byte\(count == 1 ? "" : "s")>" }
}

/// Collects trace records (for tests, `.trace` output, bug reports).
public final class APDUTrace {
    /// The records so far, oldest first.
    public private(set) var records: [APDUTraceRecord] = []

    /// An empty trace.
    public init() {}

    /// A sink that appends to this trace.
    public var sink: APDUTraceSink {
        { [weak self] record in self?.records.append(record) }
    }

    /// Every record, rendered, one exchange after another.
    public var text: String { records.map(\.description).joined(separator: "\n") }

    /// Forgets the records.
    public func clear() { records.removeAll() }
}

/// A channel that reports every exchange through another channel to a sink. Put it above
/// a `SecureChannel` to see plaintext, or above a `PlainChannel` to see the wire.
public final class TracingChannel: APDUChannel {
    /// The channel that does the work.
    public let inner: APDUChannel
    /// Marks records as secure-channel traffic.
    public let secure: Bool
    private let sink: APDUTraceSink

    /// Traces `inner`'s exchanges to `sink`, marked `secure` or not.
    public init(wrapping inner: APDUChannel, secure: Bool, sink: @escaping APDUTraceSink) {
        self.inner = inner
        self.secure = secure
        self.sink = sink
    }

    public func send(_ command: CommandAPDU) throws(CardError) -> ResponseAPDU {
        do {
            let response = try inner.send(command)
            sink(APDUTraceRecord(command: command, secure: secure, response: response, error: nil))
            return response
        } catch {
            sink(APDUTraceRecord(command: command, secure: secure, response: nil, error: error))
            throw error
        }
    }
}

// MARK: - Fault injection

/// A transport wrapper for tests that makes things go wrong on purpose: the connection
/// drops after some APDUs, or one byte of an answer is flipped in transit.
public final class FaultInjectingTransport: CardTransport {
    /// One planned fault. APDUs are counted from 1 in the order they reach this transport
    /// (GET RESPONSE rounds count too).
    public enum Fault: Sendable, Equatable {
        /// APDUs 1…n go through; from APDU n + 1 on, `TransportError.connectionLost`.
        case dropConnection(afterAPDUs: Int)
        /// XOR `mask` into byte `byteIndex` (0 = first byte; negative counts from the end,
        /// -1 = SW2) of the answer to APDU `apdu`.
        case flipResponseByte(apdu: Int, byteIndex: Int, mask: UInt8 = 0x01)
    }

    /// The transport that does the work.
    public let inner: CardTransport
    /// The faults still to come.
    public var faults: [Fault]
    /// APDUs seen so far (including refused ones).
    public private(set) var count = 0

    /// Wraps `inner` with the planned `faults`.
    public init(wrapping inner: CardTransport, faults: [Fault]) {
        self.inner = inner
        self.faults = faults
    }

    public func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        count += 1
        for fault in faults {
            if case .dropConnection(let n) = fault, count > n {
                throw .connectionLost(detail: "fault injected: connection dropped after APDU \(n)")
            }
        }
        var response = try inner.transmit(command)
        for fault in faults {
            if case .flipResponseByte(let n, let index, let mask) = fault, n == count, !response.isEmpty {
                let i = index >= 0 ? index : response.count + index
                if response.indices.contains(i) { response[i] ^= mask }
            }
        }
        return response
    }
}
