// Status words → CardError (docs/keycard-protocol.md §13): one row per SW, with the command that
// gives it its meaning; a few rendered messages asserted whole (docs/habits.md §5).
import CardProtocol
import Testing

/// One status-word row.
struct SWRow: Sendable, CustomStringConvertible {
    let sw: UInt16
    let command: CardCommand
    let error: CardError
    let id: String
    var description: String { String(sw, radix: 16, uppercase: true) + " " + command.name }
}

@Suite("Status words → CardError")
struct CardErrorTests {
    static let rows: [SWRow] = [
        SWRow(sw: 0x63C2, command: .verifyPIN, error: .wrongPIN(triesLeft: 2), id: "card.wrongPIN"),
        SWRow(sw: 0x63C0, command: .verifyPIN, error: .wrongPIN(triesLeft: 0), id: "card.wrongPIN"),
        SWRow(sw: 0x63C4, command: .unblockPIN, error: .wrongPUK(triesLeft: 4), id: "card.wrongPUK"),
        SWRow(sw: 0x6700, command: .sign, error: .wrongLength(command: .sign), id: "card.wrongLength"),
        SWRow(
            sw: 0x6982, command: .pair, error: .securityStatusNotSatisfied(command: .pair),
            id: "card.securityStatusNotSatisfied"),
        SWRow(sw: 0x6984, command: .sign, error: .invalidKey(command: .sign), id: "card.invalidKey"),
        SWRow(
            sw: 0x6985, command: .sign, error: .conditionsNotSatisfied(command: .sign),
            id: "card.conditionsNotSatisfied"),
        SWRow(sw: 0x6A80, command: .loadKey, error: .wrongData(command: .loadKey), id: "card.wrongData"),
        SWRow(
            sw: 0x6A81, command: .sign, error: .functionNotSupported(command: .sign), id: "card.functionNotSupported"),
        SWRow(sw: 0x6A82, command: .select, error: .notFound(command: .select), id: "card.notFound"),
        SWRow(sw: 0x6A84, command: .pair, error: .noFreePairingSlot, id: "card.noFreePairingSlot"),
        SWRow(
            sw: 0x6A86, command: .openSecureChannel, error: .incorrectP1P2(command: .openSecureChannel),
            id: "card.incorrectP1P2"),
        SWRow(
            sw: 0x6A88, command: .sign, error: .referencedDataNotFound(command: .sign),
            id: "card.referencedDataNotFound"),
        SWRow(sw: 0x6B00, command: .deriveKey, error: .wrongP1P2(command: .deriveKey), id: "card.wrongP1P2"),
        SWRow(
            sw: 0x6D00, command: .initialize, error: .insNotSupported(command: .initialize), id: "card.insNotSupported"),
        SWRow(sw: 0x6F00, command: .unpair, error: .unknown(command: .unpair), id: "card.unknown"),
        SWRow(sw: 0x6F01, command: .sign, error: .crypto(command: .sign, reason: .illegalValue), id: "card.crypto"),
        SWRow(sw: 0x6F02, command: .sign, error: .crypto(command: .sign, reason: .uninitializedKey), id: "card.crypto"),
        SWRow(sw: 0x6F03, command: .sign, error: .crypto(command: .sign, reason: .noSuchAlgorithm), id: "card.crypto"),
        SWRow(sw: 0x6F04, command: .sign, error: .crypto(command: .sign, reason: .invalidInit), id: "card.crypto"),
        SWRow(sw: 0x6F05, command: .sign, error: .crypto(command: .sign, reason: .illegalUse), id: "card.crypto"),
        SWRow(
            sw: 0x6A84, command: .storeData, error: .unexpected(command: .storeData, sw: 0x6A84),
            id: "card.unexpectedStatus"),
        SWRow(sw: 0x6F06, command: .sign, error: .unexpected(command: .sign, sw: 0x6F06), id: "card.unexpectedStatus"),
        SWRow(
            sw: 0x6300, command: .verifyPIN, error: .unexpected(command: .verifyPIN, sw: 0x6300),
            id: "card.unexpectedStatus"),
    ]

    @Test("every §13 status word maps to its typed case, and back", arguments: rows)
    func from_sw_typedCase(_ row: SWRow) throws {
        let error = try #require(CardError.from(sw: row.sw, command: row.command))
        #expect(error == row.error)
        #expect(error.id == row.id)
        #expect(error.statusWord == row.sw)
        #expect(throws: row.error) { try CardError.check(ResponseAPDU(sw: row.sw), command: row.command) }
    }

