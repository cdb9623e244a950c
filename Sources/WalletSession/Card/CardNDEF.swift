import CardProtocol

// The NDEF message a card serves to phones (docs/card-console.md, `card.ndef`;
// docs/keycard-protocol.md §10.12, §14.11): read over the open channel, written with the PIN.

/// What a card's NDEF file holds.
public struct CardNDEF: Equatable {
    /// The NDEF message (the file without its 2-byte length); empty when none is stored.
    public let message: [UInt8]
    /// The URI when the message is one URI record.
    public var uri: String? { NDEFMessage.uri(in: message) }
    /// The largest message this card holds (its NDEF capacity less the 2-byte length).
    public let capacity: Int
}

extension Session {
    /// `card.ndef`: the NDEF message on the card (GET DATA P1 01; needs the open channel).
    public func cardNDEF() throws -> CardNDEF {
        let card = try requireChannel()
        let file = try card.commands.readNDEFFile()
        return CardNDEF(message: Array(file.dropFirst(2)), capacity: card.commands.ndefCapacity - 2)
    }

    /// `card.ndef write` and `card.ndef clear`: replaces the card's NDEF message (STORE DATA P1 01;
    /// needs the PIN); an empty message clears it. Returns what the card holds then, read back.
    public func writeCardNDEF(_ message: [UInt8]) throws -> CardNDEF {
        let card = try requireLoggedIn()
        let capacity = card.commands.ndefCapacity - 2
        guard message.count <= capacity else {
            throw CardError.invalidInput(
                command: .storeData,
                reason: "this card holds an NDEF message of at most \(capacity) bytes, got \(message.count)")
        }
        try card.commands.writeNDEFFile(NDEFMessage.file(message))
        return try cardNDEF()
    }
}
