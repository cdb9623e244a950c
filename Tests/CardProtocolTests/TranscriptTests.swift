// The whole SC V1 session transcript of docs/keycard-protocol.md §16.2 ("computed for this project",
// applet 3.1, PIN 123456, PUK 123456789012, pairing password KeycardDefaultPairing) replayed
// against the client: every command the client builds must equal the transcript byte for
// byte, given the transcript's random inputs; every answer is the transcript's.
import CardProtocol
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

/// §16.2 rows, by name.
enum Transcript {
    static let cardPreInitPublic =
        "04D338301AE1B93C24BD4E6BACBB378079777973235F6920B9B993E7068EA0C40436E14F016B37824E6795E0D8BC487AF8FB1222A036E67837460CC83416EA8FBA"
    static let cardPostInitPublic =
        "04595929FE839A0CC2EAF199DEC2E3829593ED1E66A3987AE99CEDF1A91CCF1238475319416A99145CACC200332D5E151FFC1F0D163A1CE0C212F753F7A642EC14"
    static let pairingToken = "675DEABB0D7C724B4A36CAAD0E280826159E89886F7082535D431E924848BCF1"
    static let selectPreInit = "8041" + cardPreInitPublic
    static let initEphemeralPrivate = "D41911244D3F6ACAE2D55F832207F835892B14479E769B54E3E49B01286E1F74"
    static let initSharedX = "1C1C9A540153042A781653EE8257C9C54A448BEF2F5C5740FE9B71B6C8B88DB6"
    static let initIV = "CD655E7EEA1DF4B84EE0465D960ADA6F"
    static let initCommand =
        "80FE0000924104B2B1E46CB1BB37DA54DD6AD41A3BC6196B45C1B4D76997158A66987F5B179A69EA097561128B535D7F7FA170A253A102D100E66BED5FD3D32E13E18E8118EFF2CD655E7EEA1DF4B84EE0465D960ADA6FEEAA15E5425F1A2C644C0E327D8702D67601485FB144C487C165088D7C1FC9EBBE2F76D2A2461022B5E2A3283B172024234D36DDCE2F68B8E54FCE9561B60FD8"
    static let selectPostInit =
        "A4618F10000102030405060708090A0B0C0D0E0F804104595929FE839A0CC2EAF199DEC2E3829593ED1E66A3987AE99CEDF1A91CCF1238475319416A99145CACC200332D5E151FFC1F0D163A1CE0C212F753F7A642EC14020203010201648E008D011F"
    static let clientChallenge = "2613CC1403B08322B6DB936531F542FBD6BE3F0F0C98703AA41303F1064678F9"
    static let pair1Command = "80120000202613CC1403B08322B6DB936531F542FBD6BE3F0F0C98703AA41303F1064678F9"
    static let pair1Response =
        "08391C9139D025B0D7E387DBD310D52BCCEB0596EBCA32ECB5B05E29E43B811FD8718559141E0E23134B69D9559846295625D46A81B40B484D7D254B3067626C"
    static let pair2Command = "8012010020243395DA5F3182B82DD30189E793FD786BD4AE276190DCB85F41D79B03D5D141"
    static let pair2Response = "007E3CC55275357CE3FF3A1F5C32F0666F794DBB9D8DC6D86D361863768FBF5645"
    static let pairingKey = "D2AE98072AC60129DB1C9B25681C6C17C0CA575EF33E58009257DF27C30DB42D"
    static let scEphemeralPrivate = "132828F6B191F90E10A0E0BB4BB54FA1FF96B4E052DE9116709A3B61FCAFEB03"
    static let openSCCommand =
        "801000004104D328964D0A94C8EF5839AC523693D47B3AC6CA6D080CE7C766398FD5D4319B16AEED6EF8A08534B525F314BA59357702E13F8AE48847F047D001F02B50092AB3"
    static let openSCResponse =
        "59F11DB8F78DF4F7EA5F6A9AF11C525000F64084D3F630FA21945DFED11EC84C57D3DE5C1217C83F3A9D90B29D240091"
    static let scSharedX = "1FC4E33C581FB0D0E5CA852B112A2E43DC3E9418774B92051A3CC7DB42A2E080"
    static let encKey = "00E547E1EFCC1C2BCDC552BA26187431AD812ADC79497E565E7FA411631A5D82"
    static let macKey = "4BE95D36A79B97F25576E1C36376DC6D2BCFAFC7AB143F61E3CFA1AE5E6B30C2"
    static let maRandom = "C9586B2A80499DDF0A2B67FB4D176EC60A9F6EE5BFBD6CD8EDBB9423F1F9C26E"
    static let maCommand =
        "80110000407228F5E1196E3566EB7591FBD29BD625BFDD9012DD715D3D79E0C326AE6C4CBA1427DE22E088FBDE23C7ADC36F73488F55B92150377E30CC09398BB844DFCE51"
    static let maResponse =
        "A0EE1EAC18B82F807B4FF9EE79468E725FD20B55F171FCDEB5FBEDF174EB7E75A19F047DFCEFAA21A0C5633503C5DAB52AE1B4232E0D3D62AA72D5CCD45E5FDF"
    static let getStatusCommand = "80F2000020A7148810C8B6AFC7D8553DB0C1A3E9F50277439015A56D008D2D0ECCD9089614"
    static let getStatusResponse = "A88F506B3CF7490A49135CB31C69767BB7AAD8879B3178FFD91F0174DE83187F"
    static let wrongPINCommand = "80200000202D7D71DB56DE39896D019BBF233247906DFD64FCE11E16031ED6050C1B7D823E"
    static let wrongPINResponse = "7A5B2F99D1D22736F83F71386C7BAD995F1E65D78A4CA083E5F33BCC889846A5"
    static let rightPINCommand = "80200000202499BE7A637BD57FED99059AB1BCFE1AFE9B9FE366E33B6DC920331755206C17"
    static let rightPINResponse = "F03496678E0A56CB0888C6BFE40098B4E7AD34E3861F03B5F1016192031FC0BC"
    static let ins84Command = "808420002099B6B586BAD0035B8299107D5816D1B26A87343D3D793372C565CE32BB81B85D"
    static let ins84Response = "E57A9BA14A9309348BA97F171D7EF3CE41C2DAA949C8ED328D1296584C427269"

