internal import CPCSC
import CardProtocol
import Foundation

/// PC/SC return codes kcs tells apart (pcsclite.h; the macros are casts Swift cannot import).
enum PCSCCode {
    static let success: UInt32 = 0
    static let timeout: UInt32 = 0x8010_000A
    static let sharingViolation: UInt32 = 0x8010_000B
    static let noSmartcard: UInt32 = 0x8010_000C
    static let unknownReader: UInt32 = 0x8010_0009
    static let readerUnavailable: UInt32 = 0x8010_0017
    static let noService: UInt32 = 0x8010_001D
    static let serviceStopped: UInt32 = 0x8010_001E
    static let noReadersAvailable: UInt32 = 0x8010_002E
    static let removedCard: UInt32 = 0x8010_0069
    static let resetCard: UInt32 = 0x8010_0068
    static let unpoweredCard: UInt32 = 0x8010_0067
    static let unresponsiveCard: UInt32 = 0x8010_0066
    static let communicationError: UInt32 = 0x8010_0013
    static let invalidHandle: UInt32 = 0x8010_0003
    static let notTransacted: UInt32 = 0x8010_0016

    /// SCARD_F_INTERNAL_ERROR: what a missing libpcsclite is reported as.
    static let internalError: UInt32 = 0x8010_0001

    /// pcsc-lite's text for a code (pure, no daemon needed).
    static func text(_ code: UInt32) -> String {
        // LONG is a 64-bit long here.
        guard let stringify = kcs_pcsc()?.pointee.pcsc_stringify_error, let text = stringify(Int(code)) else {
            return "code \(code)"
        }
        return String(cString: text)
    }
}

/// pcsc-lite's functions, loaded on first use (`CPCSC/shim.h`); a missing library is a PC/SC
/// error that names it.
enum PCSCLibrary {
    static func load() throws(TransportError) -> kcs_pcsc_api {
        guard let api = kcs_pcsc() else {
            throw .pcsc(code: PCSCCode.internalError, text: String(cString: kcs_pcsc_error()))
        }
        return api.pointee
    }
}

/// One PC/SC resource-manager context (pcscd connection). Lists readers and waits for cards.
public final class PCSCContext {
    private let context: Int
    fileprivate let api: kcs_pcsc_api

    /// Connects to pcscd. Fails with `.noService` when pcscd is not running.
    public init() throws(TransportError) {
        api = try PCSCLibrary.load()
        var ctx = 0
        let rc = api.SCardEstablishContext!(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &ctx)
        guard rc == 0 else { throw PCSCContext.error(rc, reader: "") }
        context = ctx
    }

    deinit { _ = api.SCardReleaseContext!(context) }

    /// The names of the attached readers, in pcscd's order (empty when none).
    public func readers() throws(TransportError) -> [String] {
        var length: DWORD = 0
        var rc = api.SCardListReaders!(context, nil, nil, &length)
        if UInt32(truncatingIfNeeded: rc) == PCSCCode.noReadersAvailable { return [] }
        guard rc == 0 else { throw PCSCContext.error(rc, reader: "") }
        var buffer = [CChar](repeating: 0, count: Int(length))
        rc = api.SCardListReaders!(context, nil, &buffer, &length)
        if UInt32(truncatingIfNeeded: rc) == PCSCCode.noReadersAvailable { return [] }
        guard rc == 0 else { throw PCSCContext.error(rc, reader: "") }
        // A multi-string: names separated by NUL, ended by an empty name.
        return buffer.split(separator: 0, omittingEmptySubsequences: true)
            .map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }

    /// The reader whose name contains `query` (case-insensitive); the first reader when nil.
    /// Several matches choose the first, an exact name wins.
    public func reader(matching query: String?) throws(TransportError) -> String {
        let all = try readers()
        guard let query, !query.isEmpty else {
            guard let first = all.first else { throw .noReader(requested: nil) }
            return first
        }
        if let exact = all.first(where: { $0 == query }) { return exact }
        guard let found = all.first(where: { $0.lowercased().contains(query.lowercased()) }) else {
            throw .noReader(requested: query)
        }
        return found
    }

