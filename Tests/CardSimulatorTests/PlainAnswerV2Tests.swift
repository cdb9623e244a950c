// A simulated 4.0 card that lost its session under the client (a SELECT sent by someone else):
// the card answers the next secured command plainly, 69 85 (docs/keycard-protocol.md §14.3), and
// the kcs client reports that status word and its meaning, not a MAC failure.
import CardProtocol
import KCSTestSupport
import Testing
import WalletCrypto

@testable import CardSimulator

@Suite("A 4.0 card without a session answers plainly")
struct PlainAnswerV2SimulatorTests {
    @Test func aSessionLostUnderTheClient_isReportedAsTheCardsNoSessionAnswer() throws {
        let card = SimulatedCard(profile: .v4_0)
        let client = try loggedIn(card, clientSeed: 11)
        #expect(try client.getChallenge(length: 245).count == 245, "the card answers 245 bytes sealed")
        // Another SELECT ends the card's session; the client does not know.
        let select = [0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.keycardInstance
        #expect(Array(try card.transmit(select).suffix(2)) == [0x90, 0x00])
        do {
            _ = try client.getChallenge(length: 245)
            Issue.record("a plain answer was accepted")
        } catch {
            #expect(error == .unprotectedAnswer(command: .getChallenge, sw: 0x6985, dataCount: 0))
            #expect(
                error.description.hasPrefix(
                    "GET CHALLENGE: the card answered SW 6985 (conditions not satisfied: the card "
                        + "has no secure-channel session"), "\(error.description)")
        }
        #expect(!client.isSecureChannelOpen)
    }
}
