// The Keycard 4.0 client (SELECT, Secure Channel V2, INIT, commands) replayed against sessions
// recorded from the 4.0 applet (commit a61616a) running in jCardSim, with the client's random
// inputs scripted so every byte it sends must equal the recording. Source: the Keycard 4.0
// protocol notes, appendix A12 (sessions 1 and 2, the certificate and SELECT answers), and the
// base notes' §16.2 Secure Channel V2 rows (cross-checked there against keycard-py 0.4.0).
// The facts are in docs/keycard-protocol.md §14.
import CardProtocol
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

@Suite("Keycard 4.0 client against recorded sessions")
struct Keycard4ClientTests {
    @Test("SELECT: the 4.0 template with its one-byte-short length, blank, initialized and LEE")
    func selectAnswers() throws {
        // The recorded length byte is one short of the content (6F for 112 bytes).
        #expect(Keycard4Recording.selectBlank.count == 114 && Keycard4Recording.selectBlank[1] == 0x6F)
        #expect(throws: CardError.self) { try TLV.parseFirst(Keycard4Recording.selectBlank).children() }

        let blank = try ApplicationInfo(selectResponse: Keycard4Recording.selectBlank)
        #expect(blank.usesSecureChannelV2 && !blank.isInitialized && !blank.hasMasterKey)
        #expect(blank.version == AppletVersion(major: 4, minor: 0))
        #expect(blank.statusByte == 0x00 && blank.capabilities.rawValue == 0x1F)
        // No instance UID on 4.0: kcs keys the card by its identity key.
        #expect(
            blank.instanceUID
                == Array(
                    Hash.sha256(h("0268DCFE86150560677B35A08228BFCD65E7E2920BABDF922E92633388AA5C7498")).prefix(16)))
        let certificate = try #require(blank.certificate)
        #expect(
            certificate.identityPublicKey.compressed.hex.uppercased()
                == "0268DCFE86150560677B35A08228BFCD65E7E2920BABDF922E92633388AA5C7498")
        #expect(
            certificate.caPublicKey.compressed.hex.uppercased()
                == "02B0D0B881C3D677D5E87E7BC4669A9AD3D02B886E9FE98D1B45B4B835C52BF6B9")
        #expect(certificate.issuer == .unknown)

        let initialized = try ApplicationInfo(selectResponse: Keycard4Recording.selectInitialized)
        #expect(initialized.isInitialized && initialized.pinTriesLeft == 3 && !initialized.isLEEMode)

        let lee = try ApplicationInfo(selectResponse: Keycard4Recording.selectLEE)
        #expect(lee.isInitialized && lee.isLEEMode && lee.pinTriesLeft == 3)
        #expect(lee.keyUID.hex.uppercased() == "185B09DD58806CC1EB4717F76AA5303A9B6FCC79B22B1589D8D24C7C6891E918")

        // A corrected length (70, 81 90) reads the same.
        var fixed = Keycard4Recording.selectBlank
        fixed[1] = 0x70
        #expect(try ApplicationInfo(selectResponse: fixed) == blank)
        let fixedLEE = [0xA4, 0x81, 0x90] + Keycard4Recording.selectLEE[3...]
        #expect(try ApplicationInfo(selectResponse: Array(fixedLEE)) == lee)
    }

    @Test("session keys and the transcript digest of both recorded handshakes")
    func keySchedule() throws {
        let x1 = Secret(bytes: h("364BF899BBDE6FF8A8C08A515B0F4CB7AE9C68D96135AE554AD7A956EBA266C0"))
        let keys1 = SessionKeysV2.derive(sharedX: x1, salt: Keycard4Recording.salt1)
        #expect(keys1.hostToCard.withUnsafeBytes { Array($0) }.hex.uppercased() == "2B8F985DEE6D8ECF65D3DF7050E06E3B")
        #expect(keys1.cardToHost.withUnsafeBytes { Array($0) }.hex.uppercased() == "AA8A14E1A148BE120AA6DDBC4B12DA51")
        let client1 = try PrivateKey(Secret(bytes: Keycard4Recording.client1)).publicKey.uncompressed
        #expect(
            SessionKeysV2.transcriptDigest(
                salt: Keycard4Recording.salt1, clientKey: client1, cardKey: Keycard4Recording.card1
            ).hex.uppercased()
                == "157B7D3D79BAC25877467DC47E27707EE01F63C65F5D5D64AECD8A2ECE5D4B25")
        let client2 = try PrivateKey(Secret(bytes: Keycard4Recording.client2)).publicKey.uncompressed
        #expect(
            SessionKeysV2.transcriptDigest(
                salt: Keycard4Recording.salt2, clientKey: client2, cardKey: Keycard4Recording.card2
            ).hex.uppercased()
                == "A847741CC90F59CCECB431462082B10CB5BD3D573865DBE209D486DA975A55F9")
    }

    @Test("session 1: handshake on a blank card (high-S identity signature), INIT with a duress PIN")
    func sessionOne() throws {
        let transport = ScriptedTransport([
            Exchange(
                label: "SELECT", command: Keycard4Recording.selectCommand,
                response: Keycard4Recording.selectBlank + Keycard4Recording.ok),
            Exchange(
                label: "OPEN SC", command: Keycard4Recording.open1,
                response: Keycard4Recording.card1 + Keycard4Recording.signature1 + Keycard4Recording.ok),
            Exchange(
                label: "GET STATUS", command: h(Keycard4Recording.session1[0].1),
                response: h(Keycard4Recording.session1[0].2) + Keycard4Recording.ok),
            Exchange(
                label: "INIT", command: h(Keycard4Recording.session1[1].1),
                response: h(Keycard4Recording.session1[1].2) + Keycard4Recording.ok),
        ])
        let card = KeycardCommandSet(
            transport: TappedTransport(transport),
            random: ScriptedRandom([Keycard4Recording.salt1, Keycard4Recording.client1]))
        let tracer = CardTracer.explaining(card)
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
        // The recorded session decodes completely (docs/card-explained.md).
        expectFullyDecoded(tracer, ["SELECT", "OPEN SECURE CHANNEL", "GET STATUS", "INIT"])
        #expect(
            tracer.records[3].explained.map(\.text).contains(
                "PIN •••••• ‖ PUK •••••••••••• ‖ PIN tries, PUK tries ‖ duress PIN •••••• (never shown)"))
    }

    @Test("session 2: PIN, status, LOAD KEY seed, EXPORT public, xpub and EIP-1581 private")
    func sessionTwo() throws {
        var script = [
            Exchange(
                label: "SELECT", command: Keycard4Recording.selectCommand,
                response: Keycard4Recording.selectInitialized + Keycard4Recording.ok),
            Exchange(
                label: "OPEN SC", command: Keycard4Recording.open2,
                response: Keycard4Recording.card2 + Keycard4Recording.signature2 + Keycard4Recording.ok),
        ]
        for (label, command, answer) in Keycard4Recording.session2 + Keycard4Recording.session2Continued {
            script.append(Exchange(label: label, command: h(command), response: h(answer) + Keycard4Recording.ok))
        }
        let transport = ScriptedTransport(script)
        let card = KeycardCommandSet(
            transport: TappedTransport(transport),
            random: ScriptedRandom([Keycard4Recording.salt2, Keycard4Recording.client2]))
        let tracer = CardTracer.explaining(card)
        try card.select()
        try card.openSecureChannelV2()
        #expect(throws: CardError.wrongPIN(triesLeft: 2)) { try card.verifyPIN(Secret(bytes: Array("111111".utf8))) }
        try card.verifyPIN(Secret(bytes: Array("123456".utf8)))
        let status = try card.getStatus()
        #expect(status.pinRetries == 3 && status.pukRetries == 5 && !status.keyInitialized)
        let uid = try card.loadKey(seed: Secret(bytes: Keycard4Recording.seed))
        #expect(uid.hex.uppercased() == "B98373B5F78C88BDD753FE8FC3E3300BC8060D8B723A10EA062CA63554A23E7A")

        // The keys the card exported are the BIP-32 keys of the seed, computed here.
        let master = try ExtendedKey.master(seed: Secret(bytes: Keycard4Recording.seed))
        let account = try master.derive(DerivationPath("m/44'/60'/0'"))
        let leaf = try master.derive(DerivationPath("m/44'/60'/0'/0/0"))
        let exported = try card.exportKeyV2(path: DerivationPath("m/44'/60'/0'/0/0"), kind: .publicKey)
        #expect(exported.publicKey == leaf.publicKey)
        #expect(
            exported.publicKey.uncompressed.hex.uppercased()
                == "048A6A9C9CD67A7EF12E40FFD9C2028D14EB488C4B485179C360EA9FBF55621D118F5CF4BDB4525A91B4D9D373D7146607063119FB64B29D00E27FEF1D017BC206"
        )
        let xpub = try card.exportKeyV2(path: DerivationPath("m/44'/60'/0'"), kind: .extendedPublicKey)
        #expect(xpub.publicKey == account.publicKey && xpub.chainCode == account.chainCode)
        let eip1581 = try card.exportKeyV2(path: DerivationPath("m/43'/60'/1581'/0'/0"), kind: .privateKey)
        let expected = try master.derive(DerivationPath("m/43'/60'/1581'/0'/0"))
        #expect(eip1581.privateKey?.publicKey == expected.publicKey)
        let peer = try PrivateKey(bytes: Keycard4Recording.ecdhPeerPrivateKey)
        let shared = try card.ecdh(peer: peer.publicKey, path: DerivationPath("m/44'/1237'/0'/0/0"))
        #expect(shared.withUnsafeBytes { Array($0) }.hex.uppercased() == Keycard4Recording.ecdhSharedX)
        // ECDH is symmetric: the peer computes the same X with the card key's public half.
        let nostr = try master.derive(DerivationPath("m/44'/1237'/0'/0/0")).publicKey
        #expect(try peer.sharedSecretX(with: nostr) == shared)
        let entropy = try card.exportBIP85(path: DerivationPath("m/83696968'/39'/0'/12'/0'"), length: 16)
        #expect(entropy.withUnsafeBytes { Array($0) }.hex.uppercased() == Keycard4Recording.bip85Entropy)
        // The removed SIGN option and DERIVE KEY, sent as raw inner APDUs.
        let digest = h("2D711642B726B04401627CA9FBAC32F5C8530FB1903CC4DB02258717921A4881")
        #expect(
            try card.transmit(CommandAPDU(ins: 0xC0, p1: 0x00, p2: 0x00, data: digest), route: .secure).sw == 0x6B00)
        #expect(try card.transmit(CommandAPDU(ins: 0xD1, p1: 0, p2: 0, data: []), route: .secure).sw == 0x6D00)
        // LEE mode: the applet's values equal the key schedule's (A12.6).
        let lee = try card.loadLEESeed(Secret(bytes: Keycard4Recording.seed))
        #expect(lee.hex.uppercased() == Keycard4Recording.leeKeyUID)
        let root = try card.exportLEE(path: DerivationPath(absolute: true, []))
        #expect(root.nullifierKey.withUnsafeBytes { Array($0) }.hex.uppercased() == Keycard4Recording.leeNSK0)
        #expect(root.viewingKey.withUnsafeBytes { Array($0) }.hex.uppercased() == Keycard4Recording.leeVSK0)
        let child = try card.exportLEE(path: DerivationPath("m/1/2/3"))
        #expect(child.nullifierKey.withUnsafeBytes { Array($0) }.hex.uppercased() == Keycard4Recording.leeNSK123)
        #expect(child.viewingKey.withUnsafeBytes { Array($0) }.hex.uppercased() == Keycard4Recording.leeVSK123)
        let leeAccount = try card.exportKeyV2(path: DerivationPath("m/44'/60'/0'/0/0"), kind: .publicKey)
        #expect(leeAccount.publicKey.uncompressed.hex.uppercased() == Keycard4Recording.leeAccountPublicKey)
        #expect(transport.isFinished)
        // The recorded session decodes completely, and what it changed on the card is said.
        expectFullyDecoded(tracer, nil)
        let said = tracer.records.flatMap { $0.explained.map(\.text) }
        #expect(said.contains("card: PIN tries 3 → 2 (the card counts before it compares)"))
        #expect(said.contains("card: key loaded, key UID B98373B5F78C88BD…; current path m"))
        #expect(
            said.contains("SW 6D 00 instruction not supported (not in this applet or build, or not in this card state)")
        )
        // Secrets are out of the records: the exported EIP-1581 private key, the LEE keys, the entropy.
        let json = tracer.records.map { CardTraceRenderer(level: .explain).json($0) }.joined()
        for secret in [
            Keycard4Recording.leeNSK0, Keycard4Recording.leeVSK0, Keycard4Recording.bip85Entropy,
            Keycard4Recording.ecdhSharedX,
        ] {
            #expect(!json.uppercased().contains(secret))
        }
    }

    @Test("a handshake whose signature does not verify installs no keys")
    func badHandshakeSignature() throws {
        var signature = Keycard4Recording.signature1
        signature[10] ^= 0x01
        let transport = ScriptedTransport([
            Exchange(
                label: "SELECT", command: Keycard4Recording.selectCommand,
                response: Keycard4Recording.selectBlank + Keycard4Recording.ok),
            Exchange(
                label: "OPEN SC", command: Keycard4Recording.open1,
                response: Keycard4Recording.card1 + signature + Keycard4Recording.ok),
        ])
        let card = KeycardCommandSet(
            transport: transport, random: ScriptedRandom([Keycard4Recording.salt1, Keycard4Recording.client1]))
        try card.select()
        #expect(throws: CardError.self) { try card.openSecureChannelV2() }
        #expect(!card.isSecureChannelOpen)
    }

    @Test("a wrong tag on an answer, and a plain 69 82, close the channel")
    func answerFailures() throws {
        for (answer, expected) in [
            (h("C07999E2B51F54F75B33") + Keycard4Recording.ok, "card.responseMACMismatch"),
            (h("6982"), "card.channelClosed"),
        ] {
            let transport = ScriptedTransport([
                Exchange(
                    label: "SELECT", command: Keycard4Recording.selectCommand,
                    response: Keycard4Recording.selectInitialized + Keycard4Recording.ok),
                Exchange(
                    label: "OPEN SC", command: Keycard4Recording.open2,
                    response: Keycard4Recording.card2 + Keycard4Recording.signature2 + Keycard4Recording.ok),
                Exchange(label: "VERIFY 111111", command: h(Keycard4Recording.session2[0].1), response: answer),
            ])
            let card = KeycardCommandSet(
                transport: transport, random: ScriptedRandom([Keycard4Recording.salt2, Keycard4Recording.client2]))
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
        let keys = try SessionKeysV2(
            hostToCard: Secret(bytes: h("40BD4108C7D45F3F56F32366A30DAAFF")),
            cardToHost: Secret(bytes: h("53C7224472BE9D34108C24F9D26A1F8F")))
        let derived = SessionKeysV2.derive(
            sharedX: Secret(bytes: h("601B86B7F24B5D2D1C7D04257071B3B6E9F5415F965F559CAEECA629E10F166D")),
            salt: h("D0A383C9CA0FD04F2672C92DD81BA75BD4D51C67BC3E600C3399D533C4BACC8D"))
        #expect(derived.hostToCard == keys.hostToCard && derived.cardToHost == keys.cardToHost)
        let transport = ScriptedTransport([
            Exchange(
                label: "VERIFY", command: h("8018000013E5E821A246CAB05668A8AACD32496C750ECDA3"),
                response: h("04ACB6D41633B676EA74") + Keycard4Recording.ok),
            Exchange(
                label: "GET STATUS", command: h("801800000DBF7E5FC34B23F87314CE429B99"),
                response: h("DAF24E7032CE1006329AA43DB173BF69579C017626") + Keycard4Recording.ok),
            Exchange(
                label: "VERIFY wrong", command: h("80180000136412BB16AB44F75091357ECF94DD9A5C8CB3F7"),
                response: h("2D9D3988F8BB9A0D0ADB") + Keycard4Recording.ok),
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
