// The Keycard 4.0 client (SELECT, Secure Channel V2, INIT, commands) replayed against sessions
// recorded from the 4.0 applet (commit a61616a) running in jCardSim, with the client's random
// inputs scripted so every byte it sends must equal the recording. Source: the Keycard 4.0
// protocol notes, appendix A12 (sessions 1 and 2, the certificate and SELECT answers), and the
// base notes' §16.2 Secure Channel V2 rows (cross-checked there against keycard-py 0.4.0).
// The facts are in docs/keycard-protocol.md §14.
import CardProtocol
import Testing
import WalletCore
import WalletCrypto

enum Recorded4 {
    static let certificate = h("0268DCFE86150560677B35A08228BFCD65E7E2920BABDF922E92633388AA5C7498A580F5E1E90A64892D1D05BDDA990786E65287678CB05F012B4D306DB0850DE95CD9BDCBB6DDF9B6334F256031A11ED0E1E6B6E3CBF0DC64A9736FE68E40BFE600")
    static let selectBlank = h("A46F020204008C01008E008D011F8A62") + certificate
    static let selectInitialized = h("A46F020204008C01138E008D011F8A62") + certificate
    static let selectLEE = h("A4818F020204008C01338E20185B09DD58806CC1EB4717F76AA5303A9B6FCC79B22B1589D8D24C7C6891E9188D011F8A62") + certificate
    static let selectCommand = h("00A4040009A0000008040001010100")
    static let ok: [UInt8] = [0x90, 0x00]

    // Session 1 (blank card): salt, client key, card key, one recorded card signature (high S).
    static let salt1 = h("E9D3A4BCE2BDC6121AEAC47B8E4DA6CA7C9B11CC9094CC338B86D8BCFA644FAA")
    static let client1 = h("450DF70336186C80407C993740039CC75C7D03D6A95EFE2B6BEA1A6D4DCF8EDA")
    static let open1 = h("8010000061E9D3A4BCE2BDC6121AEAC47B8E4DA6CA7C9B11CC9094CC338B86D8BCFA644FAA0499D27C3F05E5568B58D3986D3E13368BB770A87C57C59CF1B8834772B9F764F2B16314309306F260437A9EBBA2E99DE79401CCE87B08B2228592DCF11195694B")
    static let card1 = h("04FA05ED0A3649886270BACEC5DDC1A3643009A759BEE996F9A6AC060C9992A82E2F676E0DF3B9DC680E28DABC3AF3F9C264FF8953F1D143D62C06E960E562F678")
    static let signature1 = h("3045022028F50F3D70E04618D2B83F21CD300A433192C9E10AFEDF3D471EB544CA77C132022100DA3942BFFD654746E718A610360852CA494F77E391CE00619687BFE768EB23A0")

    // Session 2 (initialized card).
    static let salt2 = h("05DE450D3BD4EFF068F87C2C89B71835210DD802A42E1A5BC1DBF36B6ED98B98")
    static let client2 = h("55B1F882034049BCEF08B611EA977E17E0AB0115A057D233EEFD024A8A4002A3")
    static let open2 = h("801000006105DE450D3BD4EFF068F87C2C89B71835210DD802A42E1A5BC1DBF36B6ED98B98043C2FB1D5CBD81ACE56E1ECDD4E52D46F04BA63AC9D026E264F9F0D56A2D1B58C65F3474F8639CE51ECFD55264A3A179D5BCFBEE646161466F4A255CD9A604C3D")
    static let card2 = h("04EE696A1B4045451ABC822819F57D1CCA270B9AED4E970A55A678B319C943A97C71E12969BF6375E5DEB8E7348EBE51307EFEE034387FD3C9AD7314965613D007")
    static let signature2 = h("3045022100F59E4DC682AB9FE44F9EDCD6E80F438FE86D9E2DB39D393C8B54A046504F7A4302204D226C0D1DF877C491328A71AF9195C91A54EAD5989235D87CE49BDE7001F434")
    static let seed = h("B059400CE0F55498A5527667E77048BB482FF6DAA16C37B4B9E8AF70C85B3F4DF588004F19812A1A027C9A51E5E94259A560268E91CD10E206451A129826E740")

