// Secure Channel V1 (docs/keycard-protocol.md §9) against published vectors: §16.1 V1–V4 (keycard-go
// crypto/crypto_test.go and secure_channel_test.go) and the same cases in keycard.json
// (the `_sources` of Vectors/keycard.json). Then the channel's behaviour with a
// card double: MAC tampering, plain answers while open, the stale IV of §9.9.
import CardProtocol
import KCSTestSupport
import Testing
import WalletCrypto

private let keycard = Vectors.json("keycard.json")

@Suite("Secure Channel V1: vectors")
struct SecureChannelVectorTests {
    @Test("V1 (keycard-go TestDeriveSessionKeys): SHA-512(shared ‖ pairing key ‖ salt) splits into enc and MAC keys")
    func deriveSessionKeys_v1_matchesKeycardGo() throws {
        let keys = try SessionKeys.derive(
            sharedSecret: Secret(bytes: h("B410E816DA313545151807E25A830201FA389913A977066AB0C6DE0E8631E400")),
            pairingKey: Secret(bytes: h("544FF0B9B0737E4BFC4ECDFCE09F522B837051BBE4FFCEC494FA420D8525670E")),
            cardResponse: h(
                "1D7C033E75E10EC578AB538F69F1B02538571BA3831441F1649E3F24B5B3E3E71D7BC2D6A3D02FC8CB2FBB3FD8711BB5"))
        #expect(
            keys.encryptionKey == Secret(bytes: h("4FF496554C01BAE0A52323E3481B448C99D43982118D95C6918FE0354D224B90")))
        #expect(keys.macKey == Secret(bytes: h("185811013138EA1B4FFDBBFA7343EF2DBE3E54C2C231885E867F792448AC2FE5")))
        #expect(keys.iv == h("1D7BC2D6A3D02FC8CB2FBB3FD8711BB5"))
        #expect("\(keys)" == "<secure-channel session keys>")
    }

    @Test("keycard.json session_keys: same derivation from the JSON row")
    func deriveSessionKeys_jsonVector_matches() throws {
        let v = keycard.object("session_keys")
        let keys = try SessionKeys.derive(
            sharedSecret: Secret(bytes: h(v.string("secret"))),
            pairingKey: Secret(bytes: h(v.string("pairing_key"))),
            cardResponse: h(v.string("card_data")))
        #expect(keys.encryptionKey == Secret(bytes: h(v.string("expected_enc_key"))))
        #expect(keys.macKey == Secret(bytes: h(v.string("expected_mac_key"))))
        #expect(keys.iv == h(v.string("expected_iv")))
    }

    @Test("session keys refuse an OPEN SECURE CHANNEL answer that is not 48 bytes")
    func deriveSessionKeys_47Bytes_malformed() {
        let error = caught { () throws(CardError) in
            _ = try SessionKeys.derive(
                sharedSecret: Secret(bytes: [UInt8](repeating: 1, count: 32)),
                pairingKey: Secret(bytes: [UInt8](repeating: 2, count: 32)),
                cardResponse: [UInt8](repeating: 0, count: 47))
        }
        #expect(error?.id == "card.malformedResponse")
        #expect(
            error?.description
                == "OPEN SECURE CHANNEL: the card's response is malformed: expected salt (32) ‖ IV (16) = 48 bytes, got 47"
        )
    }

    @Test("V2 (keycard-go TestEncryptData): AES-256-CBC over M2 padding, 32 bytes grow to 48")
    func encrypt_v2_matches() throws {
        let out = try SecureChannel.encrypt(
            h("A8A686D0E3290459BCB36088A8FD04A76BF13283BE4B1EAE2E1248EF609F94DC"),
            key: Secret(bytes: h("44D689AB4B18206F7EEE5439FB9A71A8A617406BA5259728D1EBC2786D24896C")),
            iv: h("9D3EF41EF1D221DD98A54AD5470F58F2"))
        #expect(
            out == h("FFB41FED5F71A2B57A6AE62D5D5ECD1C12616F6464637DD0A7A930920ACBA55867A7E12CC4F06B089AF34FF4ED4BAB08")
        )
    }

    @Test("keycard.json encrypt row")
    func encrypt_jsonVector_matches() throws {
        let v = keycard.object("encrypt")
        let out = try SecureChannel.encrypt(
            h(v.string("data")), key: Secret(bytes: h(v.string("enc_key"))), iv: h(v.string("iv")))
        #expect(out.hex == normHex(v.string("expected")))
    }

    @Test("V3 (keycard-go TestDecryptData): decrypts and unpads to data ‖ 9000")
    func decrypt_v3_matches() throws {
        let out = try SecureChannel.decrypt(
            h("73B58B66372E3446E14A9F54BA59666DB432E9DD87D24F9B0525180EE52DA2106E0C70EED7CD42B5B313E4443D6AC90D"),
            key: Secret(bytes: h("D93D8E6164196D5C5B5F84F10E4B90D98F8D282ED145513ED666AA55C9871E79")),
            iv: h("F959B1220333046D3C47D61B1E1B891B"))
        #expect(out == h("2E21F9F2B2C2CC9038D518A5C6B490613E7955BD19D19108B77786986B7ABFE69000"))
    }

    @Test("keycard.json decrypt row")
    func decrypt_jsonVector_matches() throws {
        let v = keycard.object("decrypt")
        let out = try SecureChannel.decrypt(
            h(v.string("enc_data")), key: Secret(bytes: h(v.string("enc_key"))), iv: h(v.string("iv")))
        #expect(out?.hex == normHex(v.string("expected")))
    }

    @Test("keycard.json remove_padding rows", arguments: keycard.objects("remove_padding"))
    func unpad_jsonRows_stripZerosThen80(_ row: JSON) {
        let out = SecureChannel.unpad(h(row.string("padded")), blockSize: row.int("block_size"))
        #expect(out?.hex == normHex(row.string("unpadded")))
    }

    @Test(
        "padding: always adds 80, a full block for aligned input; unpad refuses a missing 80",
        arguments: [
            ([UInt8](), "80000000000000000000000000000000"),
            ([0x01], "01800000000000000000000000000000"),
            (
                [UInt8](repeating: 0xAB, count: 16),
                String(repeating: "ab", count: 16) + "80" + String(repeating: "00", count: 15)
            ),
        ])
    func pad_roundTrip(_ input: [UInt8], _ padded: String) {
        #expect(SecureChannel.pad(input).hex == padded)
        #expect(SecureChannel.unpad(SecureChannel.pad(input)) == input)
    }

    @Test(
        "unpad: no 80 marker, or padding longer than a block, is invalid",
        arguments: [
            "00000000000000000000000000000000", "0102030405060708090a0b0c0d0e0f10",
            "80" + String(repeating: "00", count: 31),
        ])
    func unpad_invalid_nil(_ padded: String) {
        #expect(SecureChannel.unpad(h(padded)) == nil)
    }

    @Test("V4 (keycard-go TestSecureChannel_Send): wrapping MUTUALLY AUTHENTICATE gives MAC ‖ ciphertext, Lc 40")
    func wrap_v4_matchesBytesAndNewIV() throws {
        let channel = SecureChannel(wrapping: PlainChannel(transport: ScriptedTransport([])))
        channel.open(
            with: try SessionKeys(
                encryptionKey: Secret(bytes: h("FDBCB1637597CF3F8F5E8263007D4E45F64C12D44066D4576EB1443D60AEF441")),
                macKey: Secret(bytes: h("2FB70219E6635EE0958AB3F7A428BA87E8CD6E6F873A5725A55F25B102D0F1F7")),
                iv: h("627E64358FA9BDCDAD4442BD8006E0A5")))
        let wrapped = try channel.wrap(
            CommandAPDU(ins: 0x11, data: h("D545A5E95963B6BCED86A6AE826D34C5E06AC64A1217EFFA1415A96674A82500")))
        #expect(
            try wrapped.encoded() == h("8011000040")
                + h(
                    "BA796BF8FAD1FD50407B87127B94F5023EF8903AE926EAD8A204F961B8A0EDAEE7CCCFE7F7F6380CE2C6F188E598E4468B7DEDD0E807C18CCBDA71A55F3E1F9A"
                ))
        #expect(channel.currentIV == h("BA796BF8FAD1FD50407B87127B94F502"))
    }

    @Test("keycard.json secure_channel_wrap row")
    func wrap_jsonVector_matches() throws {
        let v = keycard.object("secure_channel_wrap")
        let header = v.object("apdu_header")
        let channel = SecureChannel(wrapping: PlainChannel(transport: ScriptedTransport([])))
        channel.open(
            with: try SessionKeys(
                encryptionKey: Secret(bytes: h(v.string("enc_key"))),
                macKey: Secret(bytes: h(v.string("mac_key"))), iv: h(v.string("iv"))))
        let wrapped = try channel.wrap(
            CommandAPDU(
                cla: h(header.string("cla"))[0], ins: h(header.string("ins"))[0],
                p1: h(header.string("p1"))[0], p2: h(header.string("p2"))[0],
                data: h(v.string("plain_data"))))
        #expect(wrapped.data.hex == normHex(v.string("expected_apdu_data")))
        #expect(channel.currentIV.hex == normHex(v.string("expected_new_iv")))
    }
}

