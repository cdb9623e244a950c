// A plain answer inside a Secure Channel V2 session (docs/keycard-protocol.md §14.3): the client
// closes the channel and reports the status word the card sent and what it means, never "its MAC
// check failed" — the real 4.0 card once answered a 245-byte GET CHALLENGE plainly, and kcs said
// SW 6982 whatever the card had sent. Only a plain 69 82 is the card closing the session.
import CardProtocol
import Testing
import WalletCrypto

@Suite("Plain answers inside Secure Channel V2")
struct PlainAnswerV2Tests {
    /// A channel open under the base notes' keys whose one exchange, GET CHALLENGE of `length`, gets `answer`.
    func challenge(length: UInt8, answer: [UInt8]) throws -> (SecureChannelV2, CardError?) {
        let keys = try SessionKeysV2(
            hostToCard: Secret(bytes: h("40BD4108C7D45F3F56F32366A30DAAFF")),
            cardToHost: Secret(bytes: h("53C7224472BE9D34108C24F9D26A1F8F")))
        let sealed = try AESCipher.ccmSeal(
            [0x80, 0x84, length, 0x00, 0x00], key: keys.hostToCard,
            nonce: SecureChannelV2.nonce(0), tagLength: 8)
        let transport = ScriptedTransport([
            Exchange(
                label: "GET CHALLENGE", command: [0x80, 0x18, 0x00, 0x00, UInt8(sealed.count)] + sealed,
                response: answer)
        ])
        let channel = SecureChannelV2(wrapping: PlainChannel(transport: transport))
        channel.open(with: keys)
        do {
            _ = try channel.send(CommandAPDU(ins: 0x84, p1: length, p2: 0, data: []))
            return (channel, nil)
        } catch {
            #expect(transport.isFinished)
            return (channel, error)
        }
    }

    @Test("a status word alone, as the real card's 00 01, is named with its meaning")
    func aBareStatusWord_isNamed() throws {
        let (channel, error) = try challenge(length: 245, answer: h("0001"))
        #expect(error == .unprotectedAnswer(command: .getChallenge, sw: 0x0001, dataCount: 0))
        #expect(error?.statusWord == 0x0001)
        #expect(
            error?.description == "GET CHALLENGE: the card answered SW 0001 (the card answered with a status word this "
                + "command does not define) outside the secure channel; nothing of it was accepted and the channel is closed; "
                + "select the card again, open the secure channel and verify the PIN")
        #expect(!channel.isOpen)
    }

    @Test("69 85 outside the session says the card has no session, with the bytes that came with it")
    func noSession_isNamed() throws {
        let (channel, error) = try challenge(length: 16, answer: h("0102 6985"))
        #expect(error == .unprotectedAnswer(command: .getChallenge, sw: 0x6985, dataCount: 2))
        let text = error?.description ?? ""
        #expect(
            text.hasPrefix(
                "GET CHALLENGE: the card answered SW 6985 (conditions not satisfied: the card has no "
                    + "secure-channel session, as after a reset or a SELECT) outside the secure channel with 2 bytes and no tag"
            ), "\(text)")
        #expect(!text.contains("MAC"), "\(text)")
        #expect(!channel.isOpen)
    }

    @Test("90 00 with fewer bytes than a tag cannot be sealed, and says so")
    func shortSuccess_isNamed() throws {
        let (_, error) = try challenge(length: 4, answer: h("01020304 9000"))
        #expect(error == .unprotectedAnswer(command: .getChallenge, sw: 0x9000, dataCount: 4))
        #expect(
            error?.description.contains(
                "SW 9000 (success, but a sealed answer is at least its 8-byte tag and a status word, "
                    + "10 bytes, and this has 4)") == true, "\(error?.description ?? "")")
    }

    @Test("a plain 69 82 is still the card closing the session")
    func securityStatus_isTheCardClosing() throws {
        let (channel, error) = try challenge(length: 8, answer: h("6982"))
        #expect(error == .channelClosed(command: .getChallenge))
        #expect(!channel.isOpen)
    }
}