    /// Waits until a card is present in `reader`, at most `timeout` seconds.
    public func waitForCard(in reader: String, timeout: Double) throws(TransportError) {
        let deadline = Date().addingTimeInterval(timeout)
        var current = DWORD(SCARD_STATE_UNAWARE)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            let ms = max(0, Int(remaining * 1000))
            var rc = 0
            var event: DWORD = 0
            reader.withCString { name in
                var state = SCARD_READERSTATE()
                state.szReader = name
                state.dwCurrentState = current
                rc = api.SCardGetStatusChange!(context, DWORD(ms), &state, 1)
                event = state.dwEventState
            }
            let code = UInt32(truncatingIfNeeded: rc)
            if code == PCSCCode.timeout { throw .noCard(reader: reader, seconds: timeout) }
            guard rc == 0 else { throw PCSCContext.error(rc, reader: reader) }
            if event & DWORD(SCARD_STATE_PRESENT) != 0 { return }
            if remaining <= 0 { throw .noCard(reader: reader, seconds: timeout) }
            current = event & ~DWORD(SCARD_STATE_CHANGED)
        }
    }

    /// Opens a T=0/T=1 connection to the card in `reader`, shared unless `exclusive`.
    public func connect(reader: String, exclusive: Bool = false) throws(TransportError) -> PCSCTransport {
        var handle = 0
        var proto: DWORD = 0
        let rc = api.SCardConnect!(
            context, reader, DWORD(exclusive ? SCARD_SHARE_EXCLUSIVE : SCARD_SHARE_SHARED),
            DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &handle, &proto)
        guard rc == 0 else { throw PCSCContext.error(rc, reader: reader) }
        return PCSCTransport(context: self, handle: handle, protocol: proto, reader: reader)
    }

    /// Maps a PC/SC return code to a transport error that says what the user can do.
    static func error(_ rc: Int, reader: String) -> TransportError {
        let code = UInt32(truncatingIfNeeded: rc)
        switch code {
        case PCSCCode.noService, PCSCCode.serviceStopped: return .noService
        case PCSCCode.noReadersAvailable, PCSCCode.unknownReader, PCSCCode.readerUnavailable:
            return .noReader(requested: reader.isEmpty ? nil : reader)
        case PCSCCode.noSmartcard: return .noCard(reader: reader, seconds: nil)
        case PCSCCode.removedCard, PCSCCode.resetCard, PCSCCode.unpoweredCard, PCSCCode.unresponsiveCard,
            PCSCCode.notTransacted:  // what vpcd reports when the virtual card went away mid-exchange
            return .cardRemoved(reader: reader)
        case PCSCCode.sharingViolation: return .sharingViolation(reader: reader)
        case PCSCCode.communicationError: return .connectionLost(detail: PCSCCode.text(code))
        default: return .pcsc(code: code, text: PCSCCode.text(code))
        }
    }
}

/// A `CardTransport` over one PC/SC card connection. Sends raw APDUs with SCardTransmit;
/// the T=0 procedure bytes are left to the APDU channel above.
public final class PCSCTransport: CardTransport {
    private let context: PCSCContext  // keeps the context alive as long as the connection
    private var handle: Int
    private let activeProtocol: DWORD
    /// The reader's name.
    public let reader: String

    init(context: PCSCContext, handle: Int, protocol: DWORD, reader: String) {
        self.context = context
        self.handle = handle
        self.activeProtocol = `protocol`
        self.reader = reader
    }

    deinit { disconnect() }

    /// The card's answer to reset, as SCardStatus reports it (empty when it cannot be read).
    public var atr: [UInt8] {
        let status = cardStatus()
        return status.rc == 0 ? status.atr : []
    }

    /// SCardStatus of the connection: its return code, the card's state bits and its ATR.
    private func cardStatus() -> (rc: Int, state: DWORD, atr: [UInt8]) {
        var name = [CChar](repeating: 0, count: 256)
        var nameLength = DWORD(name.count)
        var state: DWORD = 0, proto: DWORD = 0
        var atr = [UInt8](repeating: 0, count: 33)
        var atrLength = DWORD(atr.count)
        let rc = context.api.SCardStatus!(handle, &name, &nameLength, &state, &proto, &atr, &atrLength)
        return (Int(rc), state, Array(atr[0..<Int(min(atrLength, 33))]))
    }

    /// "T=0" or "T=1".
    public var protocolName: String { activeProtocol == DWORD(SCARD_PROTOCOL_T0) ? "T=0" : "T=1" }

    public func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        guard handle != 0 else { throw .connectionLost(detail: "the connection to \(reader) is closed") }
        guard command.count >= 4, command.count <= 261 else {
            throw .invalidCommand(detail: "a short APDU is 4 to 261 bytes, got \(command.count)")
        }
        var response = [UInt8](repeating: 0, count: 258)
        var length = DWORD(response.count)
        let pci = activeProtocol == DWORD(SCARD_PROTOCOL_T0) ? context.api.g_rgSCardT0Pci : context.api.g_rgSCardT1Pci
        let rc = context.api.SCardTransmit!(handle, pci, command, DWORD(command.count), nil, &response, &length)
        guard rc == 0 else { throw PCSCContext.error(rc, reader: reader) }
        // No card answers without a status word; a reader that lost its card mid-exchange (vpcd, when
        // the card went away between command and answer) hands back 0 bytes and success. That is the
        // card gone — a transport error — not a malformed card answer (docs/card-console.md, exit 69).
        if length == 0 { throw absentCardError() }
        guard length >= 2 else { throw .malformedResponse(detail: "\(length) bytes, a status word needs 2") }
        return Array(response[0..<Int(length)])
    }

    /// Why an exchange got no answer: what SCardStatus says of the card, `cardRemoved` when it is not
    /// there (any more), else a lost connection.
    private func absentCardError() -> TransportError {
        let (rc, state, _) = cardStatus()
        if rc != 0 {
            let error = PCSCContext.error(rc, reader: reader)
            if case .pcsc = error { return .cardRemoved(reader: reader) }
            return error
        }
        if state & DWORD(SCARD_PRESENT) == 0 { return .cardRemoved(reader: reader) }
        return .connectionLost(detail: "\(reader) answered with no bytes (the card stopped answering)")
    }

    /// Releases the card (leaving it powered), idempotent.
    public func disconnect() {
        if handle != 0 {
            _ = context.api.SCardDisconnect!(handle, DWORD(SCARD_LEAVE_CARD))
            handle = 0
        }
    }
}