    /// Session 2 nonces 0–6: label, wire command, wire answer (then outer 90 00).
    static let session2: [(String, String, String)] = [
        ("VERIFY 111111", "8018000013CA97A3E256B1581027AD0884AA1742E399B0E3", "40AF2341D4E5E60FCE2A"),
        ("VERIFY 123456", "8018000013350A18762993F31B1D1AADF187303FB375FB39", "C07999E2B51F54F75B32"),
        ("GET STATUS", "801800000D9DD38316E58D6C5AC7C3D3F665", "C8EBF30604C870ADFCE30B6AE9FDDFBDAE6AA64DF7"),
        ("LOAD KEY seed", "801800004D1017ED08D2C704F580953AF0605AA6054BAF6D7CA0A44682B1123D323EBEB18749F0CC0428A2403871E436F4604A57469D61DC31129DA8835F5DD4AE9B9C7E607F3CC31E105FA60597E17F7C06", "624FC6E1C3337120837C6BAB27B8863B1D29DE7DA975569EDA67EDED60FA166A6D9AE95364EE9A37AECD"),
        ("EXPORT public", "801800002113AF5DB5CC2FF8EF488F7CF72B61815BE7B2E24C466674F526882A502B8D7E0E02", "0A336060AAC35FD1BF697FBEA30FA60125BF0D5552BCBC2621E03FFA03B748C68B295F7834522B4BCA5B06AC2A1595375A10307F20BA5D1B6830666BB66F4ECD60FD042A300BA4A9DEED592E997C5F"),
        ("EXPORT xpub", "80180000194F6C4F5E5DBD2DE3B800C83A99AD96BEE7C4BD4A41BF538CA9", "F52C8EE8F5FF40B9DA8E691396E07CECA6A8BBA2160B34E29A67231297B6530133E2FEDA224BF28C657277F4B6560415B84F9B30ECC7860DE36866A7ED95E4809B70C2A9A6C40B4D8DBA754437C5BBDB7CD10607EB2F0A7270216B6DAB39A20CE2DB521ED93429BA77F11E2D97A675BA52"),
        ("EXPORT private", "801800002117924B72E033FF56062A30BA4C3A5CE8897FFE51C072D23E1713DC7C3D6D86B14C", "3B6D5CDB9C5292455E6CBF3038C8C62A10AD7673CC72E870C6997E727C10FD2069AA02C4E5FEE0D054130D3C2976"),
    ]
}