@Suite("Secure Channel V1: behaviour")
struct SecureChannelBehaviourTests {
    /// A command set whose channel is open with the fixed keys, talking to `card` through `faults`.
    private func openCommandSet(
        _ card: MiniSecureCard, faults: [FaultInjectingTransport.Fault] = []
    )
        -> (KeycardCommandSet, FaultInjectingTransport)
    {
        let transport = FaultInjectingTransport(wrapping: card, faults: faults)
        let commands = KeycardCommandSet(transport: transport, random: SeededRandom(seed: 1))
        commands.secureChannel.open(with: card.keys)
        return (commands, transport)
    }

    @Test("a round trip decrypts the inner status word and chains the IV to the response MAC")
    func send_roundTrip_returnsInnerSWAndChains() throws {
        let card = MiniSecureCard(keys: fixedSessionKeys())
        card.reply = { _ in h("A3090201030201050101FF9000") }
        let (commands, _) = openCommandSet(card)
        let status = try commands.getStatus()
        #expect(status == ApplicationStatus(pinRetries: 3, pukRetries: 5, keyInitialized: true))
        #expect(card.received.map(\.ins) == [0xF2])
        // A second command uses the chained IV; the card double decrypts it only if it matches.
        card.reply = { _ in h("63C1") }
        #expect(caught { () throws(CardError) in try commands.verifyPIN(ascii("000000")) } == .wrongPIN(triesLeft: 1))
        #expect(card.received.last?.data == Array("000000".utf8))
    }

