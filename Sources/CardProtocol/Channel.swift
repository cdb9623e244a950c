/// The APDU-level seam of the card stack (docs/habits.md §7): one command in, one complete
/// response out. `PlainChannel` sits on a `CardTransport`; `SecureChannel` adopts the same
/// protocol and wraps another channel, so everything above works with either.
public protocol APDUChannel: AnyObject {
    /// Sends `command` and returns the card's whole response.
    ///
    /// - Throws: `CardError.transport` when the bytes did not make it; channel-specific
    ///   errors (MAC failures, …). A status word other than `90 00` is *not* an error here:
    ///   the caller decides what it means for its command.
    func send(_ command: CommandAPDU) throws(CardError) -> ResponseAPDU
}

/// A channel without encryption that runs the ISO 7816-3 T=0 procedure bytes
/// (docs/keycard-protocol.md §2): `61 XX` → GET RESPONSE `00 C0 00 00 XX`, appending the data,
/// until the final status word; `6C XX` → the same command again with Le = XX.
public final class PlainChannel: APDUChannel {
    /// The transport the bytes go through.
    public let transport: CardTransport

    /// At most this many GET RESPONSE / resend rounds for one command; a card that keeps
    /// asking is answered with `malformedResponse` instead of looping forever.
    public static let maximumRounds = 64

    /// A channel over `transport`.
    public init(transport: CardTransport) {
        self.transport = transport
    }

    public func send(_ command: CommandAPDU) throws(CardError) -> ResponseAPDU {
        var response = try exchange(command)
        var data = [UInt8]()
        var rounds = 0
        while response.sw1 == 0x61 || response.sw1 == 0x6C {
            rounds += 1
            guard rounds <= Self.maximumRounds else {
                throw .malformedResponse(
                    command: CardCommand(command),
                    detail: "the card still asks for GET RESPONSE after \(Self.maximumRounds) rounds")
            }
            if response.sw1 == 0x61 {
                data += response.data
                response = try exchange(CommandAPDU(cla: 0x00, ins: 0xC0, p1: 0, p2: 0, le: response.sw2))
            } else {
                var again = command
                again.le = response.sw2
                response = try exchange(again)
            }
        }
        return ResponseAPDU(data: data + response.data, sw1: response.sw1, sw2: response.sw2)
    }

    private func exchange(_ command: CommandAPDU) throws(CardError) -> ResponseAPDU {
        do {
            let bytes = try transport.transmit(try command.encoded())
            return try ResponseAPDU(bytes: bytes)
        } catch {
            throw .transport(error)
        }
    }
}