@Suite("Keycard 4.0 client against recorded sessions")
struct Keycard4ClientTests {
    @Test("SELECT: the 4.0 template with its one-byte-short length, blank, initialized and LEE")
    func selectAnswers() throws {
        // The recorded length byte is one short of the content (6F for 112 bytes).
        #expect(Recorded4.selectBlank.count == 114 && Recorded4.selectBlank[1] == 0x6F)
        #expect(throws: CardError.self) { try TLV.parseFirst(Recorded4.selectBlank).children() }

        let blank = try ApplicationInfo(selectResponse: Recorded4.selectBlank)
        #expect(blank.usesSecureChannelV2 && !blank.isInitialized && !blank.hasMasterKey)
        #expect(blank.version == AppletVersion(major: 4, minor: 0))
        #expect(blank.statusByte == 0x00 && blank.capabilities.rawValue == 0x1F)
        // No instance UID on 4.0: kcs keys the card by its identity key.
        #expect(blank.instanceUID == Array(Hash.sha256(h("0268DCFE86150560677B35A08228BFCD65E7E2920BABDF922E92633388AA5C7498")).prefix(16)))
        let certificate = try #require(blank.certificate)
        #expect(certificate.identityPublicKey.compressed.hex.uppercased() == "0268DCFE86150560677B35A08228BFCD65E7E2920BABDF922E92633388AA5C7498")
        #expect(certificate.caPublicKey.compressed.hex.uppercased() == "02B0D0B881C3D677D5E87E7BC4669A9AD3D02B886E9FE98D1B45B4B835C52BF6B9")
        #expect(certificate.issuer == .unknown)

        let initialized = try ApplicationInfo(selectResponse: Recorded4.selectInitialized)
        #expect(initialized.isInitialized && initialized.pinTriesLeft == 3 && !initialized.isLEEMode)

        let lee = try ApplicationInfo(selectResponse: Recorded4.selectLEE)
        #expect(lee.isInitialized && lee.isLEEMode && lee.pinTriesLeft == 3)
        #expect(lee.keyUID.hex.uppercased() == "185B09DD58806CC1EB4717F76AA5303A9B6FCC79B22B1589D8D24C7C6891E918")

        // A corrected length (70, 81 90) reads the same.
        var fixed = Recorded4.selectBlank
        fixed[1] = 0x70
        #expect(try ApplicationInfo(selectResponse: fixed) == blank)
        let fixedLEE = [0xA4, 0x81, 0x90] + Recorded4.selectLEE[3...]
        #expect(try ApplicationInfo(selectResponse: Array(fixedLEE)) == lee)
    }

