import KCSErrors
import WalletCrypto

/// The narrow seam every card layer meets at (docs/habits.md §7): raw command APDU bytes in,
/// raw response APDU bytes (data ‖ SW1 SW2) out. A PC/SC reader, the in-process
/// simulator and the fault-injecting wrapper all conform; everything above works on bytes
/// through this one protocol.
///
/// Transports are used from one thread at a time (a card session is sequential), so the
/// protocol does not require `Sendable`.
public protocol CardTransport: AnyObject {
    /// Sends one command APDU and returns the whole response APDU, status word last.
    /// T=0 procedure bytes (`61 XX`, `6C XX`) are the channel's business, not the transport's.
    func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8]
}

/// A card that can sit behind a reader: besides APDUs it answers the power and reset
/// events a reader produces. The vpcd bridge drives one of these.
public protocol VirtualCard: CardTransport {
    /// Answer-to-reset bytes the reader reports.
    var atr: [UInt8] { get }
    /// Power on (or a warm reset): transient state is cleared, as after a real reset.
    func powerOn()
    /// Power off: transient state is lost.
    func powerOff()
    /// Warm reset.
    func reset()
}

/// Failures below the APDU level: the bytes never made it to the card or back. These are
/// never counted as a wrong PIN or reported as a card status word.
public enum TransportError: WalletError, Equatable {
    /// pcscd is not running or not reachable.
    case noService
    /// No reader is attached, or none matches the requested name.
    case noReader(requested: String?)
    /// The reader is there but holds no card (after waiting `seconds`, when a wait was asked).
    case noCard(reader: String, seconds: Double?)
    /// The card was removed or reset during the exchange ("Tag connection lost").
    case cardRemoved(reader: String)
    /// Another process holds the card exclusively.
    case sharingViolation(reader: String)
    /// The connection dropped (socket closed, simulator detached, fault injected).
    case connectionLost(detail: String)
    /// The response is shorter than a status word or otherwise not an APDU response.
    case malformedResponse(detail: String)
    /// A command that cannot be sent as a short APDU (data over 255 bytes, …).
    case invalidCommand(detail: String)
    /// Any other PC/SC error, with its code and pcsc-lite's text.
    case pcsc(code: UInt32, text: String)

    /// Stable identifier of the case.
    public var id: String {
        switch self {
        case .noService: "transport.noService"
        case .noReader: "transport.noReader"
        case .noCard: "transport.noCard"
        case .cardRemoved: "transport.cardRemoved"
        case .sharingViolation: "transport.sharingViolation"
        case .connectionLost: "transport.connectionLost"
        case .malformedResponse: "transport.malformedResponse"
        case .invalidCommand: "transport.invalidCommand"
        case .pcsc: "transport.pcsc"
        }
    }

    public var description: String {
        switch self {
        case .noService:
            "the PC/SC service is not available: start pcscd (or use the simulator: card.connect sim)"
        case .noReader(let requested):
            if let requested { "no reader matches \"\(requested)\"" } else { "no smart-card reader is attached" }
        case .noCard(let reader, let seconds):
            if let seconds {
                "no card in reader \"\(reader)\" after waiting \(seconds) s"
            } else {
                "no card in reader \"\(reader)\""
            }
        case .cardRemoved(let reader):
            "the card was removed from \"\(reader)\" during the exchange; nothing was counted as a wrong PIN"
        case .sharingViolation(let reader):
            "another program is using the card in \"\(reader)\"; close it and try again"
        case .connectionLost(let detail):
            "the connection to the card was lost (\(detail))"
        case .malformedResponse(let detail):
            "the card's response is not a valid APDU response (\(detail))"
        case .invalidCommand(let detail):
            "the command cannot be sent: \(detail)"
        case .pcsc(let code, let text):
            "PC/SC error 0x\(String(code, radix: 16, uppercase: true)): \(text)"
        }
    }
}

extension TransportError {
    /// A command the card could not take is a card error; everything else below the APDU means
    /// the reader or the card is not there (any more).
    public var exitClass: ExitClass {
        switch self {
        case .invalidCommand, .malformedResponse: .cardError
        default: .noCard
        }
    }
}
