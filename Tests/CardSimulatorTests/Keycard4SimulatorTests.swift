// The 4.0 applet in the simulator, card side, against sessions recorded from the Keycard 4.0 applet
// (commit a61616a) in jCardSim: the card's random draws replay the recording's card keys, so every
// sealed answer must equal the recording byte for byte (the identity signature is random and is
// checked by verifying it). Then the kcs client drives the simulated 4.0 card end to end. Source:
// the Keycard 4.0 protocol notes, appendix A12 (facts in docs/keycard-protocol.md §14).
import CardProtocol
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

@testable import CardSimulator

@Suite("Keycard 4.0 simulator against recorded sessions")
struct Keycard4SimulatorTests {
    static let identityStore = Keycard4Recording.identityStore
    static let certificate = Keycard4Recording.certificate
    static let identityKey = try! PublicKey(bytes: Array(Keycard4Recording.certificate.prefix(33)))
    static let selectKeycard = [0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.keycardInstance
    static let selectIdent = [0x00, 0xA4, 0x04, 0x00, 0x09] + KeycardAID.identInstance
    static let cardKey1 = Keycard4Recording.cardKey1
    static let cardKey2 = Keycard4Recording.cardKey2

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
        #expect(
            hex(applet.process(Self.selectKeycard)) == "A46F020204008C01008E008D011F8A62" + hex(Self.certificate)
                + "9000")
        try open(
            applet, command: hex(Keycard4Recording.open1),
            cardKey: hex(Keycard4Recording.card1),
            digest: "157B7D3D79BAC25877467DC47E27707EE01F63C65F5D5D64AECD8A2ECE5D4B25")
        #expect(hex(applet.process(h(Keycard4Recording.session1[0].1))) == Keycard4Recording.session1[0].2 + "9000")
        #expect(hex(applet.process(h(Keycard4Recording.session1[1].1))) == Keycard4Recording.session1[1].2 + "9000")
        #expect(
            hex(applet.process(Self.selectKeycard)) == "A46F020204008C01138E008D011F8A62" + hex(Self.certificate)
                + "9000")
    }

    @Test("session 2: PIN, status, LOAD KEY, EXPORT, removed SIGN option and DERIVE, byte for byte")
    func sessionTwo() throws {
        let applet = provisioned([
            Self.cardKey1, [UInt8](repeating: 7, count: 32), Self.cardKey2, [UInt8](repeating: 8, count: 32),
        ])
        _ = applet.process(Self.selectKeycard)
        _ = applet.process(Keycard4Recording.open1)
        _ = applet.process(h(Keycard4Recording.session1[0].1))
        _ = applet.process(h(Keycard4Recording.session1[1].1))
        _ = applet.process(Self.selectKeycard)
        try open(
            applet, command: hex(Keycard4Recording.open2),
            cardKey: hex(Keycard4Recording.card2),
            digest: "A847741CC90F59CCECB431462082B10CB5BD3D573865DBE209D486DA975A55F9")
        let steps: [(String, String, String?)] = (Keycard4Recording.session2 + Keycard4Recording.session2Continued)
            .map { ($0.0, $0.1, Optional($0.2)) }
        for (label, command, answer) in steps {
            let response = applet.process(h(command))
            if let answer { #expect(hex(response) == answer + "9000", "\(label)") }
        }
        // In LEE mode SELECT's status byte carries 20 and the key UID is the LEE master's.
        #expect(hex(applet.process(Self.selectKeycard)) == hex(Keycard4Recording.selectLEE) + "9000")
        #expect(hex(applet.process(h("80FDAA5500"))) == "9000", "FACTORY RESET, plain")
        #expect(hex(applet.process(Self.selectKeycard)).hasPrefix("A46F020204008C0100"))
    }

    @Test("the channel's refusals: no session, a short or forged SECURED APDU, a stray outer command")
    func channelRefusals() throws {
        let applet = provisioned([Self.cardKey2, [UInt8](repeating: 8, count: 32)])
        _ = applet.process(Self.selectKeycard)
        #expect(hex(applet.process(h("801800000D9DD38316E58D6C5AC7C3D3F665"))) == "6985", "no session: plain 69 85")
        #expect(hex(applet.process(h("80F2000000"))) == "6985", "a stray outer command, no session: plain")
        #expect(hex(applet.process(h("8010000060") + [UInt8](repeating: 4, count: 96))) == "6A80", "Lc ≠ 97")
        _ = applet.process(Keycard4Recording.open2)
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
        try card.provisionIdentity(
            certificate: Self.certificate,
            privateKey: Keycard4Recording.identityPrivateKey)
        let client = KeycardCommandSet(transport: card, random: SeededRandom(seed: 41))
        let blank = try client.select()
        #expect(blank.usesSecureChannelV2 && !blank.isInitialized)
        try client.openSecureChannelV2()
        let pin = Secret(bytes: Array("123456".utf8)), duress = Secret(bytes: Array("654321".utf8))
        try client.initializeV2(
            InitParametersV2(pin: pin, puk: Secret(bytes: Array("123456789012".utf8)), duressPIN: duress))
        let initialized = try client.select()
        #expect(initialized.isInitialized && initialized.pinTriesLeft == 3)
        try client.openSecureChannelV2()
        try client.verifyPIN(pin)
        let seed = Keycard4Recording.seed
        #expect(
            try client.loadKey(seed: Secret(bytes: seed)).hex.uppercased()
                == "B98373B5F78C88BDD753FE8FC3E3300BC8060D8B723A10EA062CA63554A23E7A")
        let path = try DerivationPath("m/44'/60'/0'/0/0")
        let expected = try ExtendedKey.master(seed: Secret(bytes: seed)).derive(path)
        let digest = Hash.sha256(Array("kcs 4.0".utf8))
        let signature = try client.signV2(digest: digest, path: path)
        #expect(signature.publicKey == expected.publicKey)
        #expect(
            Secp256k1.verify(
                signature.signature.signature, digest: digest, publicKey: expected.publicKey, allowHighS: false))
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