    @Test("session keys and the transcript digest of both recorded handshakes")
    func keySchedule() throws {
        let x1 = Secret(bytes: h("364BF899BBDE6FF8A8C08A515B0F4CB7AE9C68D96135AE554AD7A956EBA266C0"))
        let keys1 = SessionKeysV2.derive(sharedX: x1, salt: Recorded4.salt1)
        #expect(keys1.hostToCard.withUnsafeBytes { Array($0) }.hex.uppercased() == "2B8F985DEE6D8ECF65D3DF7050E06E3B")
        #expect(keys1.cardToHost.withUnsafeBytes { Array($0) }.hex.uppercased() == "AA8A14E1A148BE120AA6DDBC4B12DA51")
        let client1 = try PrivateKey(Secret(bytes: Recorded4.client1)).publicKey.uncompressed
        #expect(SessionKeysV2.transcriptDigest(salt: Recorded4.salt1, clientKey: client1, cardKey: Recorded4.card1).hex.uppercased()
            == "157B7D3D79BAC25877467DC47E27707EE01F63C65F5D5D64AECD8A2ECE5D4B25")
        let client2 = try PrivateKey(Secret(bytes: Recorded4.client2)).publicKey.uncompressed
        #expect(SessionKeysV2.transcriptDigest(salt: Recorded4.salt2, clientKey: client2, cardKey: Recorded4.card2).hex.uppercased()
            == "A847741CC90F59CCECB431462082B10CB5BD3D573865DBE209D486DA975A55F9")
    }

    @Test("session 1: handshake on a blank card (high-S identity signature), INIT with a duress PIN")
    func sessionOne() throws {
        let transport = ScriptedTransport([
            Exchange(label: "SELECT", command: Recorded4.selectCommand, response: Recorded4.selectBlank + Recorded4.ok),
            Exchange(label: "OPEN SC", command: Recorded4.open1, response: Recorded4.card1 + Recorded4.signature1 + Recorded4.ok),
            Exchange(label: "GET STATUS", command: h("801800000D755FE44E5FEC4898E4E7E46737"), response: h("53DF3ADF6B1FF3FB811D") + Recorded4.ok),
            Exchange(label: "INIT", command: h("80180000279BC447DD4E9FB6A3DF254E6C8758206E39BC17F9C3C0B44BA520C59AC6FA1A0481BCBECF19CBF4"),
                     response: h("8AFE3C728AEF7269D6C2") + Recorded4.ok),
        ])
        let card = KeycardCommandSet(transport: transport, random: ScriptedRandom([Recorded4.salt1, Recorded4.client1]))
        let info = try card.select()
        #expect(!info.isInitialized)
        try card.openSecureChannelV2()
        #expect(card.isSecureChannelOpen)
        // Before INIT every inner command but INIT answers an empty 90 00: the status byte, not
        // this answer, says the card is blank.
        let quirk = try card.transmit(CommandAPDU(ins: 0xF2, p1: 0, p2: 0, data: []), route: .secure)
        #expect(quirk.sw == 0x9000 && quirk.data.isEmpty)
        let parameters = try InitParametersV2(
            pin: Secret(bytes: Array("123456".utf8)), puk: Secret(bytes: Array("123456789012".utf8)),
            duressPIN: Secret(bytes: Array("654321".utf8)))
        try card.initializeV2(parameters)
        #expect(transport.isFinished)
    }

    @Test("session 2: PIN, status, LOAD KEY seed, EXPORT public, xpub and EIP-1581 private")
    func sessionTwo() throws {
        var script = [
            Exchange(label: "SELECT", command: Recorded4.selectCommand, response: Recorded4.selectInitialized + Recorded4.ok),
            Exchange(label: "OPEN SC", command: Recorded4.open2, response: Recorded4.card2 + Recorded4.signature2 + Recorded4.ok),
        ]
        for (label, command, answer) in Recorded4.session2 {
            script.append(Exchange(label: label, command: h(command), response: h(answer) + Recorded4.ok))
        }
        let transport = ScriptedTransport(script)
        let card = KeycardCommandSet(transport: transport, random: ScriptedRandom([Recorded4.salt2, Recorded4.client2]))
        try card.select()
        try card.openSecureChannelV2()
        #expect(throws: CardError.wrongPIN(triesLeft: 2)) { try card.verifyPIN(Secret(bytes: Array("111111".utf8))) }
        try card.verifyPIN(Secret(bytes: Array("123456".utf8)))
        let status = try card.getStatus()
        #expect(status.pinRetries == 3 && status.pukRetries == 5 && !status.keyInitialized)
        let uid = try card.loadKey(seed: Secret(bytes: Recorded4.seed))
        #expect(uid.hex.uppercased() == "B98373B5F78C88BDD753FE8FC3E3300BC8060D8B723A10EA062CA63554A23E7A")

        // The keys the card exported are the BIP-32 keys of the seed, computed here.
        let master = try ExtendedKey.master(seed: Secret(bytes: Recorded4.seed))
        let account = try master.derive(DerivationPath("m/44'/60'/0'"))
        let leaf = try master.derive(DerivationPath("m/44'/60'/0'/0/0"))
        let exported = try card.exportKeyV2(path: DerivationPath("m/44'/60'/0'/0/0"), kind: .publicKey)
        #expect(exported.publicKey == leaf.publicKey)
        #expect(exported.publicKey.uncompressed.hex.uppercased()
            == "048A6A9C9CD67A7EF12E40FFD9C2028D14EB488C4B485179C360EA9FBF55621D118F5CF4BDB4525A91B4D9D373D7146607063119FB64B29D00E27FEF1D017BC206")
        let xpub = try card.exportKeyV2(path: DerivationPath("m/44'/60'/0'"), kind: .extendedPublicKey)
        #expect(xpub.publicKey == account.publicKey && xpub.chainCode == account.chainCode)
        let eip1581 = try card.exportKeyV2(path: DerivationPath("m/43'/60'/1581'/0'/0"), kind: .privateKey)
        let expected = try master.derive(DerivationPath("m/43'/60'/1581'/0'/0"))
        #expect(eip1581.privateKey?.publicKey == expected.publicKey)
        #expect(transport.isFinished)
    }

    @Test("a handshake whose signature does not verify installs no keys")
    func badHandshakeSignature() throws {
        var signature = Recorded4.signature1
        signature[10] ^= 0x01
        let transport = ScriptedTransport([
            Exchange(label: "SELECT", command: Recorded4.selectCommand, response: Recorded4.selectBlank + Recorded4.ok),
            Exchange(label: "OPEN SC", command: Recorded4.open1, response: Recorded4.card1 + signature + Recorded4.ok),
        ])
        let card = KeycardCommandSet(transport: transport, random: ScriptedRandom([Recorded4.salt1, Recorded4.client1]))
        try card.select()
        #expect(throws: CardError.self) { try card.openSecureChannelV2() }
        #expect(!card.isSecureChannelOpen)
    }

    @Test("a wrong tag on an answer, and a plain 69 82, close the channel")
    func answerFailures() throws {
        for (answer, expected) in [(h("C07999E2B51F54F75B33") + Recorded4.ok, "card.responseMACMismatch"), (h("6982"), "card.channelClosed")] {
            let transport = ScriptedTransport([
                Exchange(label: "SELECT", command: Recorded4.selectCommand, response: Recorded4.selectInitialized + Recorded4.ok),
                Exchange(label: "OPEN SC", command: Recorded4.open2, response: Recorded4.card2 + Recorded4.signature2 + Recorded4.ok),
                Exchange(label: "VERIFY 111111", command: h(Recorded4.session2[0].1), response: answer),
            ])
            let card = KeycardCommandSet(transport: transport, random: ScriptedRandom([Recorded4.salt2, Recorded4.client2]))
            try card.select()
            try card.openSecureChannelV2()
            do {
                try card.verifyPIN(Secret(bytes: Array("111111".utf8)))
                Issue.record("expected \(expected)")
            } catch {
                #expect(error.id == expected)
            }
            #expect(!card.isSecureChannelOpen)
        }
    }

    @Test("the base notes' V2 rows: three secured APDUs under given keys")
    func baseRows() throws {
        let keys = try SessionKeysV2(hostToCard: Secret(bytes: h("40BD4108C7D45F3F56F32366A30DAAFF")),
                                     cardToHost: Secret(bytes: h("53C7224472BE9D34108C24F9D26A1F8F")))
        let derived = SessionKeysV2.derive(
            sharedX: Secret(bytes: h("601B86B7F24B5D2D1C7D04257071B3B6E9F5415F965F559CAEECA629E10F166D")),
            salt: h("D0A383C9CA0FD04F2672C92DD81BA75BD4D51C67BC3E600C3399D533C4BACC8D"))
        #expect(derived.hostToCard == keys.hostToCard && derived.cardToHost == keys.cardToHost)
        let transport = ScriptedTransport([
            Exchange(label: "VERIFY", command: h("8018000013E5E821A246CAB05668A8AACD32496C750ECDA3"), response: h("04ACB6D41633B676EA74") + Recorded4.ok),
            Exchange(label: "GET STATUS", command: h("801800000DBF7E5FC34B23F87314CE429B99"), response: h("DAF24E7032CE1006329AA43DB173BF69579C017626") + Recorded4.ok),
            Exchange(label: "VERIFY wrong", command: h("80180000136412BB16AB44F75091357ECF94DD9A5C8CB3F7"), response: h("2D9D3988F8BB9A0D0ADB") + Recorded4.ok),
        ])
        let channel = SecureChannelV2(wrapping: PlainChannel(transport: transport))
        channel.open(with: keys)
        #expect(try channel.send(KeycardCommands.verifyPIN(Secret(bytes: Array("123456".utf8)))).sw == 0x9000)
        let status = try channel.send(CommandAPDU(ins: 0xF2, p1: 0, p2: 0, data: []))
        #expect(status.data.hex.uppercased() == "A3090201030201050101FF")
        #expect(try channel.send(KeycardCommands.verifyPIN(Secret(bytes: Array("111111".utf8)))).sw == 0x63C2)
        #expect(channel.counter == 3 && transport.isFinished)
    }
}