    @Test("90 00 is not an error")
    func from_9000_nil() throws {
        #expect(CardError.from(sw: 0x9000, command: .sign) == nil)
        try CardError.check(ResponseAPDU(data: [1], sw: 0x9000), command: .sign)
    }

    @Test(
        "rendered messages name the command and what it means",
        arguments: [
            (CardError.wrongPIN(triesLeft: 2), "wrong PIN: 2 tries left"),
            (.wrongPIN(triesLeft: 1), "wrong PIN: 1 try left"),
            (.wrongPIN(triesLeft: 0), "wrong PIN: no tries left, the PIN is blocked; unblock it with the PUK"),
            (
                .wrongPUK(triesLeft: 0),
                "wrong PUK: no tries left, the PUK is blocked; only a factory reset makes the card usable again"
            ),
            (.noFreePairingSlot, "no free pairing slot: unpair a slot from a paired client or factory-reset the card"),
            (
                .conditionsNotSatisfied(command: .sign),
                "SIGN failed (SW 6985): the PIN is not verified, or no key is loaded"
            ),
            (
                .conditionsNotSatisfied(command: .unblockPIN),
                "UNBLOCK PIN failed (SW 6985): the PIN is not blocked, so there is nothing to unblock"
            ),
            (
                .incorrectP1P2(command: .openSecureChannel),
                "OPEN SECURE CHANNEL failed (SW 6A86): the pairing slot is empty or out of range: this pairing was removed; pair again"
            ),
            (.insNotSupported(command: .initialize), "INIT failed (SW 6D00): the card is already initialized"),
            (.notFound(command: .select), "SELECT failed (SW 6A82): the Keycard applet is not installed on this card"),
            (.referencedDataNotFound(command: .sign), "SIGN failed (SW 6A88): no PIN-less path is set on the card"),
            (
                .crypto(command: .sign, reason: .noSuchAlgorithm),
                "SIGN failed (SW 6F03): a cryptographic error on the card (no such algorithm)"
            ),
            (
                .unexpected(command: .other(cla: 0x80, ins: 0x86), sw: 0x6A84),
                "command 80 86 failed (SW 6A84): the card answered with a status word this command does not define"
            ),
            (
                .channelClosed(command: .mutuallyAuthenticate),
                "MUTUALLY AUTHENTICATE: the card refused the handshake (SW 6982): this pairing's key no longer "
                    + "matches the card's slot (it was unpaired or re-used); pair again"
            ),
            (
                .cardCryptogramMismatch,
                "PAIR: the card's cryptogram does not match the pairing secret; the pairing password is wrong (or this is not the card you think)"
            ),
        ] as [(CardError, String)])
    func description_rendered(_ error: CardError, _ message: String) {
        #expect(error.description == message)
    }

    @Test("a lost connection is a transport error: its own id and text, no status word, never a wrong PIN")
    func transport_notAWrongPIN() {
        let error = CardError.transport(.cardRemoved(reader: "ACS ACR1252"))
        #expect(error.id == "card.transport.cardRemoved")
        #expect(error.statusWord == nil)
        #expect(
            error.description
                == "the card was removed from \"ACS ACR1252\" during the exchange; nothing was counted as a wrong PIN")
        #expect(error != .wrongPIN(triesLeft: 0))
    }

    @Test(
        "commands are recognised from their headers",
        arguments: [
            (CommandAPDU(cla: 0x00, ins: 0xA4), CardCommand.select),
            (CommandAPDU(cla: 0x00, ins: 0xC0), .getResponse),
            (CommandAPDU(ins: 0xC0), .sign),
            (CommandAPDU(ins: 0x21, p1: 0x00), .changePIN),
            (CommandAPDU(ins: 0x21, p1: 0x01), .changePUK),
            (CommandAPDU(ins: 0x21, p1: 0x02), .changePairingSecret),
            (CommandAPDU(ins: 0x84), .getChallenge),
            (CommandAPDU(ins: 0x86), .other(cla: 0x80, ins: 0x86)),
        ] as [(CommandAPDU, CardCommand)])
    func cardCommand_fromHeader(_ apdu: CommandAPDU, _ command: CardCommand) {
        #expect(CardCommand(apdu) == command)
    }
}