    static let selectCommand = "00A4040009A0000008040001010100"

    /// The exchanges up to and including MUTUALLY AUTHENTICATE (the session walk).
    static var walk: [Exchange] {
        [
            Exchange(label: "SELECT (blank)", command: h(selectCommand), response: h(selectPreInit + "9000")),
            Exchange(label: "INIT", command: h(initCommand), response: h("9000")),
            Exchange(label: "SELECT (initialized)", command: h(selectCommand), response: h(selectPostInit + "9000")),
            Exchange(label: "PAIR step 1", command: h(pair1Command), response: h(pair1Response + "9000")),
            Exchange(label: "PAIR step 2", command: h(pair2Command), response: h(pair2Response + "9000")),
            Exchange(label: "OPEN SECURE CHANNEL", command: h(openSCCommand), response: h(openSCResponse + "9000")),
            Exchange(label: "MUTUALLY AUTHENTICATE", command: h(maCommand), response: h(maResponse + "9000")),
        ]
    }

    /// The protected commands after the walk.
    static var afterWalk: [Exchange] {
        [
            Exchange(label: "GET STATUS", command: h(getStatusCommand), response: h(getStatusResponse + "9000")),
            Exchange(label: "VERIFY PIN 111111", command: h(wrongPINCommand), response: h(wrongPINResponse + "9000")),
            Exchange(label: "VERIFY PIN 123456", command: h(rightPINCommand), response: h(rightPINResponse + "9000")),
            Exchange(label: "INS 84", command: h(ins84Command), response: h(ins84Response + "9000")),
        ]
    }

