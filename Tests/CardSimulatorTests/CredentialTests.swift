// INIT, PINs and PUK, pairing slots, FACTORY RESET (docs/keycard-protocol.md §7, §8, §10.1–§10.4, §10.13).
import CardProtocol
import Testing
import WalletCrypto

@testable import CardSimulator

@Suite("Credentials: INIT, PIN, PUK, pairing, factory reset")
struct CredentialTests {
    // MARK: INIT (§7.2)

    @Test func preInitialized_onlyInitAndIdentifyAreProcessed() {
        let s = TestSession()
        let select = s.select()
        #expect(select == [0x80, 0x41] + s.card.applet.secureChannelPublicKey + [0x90, 0x00])
        #expect(s.send([0x80, 0x12, 0x00, 0x00, 0x20] + [UInt8](repeating: 0, count: 32)) == [0x6D, 0x00])
        #expect(s.send([0x80, 0xF2, 0x00, 0x00]) == [0x6D, 0x00])
        #expect(s.send([0x80, 0xFD, 0xAA, 0x55]) == [0x6D, 0x00])
        #expect(s.send([0x80, 0x14, 0x00, 0x00, 0x20] + [UInt8](repeating: 0, count: 32)) == [0x69, 0x85])
    }

    @Test func initialize_success_generatesNewChannelKey() {
        let s = TestSession()
        s.select()
        let before = s.card.applet.secureChannelPublicKey
        #expect(s.send(s.initAPDU(TestSession.payload())) == [0x90, 0x00])
        #expect(s.card.applet.secureChannelPublicKey != before)
        let select = body(s.select())
        #expect(Array(select[0..<4]) == [0xA4, 0x61, 0x8F, 0x10])
        #expect(Array(select[20..<87]) == [0x80, 0x41] + s.card.applet.secureChannelPublicKey)
        #expect(Array(select[87...]) == [0x02, 0x02, 0x03, 0x01, 0x02, 0x01, 0x05, 0x8E, 0x00, 0x8D, 0x01, 0x1F])
        // INIT on an initialized card is an unknown INS.
        #expect(s.send(s.initAPDU(TestSession.payload())) == [0x6D, 0x00])
    }

    @Test(arguments: [
        ("PIN with a letter", TestSession.payload(pin: "12345a")),
        ("PUK with a letter", TestSession.payload(puk: "11111111111x")),
        ("51-byte payload", TestSession.payload() + [3]),
        ("PIN tries 1", TestSession.payload(tries: (1, 5))),
        ("PIN tries 11", TestSession.payload(tries: (11, 5))),
        ("PUK tries 2", TestSession.payload(tries: (3, 2))),
        ("PUK tries 13", TestSession.payload(tries: (3, 13))),
        ("PIN tries 0x83", TestSession.payload(tries: (0x83, 5))),
    ])
    func initialize_badPayload_is6A80AndStaysPreInitialized(_ name: String, _ payload: [UInt8]) {
        let s = TestSession()
        s.select()
        #expect(s.send(s.initAPDU(payload)) == [0x6A, 0x80], "\(name)")
        #expect(!s.card.applet.isInitialized)
        #expect(s.select().first == 0x80)
    }

    @Test func initialize_badPointOrCiphertext_is6A80Or6F00() {
        let s = TestSession()
        s.select()
        var apdu = s.initAPDU(TestSession.payload())
        apdu[7] ^= 0x01  // X of the client key: almost surely not on the curve any more
        #expect(s.send(apdu) == [0x6A, 0x80], "bad point")
        // A ciphertext that does not decrypt to method-2 padding.
        let client = PrivateKey.generate(using: SeededRandom(seed: 3))
        let iv = [UInt8](repeating: 9, count: 16)
        let shared = TestCrypto.ecdhX(client, s.card.applet.secureChannelPublicKey)
        let noPadding = try! AESCipher.cbcEncrypt(
            TestSession.payload() + [UInt8](repeating: 1, count: 14),
            key: Secret(bytes: shared), iv: iv)
        let data = [0x41] + client.publicKey.uncompressed + iv + noPadding
        #expect(s.send([0x80, 0xFE, 0x00, 0x00, UInt8(data.count)] + data) == [0x6F, 0x00], "padding")
        let unaligned = Array(data.dropLast())
        #expect(s.send([0x80, 0xFE, 0x00, 0x00, UInt8(unaligned.count)] + unaligned) == [0x6F, 0x00], "unaligned")
        #expect(!s.card.applet.isInitialized)
    }

