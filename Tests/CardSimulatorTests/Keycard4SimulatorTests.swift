// The 4.0 applet in the simulator, card side, against sessions recorded from the Keycard 4.0 applet
// (commit a61616a) in jCardSim: the card's random draws replay the recording's card keys, so every
// sealed answer must equal the recording byte for byte (the identity signature is random and is
// checked by verifying it). Then the kcs client drives the simulated 4.0 card end to end. Source:
// the Keycard 4.0 protocol notes, appendix A12 (facts in docs/keycard-protocol.md §14).
import CardProtocol
import Testing
import WalletCore
import WalletCrypto
@testable import CardSimulator

@Suite("Keycard 4.0 simulator against recorded sessions")
struct Keycard4SimulatorTests {
    static let identityStore = h("80E20000820268DCFE86150560677B35A08228BFCD65E7E2920BABDF922E92633388AA5C7498A580F5E1E90A64892D1D05BDDA990786E65287678CB05F012B4D306DB0850DE95CD9BDCBB6DDF9B6334F256031A11ED0E1E6B6E3CBF0DC64A9736FE68E40BFE6008D71A8D4E1F32500FC64EE75B99249B79410C232E035FF8D33915CD934FAE3FF")
    static let certificate = Array(identityStore[5..<103])
    static let identityKey = try! PublicKey(bytes: h("0268DCFE86150560677B35A08228BFCD65E7E2920BABDF922E92633388AA5C7498"))
    static let selectKeycard = [0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.keycardInstance
    static let selectIdent = [0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.identInstance
    static let cardKey1 = h("6C5544797A91115DC3330EBD003851D239A706FF2AA2AB70039C5510DDF06420")
    static let cardKey2 = h("51373E8B6FDEC284DB569204CA13D2CAA23BD1D85DCAB02A0E3D50461E73F1BB")

    func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes).uppercased() }

    /// A 4.0 applet provisioned through the Ident applet's STORE DATA, its randomness replaying `chunks`.
    func provisioned(_ chunks: [[UInt8]]) -> KeycardApplet {
        let applet = KeycardApplet(profile: .v4_0, random: ReplayRandom(chunks: chunks))
        #expect(hex(applet.process(Self.selectKeycard)) == "6985", "no identity yet: 69 85")
        #expect(hex(applet.process(Self.selectIdent)) == "9000")
        #expect(hex(applet.process(Self.identityStore)) == "9000")
        #expect(hex(applet.process(Self.identityStore)) == "6985", "an identity is provisioned once")
        return applet
    }

    /// OPEN SECURE CHANNEL with a recorded command: the card's key must be the recorded one and its
    /// signature must verify under the identity key over the recorded transcript digest.
    func open(_ applet: KeycardApplet, command: String, cardKey: String, digest: String) throws {
        let answer = applet.process(h(command))
        #expect(hex(Array(answer.suffix(2))) == "9000")
        #expect(hex(Array(answer.prefix(65))) == cardKey)
        let signature = try ECDSASignature(der: Array(answer[65..<(answer.count - 2)]), lenient: true)
        #expect(Secp256k1.verify(signature, digest: h(digest), publicKey: Self.identityKey, allowHighS: true))
    }

    @Test("session 1: SELECT, handshake, the pre-INIT quirk and INIT, byte for byte")
    func sessionOne() throws {
        let applet = provisioned([Self.cardKey1, [UInt8](repeating: 7, count: 32)])
        #expect(hex(applet.process(Self.selectKeycard)) == "A46F020204008C01008E008D011F8A62" + hex(Self.certificate) + "9000")
        try open(applet, command: "8010000061E9D3A4BCE2BDC6121AEAC47B8E4DA6CA7C9B11CC9094CC338B86D8BCFA644FAA0499D27C3F05E5568B58D3986D3E13368BB770A87C57C59CF1B8834772B9F764F2B16314309306F260437A9EBBA2E99DE79401CCE87B08B2228592DCF11195694B",
                 cardKey: "04FA05ED0A3649886270BACEC5DDC1A3643009A759BEE996F9A6AC060C9992A82E2F676E0DF3B9DC680E28DABC3AF3F9C264FF8953F1D143D62C06E960E562F678",
                 digest: "157B7D3D79BAC25877467DC47E27707EE01F63C65F5D5D64AECD8A2ECE5D4B25")
        #expect(hex(applet.process(h("801800000D755FE44E5FEC4898E4E7E46737"))) == "53DF3ADF6B1FF3FB811D9000")
        #expect(hex(applet.process(h("80180000279BC447DD4E9FB6A3DF254E6C8758206E39BC17F9C3C0B44BA520C59AC6FA1A0481BCBECF19CBF4"))) == "8AFE3C728AEF7269D6C29000")
        #expect(hex(applet.process(Self.selectKeycard)) == "A46F020204008C01138E008D011F8A62" + hex(Self.certificate) + "9000")
    }