    /// The client's random inputs, in the order the client draws them.
    static func random() -> ScriptedRandom {
        ScriptedRandom([h(initEphemeralPrivate), h(initIV), h(clientChallenge), h(scEphemeralPrivate), h(maRandom)])
    }

    static func initParameters() throws(CardError) -> InitParameters {
        try InitParameters(
            pin: ascii("123456"), puk: ascii("123456789012"),
            pairingSecret: PairingSecret(bytes: Secret(bytes: h(pairingToken))))
    }
}

@Suite("§16.2 SC V1 session transcript")
struct TranscriptTests {
    @Test("pairing token: PBKDF2-HMAC-SHA256('KeycardDefaultPairing', 50 000 rounds) = 675DEABB…")
    func pairingSecret_defaultPassword_matchesSpec() {
        let secret = PairingSecret(password: PairingSecret.defaultPassword)
        #expect(secret.secret == Secret(bytes: h(Transcript.pairingToken)))
        #expect("\(secret)" == "<pairing secret>")
        let v = Vectors.json("keycard.json").object("pairing")
        #expect(v.string("salt").utf8.elementsEqual(PairingSecret.salt))
        #expect(v.int("iterations") == PairingSecret.iterations)
        #expect(v.string("default_pairing_password") == PairingSecret.defaultPassword)
    }