    @Test func initialize_retryLimits_areReportedByGetStatus() {
        let s = TestSession()
        #expect(s.initialize(tries: (10, 12)) == 0x9000)
        s.ready()
        #expect(s.command(0xF2, 0x00).data == [0xA3, 0x09, 0x02, 0x01, 10, 0x02, 0x01, 12, 0x01, 0x01, 0x00])
    }

    @Test func initialize_defaultDuressPIN_isFirstSixPUKDigits() {
        let s = TestSession()
        s.ready(pin: "123456", puk: "654321000000")
        s.loadV7Seed()
        #expect(s.command(0x20, data: Array("654321".utf8)).sw == 0x9000)
        #expect(
            s.export(Vectors162.m44_60_0_0_0, p2: 0x01).data
                == [0xA1, 0x43, 0x80, 0x41] + Vectors162.duressM44_60_0_0_0_public)
    }

    // MARK: VERIFY PIN (§10.2)

    @Test func verifyPIN_wrongThreeTimes_countsDownAndBlocks() {
        let s = TestSession()
        s.initialize()
        s.select()
        s.pair()
        s.openChannel()
        let wrong = Array("000000".utf8)
        #expect(s.command(0x20, data: wrong).sw == 0x63C2)
        #expect(s.command(0x20, data: Array("12345".utf8)).sw == 0x6A80, "format error does not count")
        #expect(s.command(0x20, data: Array("12345a".utf8)).sw == 0x6A80)
        #expect(s.command(0x20, data: wrong).sw == 0x63C1)
        #expect(s.command(0x20, data: wrong).sw == 0x63C0)
        #expect(s.command(0x20, data: Array("123456".utf8)).sw == 0x63C0, "blocked even with the right PIN")
        #expect(s.command(0xF2, 0x00).data == [0xA3, 0x09, 0x02, 0x01, 0x00, 0x02, 0x01, 0x05, 0x01, 0x01, 0x00])
        #expect(s.command(0xD3).sw == 0x6985)
    }

    @Test func verifyPIN_rightAfterWrong_resetsTheCounter() {
        let s = TestSession()
        s.ready()
        #expect(s.command(0x20, data: Array("000000".utf8)).sw == 0x63C2)
        #expect(s.command(0xD3).sw == 0x6985, "a failed VERIFY clears the verified flag")
        #expect(s.command(0x20, data: Array("123456".utf8)).sw == 0x9000)
        #expect(s.command(0xF2, 0x00).data[4] == 3)
    }

    @Test func verifyPIN_triesArePersistentAcrossSelect() {
        let s = TestSession()
        s.initialize()
        s.select()
        s.pair()
        s.openChannel()
        #expect(s.command(0x20, data: Array("000000".utf8)).sw == 0x63C2)
        s.select()
        s.openChannel()
        #expect(s.command(0x20, data: Array("000000".utf8)).sw == 0x63C1)
    }

    // MARK: UNBLOCK PIN (§10.4)

    @Test func unblockPIN_withPUK_setsAndVerifiesNewPIN() {
        let s = TestSession()
        s.initialize(puk: "222222222222")
        s.select()
        s.pair()
        s.openChannel()
        #expect(s.command(0x22, data: Array("222222222222999999".utf8)).sw == 0x6985, "PIN not blocked")
        for _ in 0..<3 { s.command(0x20, data: Array("000000".utf8)) }
        #expect(s.command(0x22, data: Array("333333333333999999".utf8)).sw == 0x63C4)
        #expect(s.command(0x22, data: Array("22222222222299999".utf8)).sw == 0x6A80, "format error does not count")
        #expect(s.command(0xF2, 0x00).data == [0xA3, 0x09, 0x02, 0x01, 0x00, 0x02, 0x01, 0x04, 0x01, 0x01, 0x00])
        #expect(s.command(0x22, data: Array("222222222222999999".utf8)).sw == 0x9000)
        #expect(s.command(0xF2, 0x00).data == [0xA3, 0x09, 0x02, 0x01, 0x03, 0x02, 0x01, 0x05, 0x01, 0x01, 0x00])
        #expect(s.loadV7Seed().sw == 0x9000, "the new PIN is verified")
        s.select()
        s.openChannel()
        #expect(s.command(0x20, data: Array("123456".utf8)).sw == 0x63C2)
        #expect(s.command(0x20, data: Array("999999".utf8)).sw == 0x9000)
    }

    @Test func unblockPIN_wrongPUKFiveTimes_blocksPUKForever() {
        let s = TestSession()
        s.initialize(puk: "222222222222")
        s.select()
        s.pair()
        s.openChannel()
        for _ in 0..<3 { s.command(0x20, data: Array("000000".utf8)) }
        let wrong = Array("333333333333999999".utf8)
        #expect((0..<5).map { _ in s.command(0x22, data: wrong).sw } == [0x63C4, 0x63C3, 0x63C2, 0x63C1, 0x63C0])
        #expect(s.command(0x22, data: Array("222222222222999999".utf8)).sw == 0x63C0)
    }

    // MARK: CHANGE PIN (§10.3)

    @Test func changePIN_pinPukAndPairingSecret() {
        let s = TestSession()
        s.initialize()
        s.select()
        s.pair()
        s.openChannel()
        #expect(s.command(0x21, 0x00, data: Array("777777".utf8)).sw == 0x6985, "PIN first")
        #expect(s.command(0x20, data: Array("123456".utf8)).sw == 0x9000)
        #expect(s.command(0x21, 0x00, data: Array("77777".utf8)).sw == 0x6A80)
        #expect(s.command(0x21, 0x00, data: Array("777777".utf8)).sw == 0x9000)
        #expect(s.command(0xD3).sw == 0x9000, "still verified")
        #expect(s.command(0x21, 0x01, data: Array("12345678901".utf8)).sw == 0x6A80)
        #expect(s.command(0x21, 0x01, data: Array("123456789012".utf8)).sw == 0x9000)
        #expect(s.command(0x21, 0x02, data: [UInt8](repeating: 1, count: 31)).sw == 0x6A80)
        let newSecret = [UInt8](repeating: 0x42, count: 32)
        #expect(s.command(0x21, 0x02, data: newSecret).sw == 0x9000)
        #expect(s.command(0x21, 0x03, data: newSecret).sw == 0x6A86)
        // The old pairing still works; a new PAIR needs the new secret.
        s.select()
        s.openChannel()
        #expect(s.command(0x20, data: Array("777777".utf8)).sw == 0x9000)
        s.select()
        let challenge = [UInt8](repeating: 5, count: 32)
        let r1 = s.send([0x80, 0x12, 0x00, 0x00, 0x20] + challenge)
        #expect(Array(r1[0..<32]) == Hash.sha256(newSecret + challenge))
        let oldCryptogram = Hash.sha256(TestSession.pairingSecret + r1[32..<64])
        #expect(s.send([0x80, 0x12, 0x01, 0x00, 0x20] + oldCryptogram) == [0x69, 0x82])
        #expect(sw(s.pair(secret: newSecret)) == 0x9000)
    }

    // MARK: PAIR / UNPAIR (§8)

    @Test func pair_sixthPairingOn310_is6A84() {
        let s = TestSession()
        s.initialize()
        s.select()
        for index in 0..<5 {
            let r = s.pair()
            #expect(sw(r) == 0x9000 && r[0] == UInt8(index))
        }
        #expect(body(s.select())[93] == 0, "no free slot in SELECT")
        #expect(s.send([0x80, 0x12, 0x00, 0x00, 0x20] + [UInt8](repeating: 1, count: 32)) == [0x6A, 0x84])
    }

    @Test func unpair_freesTheSlot_andPairTakesTheLowestFree() {
        let s = TestSession()
        s.initialize()
        s.select()
        for _ in 0..<5 { s.pair() }
        s.openChannel()
        #expect(s.command(0x13, 0x02).sw == 0x6985, "PIN first")
        #expect(s.command(0x20, data: Array("123456".utf8)).sw == 0x9000)
        #expect(s.command(0x13, 0x02).sw == 0x9000)
        #expect(s.command(0x13, 0x02).sw == 0x9000, "a free slot is a no-op")
        #expect(s.command(0x13, 0x05).sw == 0x6A86)
        #expect(s.command(0x13, 0x80).sw == 0x6F00, "negative index, wrapped")
        #expect(body(s.select())[93] == 1)
        #expect(s.pair().first == 2)
    }

    @Test func openSecureChannel_badIndexes() {
        let s = TestSession()
        s.initialize()
        s.select()
        s.pair()
        let key = PrivateKey.generate(using: SeededRandom(seed: 4)).publicKey.uncompressed
        #expect(s.send([0x80, 0x10, 0x01, 0x00, 0x41] + key) == [0x6A, 0x86], "free slot")
        #expect(s.send([0x80, 0x10, 0x05, 0x00, 0x41] + key) == [0x6A, 0x86], "beyond the table")
        #expect(s.send([0x80, 0x10, 0x80, 0x00, 0x41] + key) == [0x6F, 0x00], "negative index")
        #expect(s.send([0x80, 0x10, 0x00, 0x00, 0x41] + [0x04] + [UInt8](repeating: 1, count: 64)) == [0x6A, 0x80])
    }

    @Test func pair_checkOrder_andWrongCryptogramCancelsStep1() {
        let s = TestSession()
        s.initialize()
        s.select()
        #expect(s.send([0x80, 0x12, 0x00, 0x00, 0x1F] + [UInt8](repeating: 1, count: 31)) == [0x6A, 0x80])
        #expect(s.send([0x80, 0x12, 0x02, 0x00, 0x20] + [UInt8](repeating: 1, count: 32)) == [0x6A, 0x86])
        #expect(
            s.send([0x80, 0x12, 0x01, 0x00, 0x20] + [UInt8](repeating: 1, count: 32)) == [0x6A, 0x86], "no step 1")
        #expect(sw(s.send([0x80, 0x12, 0x00, 0x00, 0x20] + [UInt8](repeating: 1, count: 32))) == 0x9000)
        #expect(s.send([0x80, 0x12, 0x01, 0x00, 0x20] + [UInt8](repeating: 1, count: 32)) == [0x69, 0x82])
        #expect(s.send([0x80, 0x12, 0x01, 0x00, 0x20] + [UInt8](repeating: 1, count: 32)) == [0x6A, 0x86])
        #expect(s.card.applet.freePairingSlots == 5)
    }

    @Test func profile312_hasHundredSlots() {
        let s = TestSession(profile: .v3_1_2)
        s.initialize()
        #expect(body(s.select())[93] == 100)
        #expect(AppletProfile.named("3.1.1")?.pairingSlots == 100)
        #expect(AppletProfile.named("3.1.0") == .v3_1_0)
    }

    // MARK: FACTORY RESET (§10.13)

    @Test func factoryReset_withChannelOpen_answersPlain9000AndReturnsToPreInit() {
        let s = TestSession()
        s.ready()
        s.loadV7Seed()
        #expect(s.command(0xE2, 0x00, data: [1, 2, 3]).sw == 0x9000)
        #expect(s.command(0xE2, 0x01, data: [0, 1, 0xD0]).sw == 0x9000)
        let uid = s.card.applet.instanceUID
        let channelKey = s.card.applet.secureChannelPublicKey
        #expect(s.send([0x80, 0xFD, 0xAA, 0x55]) == [0x90, 0x00])
        #expect(!s.card.applet.isInitialized && !s.card.applet.hasKey)
        #expect(s.card.applet.instanceUID != uid)
        #expect(s.card.applet.secureChannelPublicKey != channelKey)
        #expect(s.card.applet.freePairingSlots == 5)
        #expect(s.send([0x80, 0xFD, 0xAA, 0x55]) == [0x6D, 0x00])
        #expect(s.select() == [0x80, 0x41] + s.card.applet.secureChannelPublicKey + [0x90, 0x00])
        #expect(s.card.applet.state.publicData == [] && s.card.applet.state.ndefData == [0, 1, 0xD0])
        s.pairing = nil
        s.ready()
        #expect(s.command(0xCA, 0x00).data == [])
    }

    @Test func factoryReset_wrongMagic_is6A86() {
        let s = TestSession()
        s.initialize()
        s.select()
        #expect(s.send([0x80, 0xFD, 0xAA, 0x54]) == [0x6A, 0x86])
        #expect(s.card.applet.isInitialized)
    }
}