    @Test("a flipped byte in the response MAC is refused and the channel closes")
    func send_tamperedResponseMAC_closesChannel() {
        let card = MiniSecureCard(keys: fixedSessionKeys())
        let (commands, _) = openCommandSet(card, faults: [.flipResponseByte(apdu: 1, byteIndex: 3)])
        let error = caught { () throws(CardError) in _ = try commands.getStatus() }
        #expect(error == .responseMACMismatch(command: .getStatus))
        #expect(
            error?.description == "GET STATUS: the card's response failed the secure-channel MAC check, so it was "
                + "not accepted and the channel is closed; select the card again, open the secure channel and verify the PIN"
        )
        #expect(!commands.secureChannel.isOpen)
        // Nothing more goes out protected until the channel is opened again.
        #expect(
            caught { () throws(CardError) in try commands.verifyPIN(ascii("123456")) }
                == .secureChannelNotOpen(command: .verifyPIN))
    }

    @Test("a flipped ciphertext byte fails the MAC as well (the MAC covers the ciphertext)")
    func send_tamperedCiphertext_macMismatch() {
        let card = MiniSecureCard(keys: fixedSessionKeys())
        let (commands, _) = openCommandSet(card, faults: [.flipResponseByte(apdu: 1, byteIndex: 20, mask: 0x80)])
        #expect(
            caught { () throws(CardError) in _ = try commands.getStatus() } == .responseMACMismatch(command: .getStatus)
        )
        #expect(!commands.secureChannel.isOpen)
    }

    @Test("plain 69 82 while open: the card closed its channel; ours closes too")
    func send_plain6982_channelClosed() {
        let transport = ConstantTransport(h("6982"))
        let commands = KeycardCommandSet(transport: transport, random: SeededRandom(seed: 1))
        commands.secureChannel.open(with: fixedSessionKeys())
        let error = caught { () throws(CardError) in try commands.verifyPIN(ascii("123456")) }
        #expect(error == .channelClosed(command: .verifyPIN))
        #expect(
            error?.description == "VERIFY PIN: the card closed the secure channel (SW 6982, its MAC check failed); "
                + "select the card again, open the secure channel and verify the PIN")
        #expect(!commands.secureChannel.isOpen)
        #expect(transport.sent.count == 1)
        #expect(transport.sent[0].prefix(5) == [0x80, 0x20, 0x00, 0x00, 0x20])
    }

    @Test("plain 69 85 while open is passed through as the command's error; the channel stays open")
    func send_plain6985_conditionsNotSatisfied() throws {
        let plain = PlainChannel(transport: ConstantTransport(h("6985")))
        let channel = SecureChannel(wrapping: plain)
        channel.open(with: fixedSessionKeys())
        let response = try channel.send(CommandAPDU(ins: 0xF2))
        #expect(response == ResponseAPDU(sw: 0x6985))
        #expect(channel.isOpen)
        #expect(CardError.from(sw: response.sw, command: .getStatus) == .conditionsNotSatisfied(command: .getStatus))
    }

    @Test("§9.9 stale IV: an error answer encrypted with the previous IV still decrypts")
    func send_staleIVAnswer_decryptsWithPreviousIV() throws {
        let card = MiniSecureCard(keys: fixedSessionKeys())
        card.staleIV = true
        card.reply = { _ in h("6D00") }
        let (commands, _) = openCommandSet(card)
        let response = try commands.transmit(CommandAPDU(ins: 0x84, p1: 0x20), route: .secure)
        #expect(response.sw == 0x6D00)
        #expect(response.data.isEmpty)
        // The chain re-synchronises: the next (normal) answer decrypts with the command MAC.
        card.staleIV = false
        card.reply = { _ in h("A3090201020201050101009000") }
        #expect(try commands.getStatus() == ApplicationStatus(pinRetries: 2, pukRetries: 5, keyInitialized: false))
    }

    @Test("MUTUALLY AUTHENTICATE: a correctly MAC'd answer of 16 bytes instead of 32 is refused; channel closed")
    func mutuallyAuthenticate_shortAnswer_refused() {
        let card = MiniSecureCard(keys: fixedSessionKeys())
        card.reply = { _ in [UInt8](repeating: 0x1F, count: 16) + [0x90, 0x00] }
        let (commands, _) = openCommandSet(card)
        let error = caught { () throws(CardError) in try commands.mutuallyAuthenticate() }
        #expect(
            error
                == .malformedResponse(
                    command: .mutuallyAuthenticate, detail: "the card answered 16 bytes instead of 32"))
        #expect(card.received.first?.data.count == 32)
        #expect(!commands.secureChannel.isOpen)
        #expect(!commands.isSecureChannelOpen)
    }

    @Test("MUTUALLY AUTHENTICATE answered plain 69 82: the pairing key does not match; channel closed")
    func mutuallyAuthenticate_plain6982_channelClosed() {
        let commands = KeycardCommandSet(transport: ConstantTransport(h("6982")), random: SeededRandom(seed: 1))
        commands.secureChannel.open(with: fixedSessionKeys())
        #expect(
            caught { () throws(CardError) in try commands.mutuallyAuthenticate() }
                == .channelClosed(command: .mutuallyAuthenticate))
        #expect(!commands.secureChannel.isOpen)
    }

    @Test("commands over 223 bytes are refused before anything is sent")
    func wrap_224Bytes_invalidInput() {
        let channel = SecureChannel(wrapping: PlainChannel(transport: ScriptedTransport([])))
        channel.open(with: fixedSessionKeys())
        let error = caught { () throws(CardError) in
            _ = try channel.wrap(CommandAPDU(ins: 0xE2, data: [UInt8](repeating: 0, count: 224)))
        }
        #expect(
            error
                == .invalidInput(
                    command: .storeData, reason: "the data is 224 bytes; at most 223 fit in a secure-channel command"))
        #expect(channel.currentIV == fixedSessionKeys().iv)
    }

    @Test("FACTORY RESET's plain 90 00 is accepted while open and closes the channel")
    func factoryReset_plainAnswer_closesChannel() throws {
        let commands = KeycardCommandSet(transport: ConstantTransport(h("9000")), random: SeededRandom(seed: 1))
        commands.secureChannel.open(with: fixedSessionKeys())
        try commands.factoryReset()
        #expect(!commands.secureChannel.isOpen)
        #expect(commands.applicationInfo == nil)
    }
}

/// Answers every command with the same bytes and records what was sent.
final class ConstantTransport: CardTransport {
    let answer: [UInt8]
    private(set) var sent: [[UInt8]] = []
    init(_ answer: [UInt8]) { self.answer = answer }
    func transmit(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        sent.append(command)
        return answer
    }
}