    @Test("the ECDH X coordinates of INIT and OPEN SECURE CHANNEL and the session keys match the transcript")
    func keys_intermediateValues_match() throws {
        let initKey = try PrivateKey(bytes: h(Transcript.initEphemeralPrivate))
        #expect(
            try initKey.sharedSecretX(with: PublicKey(bytes: h(Transcript.cardPreInitPublic)))
                == Secret(bytes: h(Transcript.initSharedX)))
        let scKey = try PrivateKey(bytes: h(Transcript.scEphemeralPrivate))
        let shared = try scKey.sharedSecretX(with: PublicKey(bytes: h(Transcript.cardPostInitPublic)))
        #expect(shared == Secret(bytes: h(Transcript.scSharedX)))
        let keys = try SessionKeys.derive(
            sharedSecret: shared, pairingKey: Secret(bytes: h(Transcript.pairingKey)),
            cardResponse: h(Transcript.openSCResponse))
        #expect(keys.encryptionKey == Secret(bytes: h(Transcript.encKey)))
        #expect(keys.macKey == Secret(bytes: h(Transcript.macKey)))
        #expect(keys.iv == h("57D3DE5C1217C83F3A9D90B29D240091"))
    }

    @Test("INIT builder alone: the 146-byte payload of the transcript")
    func initCommand_builder_matchesTranscript() throws {
        let apdu = try KeycardCommands.initialize(
            Transcript.initParameters(), cardKey: PublicKey(bytes: h(Transcript.cardPreInitPublic)),
            ephemeralKey: PrivateKey(bytes: h(Transcript.initEphemeralPrivate)), iv: h(Transcript.initIV))
        #expect(try apdu.encoded() == h(Transcript.initCommand))
        #expect(apdu.data.count == 0x92)
    }

    @Test("the whole session: select, init, select, pair, open, authenticate, status, PINs, stale-IV 6D00")
    func session_fullTranscript_bytesMatch() throws {
        let transport = ScriptedTransport(Transcript.walk + Transcript.afterWalk)
        let random = Transcript.random()
        let trace = APDUTrace()
        let session = CardSession(transport: transport, random: random, trace: trace.sink)

        let result = try session.open(SessionOptions(initialization: Transcript.initParameters()))
        #expect(result.initialized)
        #expect(result.paired)
        #expect(!result.pinVerified)
        #expect(result.pairing?.index == 0)
        #expect(result.pairing?.key == Secret(bytes: h(Transcript.pairingKey)))
        #expect(result.applicationInfo.version == AppletVersion(major: 3, minor: 1))
        #expect(result.applicationInfo.freePairingSlots == 100)
        #expect(result.applicationInfo.instanceUID == h("000102030405060708090A0B0C0D0E0F"))
        #expect(result.applicationInfo.secureChannelPublicKey?.uncompressed == h(Transcript.cardPostInitPublic))
        #expect(result.applicationInfo.capabilities == .all)
        #expect(!result.applicationInfo.hasMasterKey)
        #expect(session.commands.isSecureChannelOpen)

        let commands = session.commands
        #expect(try commands.getStatus() == ApplicationStatus(pinRetries: 3, pukRetries: 5, keyInitialized: false))

        let wrong = caught { () throws(CardError) in try commands.verifyPIN(ascii("111111")) }
        #expect(wrong == .wrongPIN(triesLeft: 2))
        #expect(wrong?.description == "wrong PIN: 2 tries left")

        try commands.verifyPIN(ascii("123456"))

        // INS 84 is unknown to a 3.1 applet: the card answers 6D00 encrypted with the stale IV (§9.9).
        let response = try commands.transmit(CommandAPDU(ins: 0x84, p1: 0x20), route: .secure)
        #expect(response == ResponseAPDU(sw: 0x6D00))
        #expect(
            CardError.from(sw: response.sw, command: CardCommand(CommandAPDU(ins: 0x84)))
                == .insNotSupported(command: .getChallenge))
        // The chain moved on to the answer's MAC.
        #expect(commands.secureChannel.currentIV == Array(h(Transcript.ins84Response).prefix(16)))

        #expect(transport.isFinished)
        #expect(random.remaining == 0)

        // The trace shows plaintext inside the channel but never a PIN.
        let text = trace.text
        #expect(trace.records.count == 11)
        #expect(
            trace.records.map(\.secure) == [false, false, false, false, false, false, true, true, true, true, true])
        #expect(!text.contains("313233343536"))
        #expect(!text.contains("313131313131"))
        #expect(text.contains("→ [SC] VERIFY PIN: 80 20 00 00 06 <masked 6 bytes>\n  ← 63C2"))
        #expect(text.contains("→ [SC] GET STATUS: 80 F2 00 00\n  ← A309020103020105010100 9000"))
        #expect(text.contains("→ [SC] GET CHALLENGE: 80 84 20 00\n  ← 6D00"))
    }

    @Test("a stored pairing skips INIT and PAIR: SELECT, OPEN SECURE CHANNEL, MUTUALLY AUTHENTICATE only")
    func session_storedPairing_skipsInitAndPair() throws {
        let script = [
            Exchange(
                label: "SELECT", command: h(Transcript.selectCommand), response: h(Transcript.selectPostInit + "9000")),
            Exchange(
                label: "OPEN SECURE CHANNEL", command: h(Transcript.openSCCommand),
                response: h(Transcript.openSCResponse + "9000")),
            Exchange(
                label: "MUTUALLY AUTHENTICATE", command: h(Transcript.maCommand),
                response: h(Transcript.maResponse + "9000")),
        ]
        let transport = ScriptedTransport(script)
        let random = ScriptedRandom([h(Transcript.scEphemeralPrivate), h(Transcript.maRandom)])
        let session = CardSession(transport: transport, random: random)
        let pairing = try Pairing(index: 0, key: Secret(bytes: h(Transcript.pairingKey)))
        let result = try session.open(SessionOptions(pairing: pairing))
        #expect(!result.initialized)
        #expect(!result.paired)
        #expect(result.pairing == pairing)
        #expect(transport.isFinished)
        #expect(random.remaining == 0)
    }

    @Test("a blank card without INIT parameters stops at notInitialized")
    func session_blankCardNoInit_notInitialized() {
        let transport = ScriptedTransport([
            Exchange(
                label: "SELECT", command: h(Transcript.selectCommand),
                response: h(Transcript.selectPreInit + "9000"))
        ])
        let session = CardSession(transport: transport, random: ScriptedRandom([]))
        let error = caught { () throws(CardError) in _ = try session.open(SessionOptions(pin: ascii("123456"))) }
        #expect(error == .notInitialized)
        #expect(
            error?.description
                == "the card is not initialized: give a PIN, a PUK and a pairing password to initialize it")
    }

    @Test("an initialized card with neither pairing nor secret stops at pairingRequired")
    func session_noPairing_pairingRequired() {
        let transport = ScriptedTransport([
            Exchange(
                label: "SELECT", command: h(Transcript.selectCommand),
                response: h(Transcript.selectPostInit + "9000"))
        ])
        let session = CardSession(transport: transport, random: ScriptedRandom([]))
        #expect(caught { () throws(CardError) in _ = try session.open(SessionOptions()) } == .pairingRequired)
    }

    @Test("a wrong pairing secret: the card's cryptogram does not match, step 2 is never sent")
    func pair_wrongSecret_cardCryptogramMismatch() {
        let transport = ScriptedTransport([
            Exchange(
                label: "PAIR step 1", command: h(Transcript.pair1Command),
                response: h(Transcript.pair1Response + "9000"))
        ])
        let commands = KeycardCommandSet(transport: transport, random: ScriptedRandom([h(Transcript.clientChallenge)]))
        let error = caught { () throws(CardError) in
            _ = try commands.pair(secret: PairingSecret(bytes: Secret(bytes: [UInt8](repeating: 0x41, count: 32))))
        }
        #expect(error == .cardCryptogramMismatch)
        #expect(transport.isFinished)
        #expect(transport.sent.count == 1)
    }

    @Test("PAIR answered 6A84: no free slot, with the recovery advice")
    func pair_fullCard_noFreePairingSlot() {
        let transport = ScriptedTransport([
            Exchange(label: "PAIR step 1", command: h(Transcript.pair1Command), response: h("6A84"))
        ])
        let commands = KeycardCommandSet(transport: transport, random: ScriptedRandom([h(Transcript.clientChallenge)]))
        let error = caught { () throws(CardError) in
            _ = try commands.pair(secret: PairingSecret(bytes: Secret(bytes: h(Transcript.pairingToken))))
        }
        #expect(error == .noFreePairingSlot)
        #expect(
            error?.description == "no free pairing slot: unpair a slot from a paired client or factory-reset the card")
    }

    @Test("a tampered MUTUALLY AUTHENTICATE answer fails the MAC check and leaves the channel closed")
    func session_tamperedMutualAuthentication_macMismatch() throws {
        let transport = FaultInjectingTransport(
            wrapping: ScriptedTransport(Transcript.walk),
            faults: [.flipResponseByte(apdu: 7, byteIndex: 40)])
        let session = CardSession(transport: transport, random: Transcript.random())
        let error = caught { () throws(CardError) in
            _ = try session.open(SessionOptions(initialization: Transcript.initParameters()))
        }
        #expect(error == .responseMACMismatch(command: .mutuallyAuthenticate))
        #expect(!session.commands.isSecureChannelOpen)
        #expect(!session.commands.secureChannel.isOpen)
    }

    @Test(
        "the connection drops mid-walk (at PAIR step 2, at MUTUALLY AUTHENTICATE): a transport error, never a card status",
        arguments: [4, 6])
    func session_connectionDrop_transportError(_ after: Int) throws {
        let transport = FaultInjectingTransport(
            wrapping: ScriptedTransport(Transcript.walk),
            faults: [.dropConnection(afterAPDUs: after)])
        let session = CardSession(transport: transport, random: Transcript.random())
        let error = caught { () throws(CardError) in
            _ = try session.open(SessionOptions(initialization: Transcript.initParameters()))
        }
        #expect(error == .transport(.connectionLost(detail: "fault injected: connection dropped after APDU \(after)")))
        #expect(error?.id == "card.transport.connectionLost")
        #expect(error?.statusWord == nil)
        #expect(transport.count == after + 1)
    }
}
