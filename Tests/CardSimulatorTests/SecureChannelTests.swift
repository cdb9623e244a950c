// Secure Channel V1 card behaviour (docs/keycard-protocol.md §9): MAC failures, plain answers, the stale-IV
// quirk of §9.9, and what SELECT / de-selection / reset clear.
import CardProtocol
import Testing
import WalletCrypto

@testable import CardSimulator

@Suite("Secure channel: MAC, stale IV, transient state")
struct SecureChannelTests {
    @Test func tamperedMAC_closesChannel_plain6982Then6985() throws {
        let s = TestSession()
        s.ready()
        var tampered = try #require(s.channel)
        var apdu = tampered.wrap(0x80, 0xF2, 0x00, 0x00)
        apdu[7] ^= 0x01
        #expect(s.send(apdu) == [0x69, 0x82])
        #expect(!s.card.applet.isSecureChannelOpen)
        var intact = try #require(s.channel)
        #expect(s.send(intact.wrap(0x80, 0xF2, 0x00, 0x00)) == [0x69, 0x85])
    }

    /// §9.5, measured on applet 3.1.0: a secured command shorter than the MAC gets a wrapped `6F00`
    /// with the current IV, and the channel stays open.
    @Test(arguments: [[UInt8](), [UInt8](repeating: 0, count: 8), [UInt8](repeating: 0, count: 15)])
    func commandShorterThanTheMAC_wrapped6F00_channelStaysOpen(_ data: [UInt8]) throws {
        let s = TestSession()
        s.ready()
        var ch = try #require(s.channel)
        let r = s.send([0x80, 0xF2, 0x00, 0x00] + (data.isEmpty ? [] : [UInt8(data.count)] + data))
        #expect(sw(r) == 0x9000 && r.count == 34, "outer 9000, MAC ‖ one block: \(r)")
        let unwrapped = ch.unwrap(r)
        let inner = try #require(unwrapped, "the answer is wrapped with the card's current IV")
        #expect(inner.data == [] && inner.sw == 0x6F00)
        #expect(s.card.applet.isSecureChannelOpen)
        s.channel = ch
        #expect(s.command(0xF2, 0x00).sw == 0x9000, "the next wrapped command works")
    }

    @Test func tamperedCiphertext_isAMACFailureToo() throws {
        let s = TestSession()
        s.ready()
        var ch = try #require(s.channel)
        var apdu = ch.wrap(0x80, 0x20, 0x00, 0x00, Array("123456".utf8))
        apdu[apdu.count - 1] ^= 0x80
        #expect(s.send(apdu) == [0x69, 0x82])
        #expect(s.card.applet.state.credentials?.pin.remaining == 3, "nothing was processed")
    }

    @Test func reopeningWithoutSelect_keepsPINVerified() {
        let s = TestSession()
        s.ready()
        var ch = s.channel!
        var apdu = ch.wrap(0x80, 0xF2, 0x00, 0x00)
        apdu[6] ^= 0x01
        #expect(s.send(apdu) == [0x69, 0x82])
        s.openChannel()
        #expect(s.loadV7Seed().sw == 0x9000, "§9.11: the PIN authorisation survives a MAC failure")
    }

    /// Sends a wrapped command the card rejects before reading the payload and checks the answer is
    /// encrypted with the previous IV, and that the chain goes on afterwards.
    func expectStaleIV(
        _ s: TestSession, ins: UInt8, p1: UInt8 = 0, p2: UInt8 = 0, data: [UInt8] = [],
        sw expected: UInt16, _ comment: Comment
    ) {
        var ch = s.channel!
        let r = s.send(ch.wrap(0x80, ins, p1, p2, data))
        var probe = ch
        #expect(probe.unwrap(r) == nil, "not decryptable with the command MAC: \(comment)")
        let inner = ch.unwrap(r, decryptIV: ch.previousIV)
        #expect(inner?.sw == expected && inner?.data == [], comment)
        s.channel = ch
        #expect(s.command(0xF2, 0x00).sw == 0x9000, "chain resynchronised after \(comment)")
    }

    @Test func rejectedBeforePayload_answersWithStaleIV() {
        let s = TestSession()
        s.ready()
        expectStaleIV(s, ins: 0x99, sw: 0x6D00, "unknown INS")
        expectStaleIV(s, ins: 0x84, sw: 0x6D00, "INS 84 on 3.1")
        expectStaleIV(s, ins: 0xFE, data: [UInt8](repeating: 0, count: 20), sw: 0x6D00, "INIT when initialized")
        expectStaleIV(s, ins: 0xC0, p1: 0x04, data: [UInt8](repeating: 0, count: 32), sw: 0x6B00, "SIGN option bits")
        expectStaleIV(s, ins: 0x12, data: [UInt8](repeating: 0, count: 32), sw: 0x6985, "PAIR while open")
        expectStaleIV(s, ins: 0xFD, p1: 0xAA, p2: 0x00, sw: 0x6A86, "FACTORY RESET magic")
    }

    @Test func errorsAfterPayload_useTheCommandMAC() {
        let s = TestSession()
        s.ready()
        #expect(s.command(0xF2, 0x07) == ([], 0x6A86))
        #expect(s.command(0x11, data: [UInt8](repeating: 0, count: 32)) == ([], 0x6985), "second MUTUALLY AUTHENTICATE")
        #expect(s.command(0xF2, 0x00).sw == 0x9000)
    }