/// BIP-340 Schnorr SIGN (P2 03) on the simulated 4.0 card through the kcs client, with the card's
/// auxiliary randomness all zeros so the signatures are the published ones: BIP-340 test vector 0
/// (key 3, message and aux zero, no tweak), and BIP-86's first receive key of "abandon … about"
/// (m/86'/0'/0'/0/0) with the Taproot tweak, whose output key is BIP-86's published x(Q). The
/// signatures for these inputs are listed in the Keycard 4.0 notes (A12.8); the client checks each
/// under the tweaked key before returning it.
@Suite("Keycard 4.0 Schnorr signing")
struct Keycard4SchnorrTests {
    @Test("BIP-340 vector 0 and a BIP-86 key-path signature from the card")
    func schnorr() throws {
        let zeros = [UInt8](repeating: 0, count: 32)
        let random = ReplayRandom(chunks: [
            Keycard4Recording.cardKey1, [UInt8](repeating: 7, count: 32),
            Keycard4Recording.cardKey2, [UInt8](repeating: 8, count: 32), zeros, zeros,
        ])
        let card = SimulatedCard(profile: .v4_0, random: random)
        let client = try loggedIn(card, clientSeed: 43)

        try client.loadKey(privateKey: PrivateKey(bytes: [UInt8](repeating: 0, count: 31) + [3]))
        let vector0 = try client.signSchnorrV2(digest: zeros, tweak: zeros, path: DerivationPath(absolute: true, []))
        #expect(
            Hex.encode(vector0.signature).uppercased()
                == "E907831F80848D1069A5371B402410364BDF1C5F8307B0084C55F1CE2DCA821525F66A4A85EA8B71E482A74F382D2CE5EBEEE8FDB2172F477DF4900D310536C0"
        )
        #expect(
            Hex.encode(vector0.outputKey.bytes).uppercased()
                == "F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9")

        let seed = try Mnemonic(
            phrase: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
        ).seed()
        try client.loadKey(seed: seed)
        let path = try DerivationPath("m/86'/0'/0'/0/0")
        let internalKey = try client.exportKeyV2(path: path, kind: .publicKey).publicKey.xOnly.key
        #expect(Hex.encode(internalKey.bytes) == "cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115")
        let tweak = Hash.tagged("TapTweak", internalKey.bytes)
        let digest = Hash.sha256(Array("kcs schnorr test".utf8))
        let taproot = try client.signSchnorrV2(digest: digest, tweak: tweak, path: path)
        #expect(
            Hex.encode(taproot.outputKey.bytes) == "a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c")
        #expect(
            Hex.encode(taproot.signature).uppercased()
                == "3C59267711ADB46A464CDC0C79F8D1661B8DD3390EF603EF5E6DE39156B83ACF3D5593731C43C80548840DBD5590C2E87938F12CD927AABE126220F379E1A243"
        )
        #expect(
            !internalKey.verifySchnorr(taproot.signature, message: digest), "under the untweaked key it must not verify"
        )
        // An algorithm the card does not have: 6A 81, only after the PIN and path checks.
        #expect(
            try client.transmit(CommandAPDU(ins: 0xC0, p1: 0x01, p2: 0x01, data: digest), route: .secure).sw == 0x6A81)
        // P1 other than 01 (the 3.x options): 6B 00 first of all.
        #expect(
            try client.transmit(CommandAPDU(ins: 0xC0, p1: 0x00, p2: 0x00, data: digest), route: .secure).sw == 0x6B00)
    }
}