    @Test("session 2: PIN, status, LOAD KEY, EXPORT, removed SIGN option and DERIVE, byte for byte")
    func sessionTwo() throws {
        let applet = provisioned([Self.cardKey1, [UInt8](repeating: 7, count: 32), Self.cardKey2, [UInt8](repeating: 8, count: 32)])
        _ = applet.process(Self.selectKeycard)
        _ = applet.process(h("8010000061E9D3A4BCE2BDC6121AEAC47B8E4DA6CA7C9B11CC9094CC338B86D8BCFA644FAA0499D27C3F05E5568B58D3986D3E13368BB770A87C57C59CF1B8834772B9F764F2B16314309306F260437A9EBBA2E99DE79401CCE87B08B2228592DCF11195694B"))
        _ = applet.process(h("801800000D755FE44E5FEC4898E4E7E46737"))
        _ = applet.process(h("80180000279BC447DD4E9FB6A3DF254E6C8758206E39BC17F9C3C0B44BA520C59AC6FA1A0481BCBECF19CBF4"))
        _ = applet.process(Self.selectKeycard)
        try open(applet, command: "801000006105DE450D3BD4EFF068F87C2C89B71835210DD802A42E1A5BC1DBF36B6ED98B98043C2FB1D5CBD81ACE56E1ECDD4E52D46F04BA63AC9D026E264F9F0D56A2D1B58C65F3474F8639CE51ECFD55264A3A179D5BCFBEE646161466F4A255CD9A604C3D",
                 cardKey: "04EE696A1B4045451ABC822819F57D1CCA270B9AED4E970A55A678B319C943A97C71E12969BF6375E5DEB8E7348EBE51307EFEE034387FD3C9AD7314965613D007",
                 digest: "A847741CC90F59CCECB431462082B10CB5BD3D573865DBE209D486DA975A55F9")
        let steps: [(String, String, String?)] = [
            ("VERIFY 111111", "8018000013CA97A3E256B1581027AD0884AA1742E399B0E3", "40AF2341D4E5E60FCE2A"),
            ("VERIFY 123456", "8018000013350A18762993F31B1D1AADF187303FB375FB39", "C07999E2B51F54F75B32"),
            ("GET STATUS", "801800000D9DD38316E58D6C5AC7C3D3F665", "C8EBF30604C870ADFCE30B6AE9FDDFBDAE6AA64DF7"),
            ("LOAD KEY seed", "801800004D1017ED08D2C704F580953AF0605AA6054BAF6D7CA0A44682B1123D323EBEB18749F0CC0428A2403871E436F4604A57469D61DC31129DA8835F5DD4AE9B9C7E607F3CC31E105FA60597E17F7C06", "624FC6E1C3337120837C6BAB27B8863B1D29DE7DA975569EDA67EDED60FA166A6D9AE95364EE9A37AECD"),
            ("EXPORT public", "801800002113AF5DB5CC2FF8EF488F7CF72B61815BE7B2E24C466674F526882A502B8D7E0E02", "0A336060AAC35FD1BF697FBEA30FA60125BF0D5552BCBC2621E03FFA03B748C68B295F7834522B4BCA5B06AC2A1595375A10307F20BA5D1B6830666BB66F4ECD60FD042A300BA4A9DEED592E997C5F"),
            ("EXPORT xpub", "80180000194F6C4F5E5DBD2DE3B800C83A99AD96BEE7C4BD4A41BF538CA9", "F52C8EE8F5FF40B9DA8E691396E07CECA6A8BBA2160B34E29A67231297B6530133E2FEDA224BF28C657277F4B6560415B84F9B30ECC7860DE36866A7ED95E4809B70C2A9A6C40B4D8DBA754437C5BBDB7CD10607EB2F0A7270216B6DAB39A20CE2DB521ED93429BA77F11E2D97A675BA52"),
            ("EXPORT private", "801800002117924B72E033FF56062A30BA4C3A5CE8897FFE51C072D23E1713DC7C3D6D86B14C", "3B6D5CDB9C5292455E6CBF3038C8C62A10AD7673CC72E870C6997E727C10FD2069AA02C4E5FEE0D054130D3C2976"),
            // ECDH and EXPORT BIP85 are not in this simulator yet: their answers are not compared, but
            // they count their round trips, so the next two must still match.
            ("ECDH", "80180000621A886F5328AD680A6ED305722A06306A536ECAECE9047F2ACE5B34F4D57E31AEF749B111AC2033626A5C56DE3F70B0C95F9F36CC1397D59EB1D2C1773F9B9297C0263EF5145C40840F56FB900B008057B71C25A9C3F97BBE62D0AC73E9F2D057E7ED", nil),
            ("EXPORT BIP85", "801800002152DCB450425ECFE5798C09496E35CE75D14445560C19E4F03917CE60C8BC3665F2", nil),
            ("SIGN P1=00", "801800002DCFA52EF119EBA48D2F2F3F825B5BAB54B9070102274431D59556355F8495EE9FE0ECD555580FB8E8363E022BD2", "B30A4DC8EE435693EF24"),
            ("DERIVE KEY", "801800000DDC7B30F602B353F391BD1EE380", "1D2A97C39416B2E8001E"),
        ]
        for (label, command, answer) in steps {
            let response = applet.process(h(command))
            if let answer { #expect(hex(response) == answer + "9000", "\(label)") }
        }
    }

    @Test("the channel's refusals: no session, a short or forged SECURED APDU, a stray outer command")
    func channelRefusals() throws {
        let applet = provisioned([Self.cardKey2, [UInt8](repeating: 8, count: 32)])
        _ = applet.process(Self.selectKeycard)
        #expect(hex(applet.process(h("801800000D9DD38316E58D6C5AC7C3D3F665"))) == "6985", "no session: plain 69 85")
        #expect(hex(applet.process(h("80F2000000"))) == "6985", "a stray outer command, no session: plain")
        #expect(hex(applet.process(h("8010000060") + [UInt8](repeating: 4, count: 96))) == "6A80", "Lc ≠ 97")
        _ = applet.process(h("801000006105DE450D3BD4EFF068F87C2C89B71835210DD802A42E1A5BC1DBF36B6ED98B98043C2FB1D5CBD81ACE56E1ECDD4E52D46F04BA63AC9D026E264F9F0D56A2D1B58C65F3474F8639CE51ECFD55264A3A179D5BCFBEE646161466F4A255CD9A604C3D"))
        // Inside a session a stray outer command is refused sealed and counts a round trip.
        let stray = applet.process(h("80F2000000"))
        #expect(stray.count == 12 && hex(Array(stray.suffix(2))) == "9000")
        // A forged tag closes the session: plain 69 82, and the next SECURED APDU finds none.
        var forged = h("8018000013350A18762993F31B1D1AADF187303FB375FB39")
        forged[forged.count - 1] ^= 1
        #expect(hex(applet.process(forged)) == "6982")
        #expect(hex(applet.process(h("8018000013350A18762993F31B1D1AADF187303FB375FB39"))) == "6985")
    }

    /// The kcs client against the simulated 4.0 card: INIT with a duress PIN, login, keys, SIGN,
    /// and the duress login opening the other wallet.
    @Test("the kcs client drives a simulated 4.0 card end to end")
    func clientAgainstSimulator() throws {
        let card = SimulatedCard(profile: .v4_0, random: SeededRandom(seed: 40))
        try card.provisionIdentity(certificate: Self.certificate,
                                   privateKey: h("8D71A8D4E1F32500FC64EE75B99249B79410C232E035FF8D33915CD934FAE3FF"))
        let client = KeycardCommandSet(transport: card, random: SeededRandom(seed: 41))
        let blank = try client.select()
        #expect(blank.usesSecureChannelV2 && !blank.isInitialized)
        try client.openSecureChannelV2()
        let pin = Secret(bytes: Array("123456".utf8)), duress = Secret(bytes: Array("654321".utf8))
        try client.initializeV2(InitParametersV2(pin: pin, puk: Secret(bytes: Array("123456789012".utf8)), duressPIN: duress))
        let initialized = try client.select()
        #expect(initialized.isInitialized && initialized.pinTriesLeft == 3)
        try client.openSecureChannelV2()
        try client.verifyPIN(pin)
        let seed = h("B059400CE0F55498A5527667E77048BB482FF6DAA16C37B4B9E8AF70C85B3F4DF588004F19812A1A027C9A51E5E94259A560268E91CD10E206451A129826E740")
        #expect(try client.loadKey(seed: Secret(bytes: seed)).hex.uppercased() == "B98373B5F78C88BDD753FE8FC3E3300BC8060D8B723A10EA062CA63554A23E7A")
        let path = try DerivationPath("m/44'/60'/0'/0/0")
        let expected = try ExtendedKey.master(seed: Secret(bytes: seed)).derive(path)
        let digest = Hash.sha256(Array("kcs 4.0".utf8))
        let signature = try client.signV2(digest: digest, path: path)
        #expect(signature.publicKey == expected.publicKey)
        #expect(Secp256k1.verify(signature.signature.signature, digest: digest, publicKey: expected.publicKey, allowHighS: false))
        #expect(throws: CardError.self) { try client.exportKeyV2(path: DerivationPath("m"), kind: .extendedPublicKey) }

        // The duress PIN opens the duress wallet: the chain code is SHA-256 of the master's.
        try client.select()
        try client.openSecureChannelV2()
        try client.verifyPIN(duress)
        let duressKey = try client.exportKeyV2(path: path, kind: .publicKey).publicKey
        #expect(duressKey != expected.publicKey)
        let master = try ExtendedKey.master(seed: Secret(bytes: seed))
        let duressMaster = try ExtendedKey(privateKey: master.privateKey!, chainCode: Hash.sha256(master.chainCode))
        #expect(duressKey == (try duressMaster.derive(path)).publicKey)
    }
}