    @Test func commandsBeforeMutualAuthentication_arePlain6985() throws {
        let s = TestSession()
        s.initialize()
        s.select()
        s.pair()
        let early: [UInt8] = [0x80, 0x11, 0x00, 0x00, 0x30] + [UInt8](repeating: 0, count: 48)
        #expect(s.send(early) == [0x69, 0x85], "MA before OPEN SC")
        let client = PrivateKey.generate(using: SeededRandom(seed: 8))
        let r = s.send([0x80, 0x10, 0x00, 0x00, 0x41] + client.publicKey.uncompressed)
        var ch = TestChannel(
            sharedX: TestCrypto.ecdhX(client, s.card.applet.secureChannelPublicKey),
            pairingKey: s.pairing!.key, salt: Array(r[0..<32]), iv: Array(r[32..<48]))
        var copy = ch
        #expect(s.send(copy.wrap(0x80, 0xF2, 0x00, 0x00)) == [0x69, 0x85])
        // Plain GET DATA works while the channel is not open.
        #expect(s.send([0x80, 0xCA, 0x00, 0x00]) == [0x90, 0x00])
        // MUTUALLY AUTHENTICATE with a wrong length: plain 6982, channel gone.
        #expect(s.send(ch.wrap(0x80, 0x11, 0x00, 0x00, [UInt8](repeating: 0, count: 16))) == [0x69, 0x82])
        #expect(s.send(ch.wrap(0x80, 0x11, 0x00, 0x00, [UInt8](repeating: 0, count: 32))) == [0x69, 0x85])
    }

    @Test func plainCommandsWhileOpen_shorterThanAMACWrapped6F00_otherwiseMACFailures() {
        let s = TestSession()
        s.ready()
        // No data: shorter than the MAC, so a wrapped 6F00 and the channel stays open (§9.5).
        let short = s.send([0x80, 0xCA, 0x00, 0x00])
        #expect(short.count == 34 && sw(short) == 0x9000)
        #expect(s.card.applet.isSecureChannelOpen)
        s.openChannel()
        #expect(s.send([0x80, 0xC0, 0x03, 0x00, 0x20] + [UInt8](repeating: 1, count: 32)) == [0x69, 0x82])
        #expect(!s.card.applet.isSecureChannelOpen)
    }

    @Test func select_clearsChannelPINAndPendingPair() throws {
        let s = TestSession()
        s.ready()
        var ch = try #require(s.channel)
        s.select()
        #expect(s.send(ch.wrap(0x80, 0xF2, 0x00, 0x00)) == [0x69, 0x85])
        s.openChannel()
        #expect(s.command(0xD3).sw == 0x6985, "PIN no longer verified")
        s.select()
        #expect(sw(s.send([0x80, 0x12, 0x00, 0x00, 0x20] + [UInt8](repeating: 1, count: 32))) == 0x9000)
        s.select()
        #expect(s.send([0x80, 0x12, 0x01, 0x00, 0x20] + [UInt8](repeating: 1, count: 32)) == [0x6A, 0x86])
    }

    @Test func selectingUnknownAID_is6A82AndDeselects() {
        let s = TestSession()
        s.ready()
        #expect(s.send([0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10]) == [0x6A, 0x82])
        #expect(s.send([0x80, 0xF2, 0x00, 0x00]) == [0x6D, 0x00])
        #expect(!s.card.applet.isSecureChannelOpen)
        // Partial selection by the package AID finds the Keycard instance.
        #expect(s.send([0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x08, 0x04, 0x00, 0x01]).first == 0xA4)
    }

    @Test func reset_clearsSelectionAndChannel() {
        let s = TestSession()
        s.ready()
        s.card.reset()
        #expect(s.send([0x80, 0xF2, 0x00, 0x00]) == [0x6D, 0x00])
        #expect(!s.card.applet.isSecureChannelOpen)
    }

    @Test func malformedAPDU_is6700() {
        let s = TestSession()
        s.select()
        #expect(s.send([0x80, 0xF2, 0x00]) == [0x67, 0x00])
        #expect(s.send([0x80, 0xF2, 0x00, 0x00, 0x05, 0x01]) == [0x67, 0x00])
        #expect(s.send([0x80, 0xF2, 0x00, 0x00, 0x00, 0x01, 0x02]) == [0x67, 0x00])
    }

    @Test func badlyPaddedCiphertextWithValidMAC_is6F05WithCommandMAC() throws {
        let s = TestSession()
        s.ready()
        var ch = try #require(s.channel)
        // Encrypt a block without method-2 padding and MAC it correctly.
        let c = try AESCipher.cbcEncrypt([UInt8](repeating: 0x41, count: 16), key: Secret(bytes: ch.encKey), iv: ch.iv)
        let header: [UInt8] = [0x80, 0xF2, 0x00, 0x00, 0x20]
        let m = TestCrypto.mac(header + [UInt8](repeating: 0, count: 11) + c, key: ch.macKey)
        ch.previousIV = ch.iv
        ch.iv = m
        let inner = ch.unwrap(s.send(header + m + c))
        #expect(inner?.sw == 0x6F05 && inner?.data == [])
        s.channel = ch
        #expect(s.command(0xF2, 0x00).sw == 0x9000)
    }
}