/// EXPORT BIP85 on the simulated 4.0 card through the kcs client, with the BIP-85 specification's
/// test root (xprv9s21ZrQH143K2LBWUUQRFXhu…, loaded as key and chain code): every entropy equals the
/// specification's published vector (also recorded from the 4.0 applet, A12.5), and the BIP-39
/// application encodes to BIP-85's published twelve words.
@Suite("Keycard 4.0 BIP-85")
struct Keycard4BIP85Tests {
    @Test("the BIP-85 specification's vectors from the card")
    func vectors() throws {
        let card = SimulatedCard(profile: .v4_0, random: SeededRandom(seed: 85))
        let client = try loggedIn(card, clientSeed: 86)
        let uid = try client.loadKey(
            privateKey: PrivateKey(bytes: h("3F15E5D852DC2E9BA5E9FE189A8DD2E1547BADEF5B563BBE6579FC6807D80ED9")),
            chainCode: h("1B67969D1EC69BDFEEAE43213DA8460BA34B92D0788C8F7BFCFA44906E8A589C"))
        #expect(Hex.encode(uid).uppercased() == "489A90AE98C3796BC37637610AF250E9E025BB7522EB5A00B705ACF5345C9429")
        let rows: [(String, Int, String)] = [
            (
                "m/83696968'/0'/0'", 64,
                "EFECFBCCFFEA313214232D29E71563D941229AFB4338C21F9517C41AAA0D16F00B83D2A09EF747E7A64E8E2BD5A14869E693DA66CE94AC2DA570AB7EE48618F7"
            ),
            (
                "m/83696968'/0'/1'", 64,
                "70C6E3E8EBEE8DC4C0DBBA66076819BB8C09672527C4277CA8729532AD711872218F826919F6B67218ADDE99018A6DF9095AB2B58D803B5B93EC9802085A690E"
            ),
            ("m/83696968'/39'/0'/12'/0'", 16, "6250B68DAF746D12A24D58B4787A714B"),
            ("m/83696968'/39'/0'/24'/0'", 32, "AE131E2312CDC61331542EFE0D1077BAC5EA803ADF24B313A4F0E48E9C51F37F"),
            ("m/83696968'/2'/0'", 32, "7040BB53104F27367F317558E78A994ADA7296C6FDE36A364E5BAF206E502BB1"),
            (
                "m/83696968'/32'/0'", 64,
                "52405CD0DD21C5BE78314A7C1A3C65FFD8D896536CC7DEE3157DB5824F0C92E2EAD0B33988A616CF6A497F1C169D9E92562604E38305CCD3FC96F2252C177682"
            ),
            (
                "m/83696968'/128169'/64'/0'", 64,
                "492DB4698CF3B73A5A24998AA3E9D7FA96275D85724A91E71AA2D645442F878555D078FD1F1F67E368976F04137B1F7A0D19232136CA50C44614AF72B5582A5C"
            ),
        ]
        for (path, length, expected) in rows {
            let entropy = try client.exportBIP85(path: DerivationPath(path), length: length)
            #expect(entropy.withUnsafeBytes { Hex.encode(Array($0)).uppercased() } == expected, "\(path)")
        }
        let words = try Mnemonic(entropy: h("6250B68DAF746D12A24D58B4787A714B"))
        #expect(words.withPhrase { $0 } == "girl mad pet galaxy egg matter matrix prison refuse sense ordinary nose")
        // Outside m/83696968', or with a non-hardened index: 6A 80.
        #expect(throws: CardError.wrongData(command: .exportBIP85)) {
            try client.exportBIP85(path: DerivationPath("m/44'/0'"), length: 16)
        }
        #expect(throws: CardError.wrongData(command: .exportBIP85)) {
            try client.exportBIP85(path: DerivationPath("m/83696968'/39'/0'/12'/0"), length: 16)
        }
        #expect(try client.getChallenge(length: 245).count == 245)
    }
}

/// The recorded identity provisioned on `card`, then the kcs client's walk to a verified PIN:
/// SELECT, OPEN SECURE CHANNEL, INIT (PIN 123456, duress 654321), SELECT, OPEN, VERIFY.
func loggedIn(_ card: SimulatedCard, clientSeed: UInt64) throws -> KeycardCommandSet {
    try card.provisionIdentity(
        certificate: Keycard4Recording.certificate,
        privateKey: Keycard4Recording.identityPrivateKey)
    let client = KeycardCommandSet(transport: card, random: SeededRandom(seed: clientSeed))
    try client.select()
    try client.openSecureChannelV2()
    let pin = Secret(bytes: Array("123456".utf8))
    try client.initializeV2(
        InitParametersV2(
            pin: pin, puk: Secret(bytes: Array("123456789012".utf8)),
            duressPIN: Secret(bytes: Array("654321".utf8))))
    try client.select()
    try client.openSecureChannelV2()
    try client.verifyPIN(pin)
    return client
}
