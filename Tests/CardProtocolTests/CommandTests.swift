// Pure command builders and response parsers (docs/keycard-protocol.md §5, §7, §10, §11), against
// §16.1 V5 (keycard-py tests/test_vectors.py) and V6 (keycard-go types/certificate_test.go),
// keycard.json application_info (Keycard.swift KeycardTests.swift) and mnemonic_indexes,
// and §16.2's computed key rows.
import CardProtocol
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private let keycard = Vectors.json("keycard.json")
private let digest = h("8F4E5A1C2B3D6E7F8091A2B3C4D5E6F708192A3B4C5D6E7F8091A2B3C4D5E6F7")

/// A labelled builder output, for parameterised byte checks.
struct BuiltAPDU: Sendable, CustomStringConvertible {
    let label: String
    let apdu: CommandAPDU
    let hex: String
    var description: String { label }
}

@Suite("Command builders")
struct CommandBuilderTests {
    static let rows: [BuiltAPDU] = {
        let pin = ascii("123456")
        let puk = ascii("123456789012")
        let secret = try! PairingSecret(bytes: Secret(bytes: [UInt8](repeating: 0x41, count: 32)))
        let challenge = [UInt8](repeating: 0x11, count: 32)
        let bip44 = try! CardKeyPath("m/44'/60'/0'/0/0")
        let eip1581 = try! CardKeyPath("m/43'/60'/1581'/0'/0")
        let key = try! PrivateKey(bytes: [UInt8](repeating: 0x01, count: 32))
        let chain = [UInt8](repeating: 0xCC, count: 32)
        return [
            BuiltAPDU(label: "SELECT", apdu: KeycardCommands.select(), hex: "00A4040009A0000008040001010100"),
            BuiltAPDU(
                label: "PAIR step 1", apdu: KeycardCommands.pairStep1(challenge: challenge),
                hex: "8012000020" + challenge.hex),
            BuiltAPDU(
                label: "PAIR step 1, ephemeral (3.2)",
                apdu: KeycardCommands.pairStep1(challenge: challenge, mode: .ephemeral),
                hex: "8012000120" + challenge.hex),
            BuiltAPDU(label: "UNPAIR 3", apdu: KeycardCommands.unpair(index: 3), hex: "80130300"),
            BuiltAPDU(
                label: "IDENTIFY", apdu: KeycardCommands.identify(challenge: challenge),
                hex: "8014000020" + challenge.hex),
            BuiltAPDU(label: "GET STATUS app", apdu: KeycardCommands.getStatus(), hex: "80F20000"),
            BuiltAPDU(label: "GET STATUS key path", apdu: KeycardCommands.getStatus(.keyPath), hex: "80F20100"),
            BuiltAPDU(label: "VERIFY PIN", apdu: try! KeycardCommands.verifyPIN(pin), hex: "8020000006313233343536"),
            BuiltAPDU(label: "CHANGE PIN", apdu: try! KeycardCommands.changePIN(pin), hex: "8021000006313233343536"),
            BuiltAPDU(
                label: "CHANGE PUK", apdu: try! KeycardCommands.changePUK(puk),
                hex: "802101000C313233343536373839303132"),
            BuiltAPDU(
                label: "CHANGE PAIRING SECRET", apdu: KeycardCommands.changePairingSecret(secret),
                hex: "8021020020" + String(repeating: "41", count: 32)),
            BuiltAPDU(
                label: "UNBLOCK PIN", apdu: try! KeycardCommands.unblockPIN(puk: puk, newPIN: ascii("654321")),
                hex: "8022000012313233343536373839303132363534333231"),
            BuiltAPDU(
                label: "LOAD KEY seed",
                apdu: try! KeycardCommands.loadKey(seed: Secret(bytes: [UInt8](repeating: 0x5E, count: 64))),
                hex: "80D0030040" + String(repeating: "5E", count: 64)),
            BuiltAPDU(
                label: "LOAD KEY key pair (no public key)", apdu: try! KeycardCommands.loadKey(privateKey: key),
                hex: "80D0010024A1228120" + String(repeating: "01", count: 32)),
            BuiltAPDU(
                label: "LOAD KEY extended key pair",
                apdu: try! KeycardCommands.loadKey(privateKey: key, publicKey: key.publicKey, chainCode: chain),
                hex: "80D002008AA181878041" + key.publicKey.uncompressed.hex + "8120"
                    + String(repeating: "01", count: 32)
                    + "8220" + chain.hex),
            BuiltAPDU(
                label: "DERIVE KEY master", apdu: try! KeycardCommands.deriveKey(bip44),
                hex: "80D1000014 8000002C8000003C800000000000000000000000"),
            BuiltAPDU(
                label: "DERIVE KEY parent", apdu: try! KeycardCommands.deriveKey(CardKeyPath("../5")),
                hex: "80D140000400000005"),
            BuiltAPDU(
                label: "DERIVE KEY PIN-less",
                apdu: try! KeycardCommands.deriveKey(CardKeyPath(source: .pinless, components: [])),
                hex: "80D1C000"),
            BuiltAPDU(label: "GENERATE MNEMONIC 12", apdu: KeycardCommands.generateMnemonic(), hex: "80D20400"),
            BuiltAPDU(
                label: "GENERATE MNEMONIC 24", apdu: KeycardCommands.generateMnemonic(wordCount: .twentyFour),
                hex: "80D20800"),
            BuiltAPDU(label: "REMOVE KEY", apdu: KeycardCommands.removeKey(), hex: "80D30000"),
            BuiltAPDU(label: "GENERATE KEY", apdu: KeycardCommands.generateKey(), hex: "80D40000"),
            BuiltAPDU(
                label: "SIGN current", apdu: try! KeycardCommands.sign(digest: digest), hex: "80C0000020" + digest.hex),
            BuiltAPDU(
                label: "SIGN derive m/44'/60'/0'/0/0",
                apdu: try! KeycardCommands.sign(digest: digest, option: .derive(bip44)),
                hex: "80C0010034" + digest.hex + "8000002C8000003C800000000000000000000000"),
            BuiltAPDU(
                label: "SIGN derive and make current ./0",
                apdu: try! KeycardCommands.sign(digest: digest, option: .deriveAndMakeCurrent(CardKeyPath("./0"))),
                hex: "80C0820024" + digest.hex + "00000000"),
            BuiltAPDU(
                label: "SIGN PIN-less", apdu: try! KeycardCommands.sign(digest: digest, option: .pinless),
                hex: "80C0030020" + digest.hex),
            BuiltAPDU(
                label: "SET PINLESS PATH", apdu: try! KeycardCommands.setPinlessPath(bip44),
                hex: "80C10000148000002C8000003C800000000000000000000000"),
            BuiltAPDU(
                label: "SET PINLESS PATH removed", apdu: try! KeycardCommands.setPinlessPath(nil), hex: "80C10000"),
            BuiltAPDU(
                label: "EXPORT KEY current public", apdu: try! KeycardCommands.exportKey(kind: .publicKey),
                hex: "80C20001"),
            BuiltAPDU(
                label: "EXPORT KEY private EIP-1581",
                apdu: try! KeycardCommands.exportKey(.derive(eip1581), kind: .privateKey),
                hex: "80C20100148000002B8000003C8000062D8000000000000000"),
            BuiltAPDU(
                label: "EXPORT KEY xpub parent, make current",
                apdu: try! KeycardCommands.exportKey(
                    .deriveAndMakeCurrent(CardKeyPath("../1")), kind: .extendedPublicKey),
                hex: "80C242020400000001"),
            BuiltAPDU(label: "GET DATA NDEF", apdu: KeycardCommands.getData(.ndef), hex: "80CA0100"),
            BuiltAPDU(
                label: "STORE DATA cash", apdu: try! KeycardCommands.storeData([1, 2, 3], slot: .cash),
                hex: "80E2020003010203"),
            BuiltAPDU(label: "FACTORY RESET", apdu: KeycardCommands.factoryReset(), hex: "80FDAA55"),
        ]
    }()

    @Test("builders produce the documented bytes (§10); SIGN's P2 is always 00", arguments: rows)
    func builder_bytes(_ row: BuiltAPDU) throws {
        #expect(try row.apdu.encoded() == h(row.hex))
        if row.apdu.ins == 0xC0 { #expect(row.apdu.p2 == 0x00) }
    }

    @Test("V5 (keycard-py test_vectors.py): INIT payload PIN ‖ PUK ‖ 32×41 encrypts to the published 64 bytes")
    func initialize_v5_matchesKeycardPy() throws {
        let ephemeral = try PrivateKey(bytes: h("E3B9A83EFA7B113BAC4562A77C496DE21A9F91A17FA8DCB2384ED7154BB43C5C"))
        #expect(
            ephemeral.publicKey.uncompressed
                == h(
                    "043B36C736AAB40306CC94B25B6096CC2D5CDECF6882454D1B50AC1B308B301096AB3D277136B9E5356B0A5FD1BD6FFAF80C09A83040BA9F9B2709DEE8D00BD556"
                ))
        let card = try PublicKey(
            bytes: h(
                "04525481C70263F79C29092E95CFC972E0EB427EA31FE6CC6C96787EB12205737D431929F0837C66A4EE514578A7D5EB78087927851B15B691A79CDEA431BD63D9"
            ))
        #expect(
            try ephemeral.sharedSecretX(with: card)
                == Secret(bytes: h("EDBD4CB9E025BEA55CE922BA7016264AAE21966C0DDF92FC10E6B421C783D992")))
        let parameters = try InitParameters(
            pin: ascii("123456"), puk: ascii("123456789012"),
            pairingSecret: PairingSecret(bytes: Secret(bytes: [UInt8](repeating: 0x41, count: 32))))
        let apdu = try KeycardCommands.initialize(
            parameters, cardKey: card, ephemeralKey: ephemeral,
            iv: h("D2C5FEEDF4BDB935057F8C78CF92395E"))
        #expect(apdu.header == [0x80, 0xFE, 0x00, 0x00])
        #expect(
            apdu.data == [0x41] + ephemeral.publicKey.uncompressed + h("D2C5FEEDF4BDB935057F8C78CF92395E")
                + h(
                    "4707CA7EDF4218C416F252967DA55F1B6E2E65F0FFA0305F71501F53AA283FD5AAA8B049E75288C01034F25893DB43D4DB4BD6DFC4A6546658DD22227082AA58"
                ))
    }

    @Test(
        "INIT payload lengths 50/52/58 all pad to 64 bytes (Lc 0x92); limits and duress are appended",
        arguments: [
            (nil, nil, nil, 50), (UInt8(5), UInt8(10), nil, 52), (nil, nil, "999999", 58),
        ] as [(UInt8?, UInt8?, String?, Int)])
    func initialize_payloadVariants(_ pinTries: UInt8?, _ pukTries: UInt8?, _ duress: String?, _ length: Int) throws {
        let parameters = try InitParameters(
            pin: ascii("123456"), puk: ascii("123456789012"),
            pairingSecret: PairingSecret(bytes: Secret(bytes: [UInt8](repeating: 0x41, count: 32))),
            pinRetries: pinTries, pukRetries: pukTries, duressPIN: duress.map(ascii))
        let ephemeral = try PrivateKey(bytes: [UInt8](repeating: 2, count: 32))
        let cardPrivate = try PrivateKey(bytes: [UInt8](repeating: 3, count: 32))
        let iv = [UInt8](repeating: 4, count: 16)
        let apdu = try KeycardCommands.initialize(
            parameters, cardKey: cardPrivate.publicKey, ephemeralKey: ephemeral, iv: iv)
        #expect(apdu.data.count == 0x92)
        // Decrypt as the card would and look at the plaintext layout.
        let key = try cardPrivate.sharedSecretX(with: ephemeral.publicKey)
        let plain = try #require(try SecureChannel.decrypt(Array(apdu.data[82...]), key: key, iv: iv))
        #expect(plain.count == length)
        #expect(plain.prefix(18) == Array("123456123456789012".utf8)[...])
        if length >= 52 { #expect(Array(plain[50..<52]) == [pinTries ?? 3, pukTries ?? 5]) }
        if length == 58 { #expect(Array(plain[52...]) == Array("999999".utf8)) }
    }

    @Test(
        "arguments the card would refuse are refused before sending, without quoting secrets",
        arguments: [
            ("12345", "the PIN must be 6 digits"), ("12345a", "the PIN must be 6 digits"),
            ("1234567", "the PIN must be 6 digits"),
        ])
    func verifyPIN_badFormat_invalidInput(_ pin: String, _ reason: String) {
        let error = caught { () throws(CardError) in _ = try KeycardCommands.verifyPIN(ascii(pin)) }
        #expect(error == .invalidInput(command: .verifyPIN, reason: reason))
        #expect(error?.description == "VERIFY PIN: \(reason)")
        #expect(!(error?.description.contains(pin) ?? true))
    }

    @Test("INIT limits out of range and a short PUK are refused")
    func initParameters_outOfRange_refused() {
        let secret = try! PairingSecret(bytes: Secret(bytes: [UInt8](repeating: 0x41, count: 32)))
        #expect(
            caught { () throws(CardError) in
                _ = try InitParameters(
                    pin: ascii("123456"), puk: ascii("123456789012"), pairingSecret: secret, pinRetries: 11)
            } == .invalidInput(command: .initialize, reason: "PIN tries must be 2 to 10, got 11"))
        #expect(
            caught { () throws(CardError) in
                _ = try InitParameters(
                    pin: ascii("123456"), puk: ascii("123456789012"), pairingSecret: secret, pukRetries: 2)
            } == .invalidInput(command: .initialize, reason: "PUK tries must be 3 to 12, got 2"))
        #expect(
            caught { () throws(CardError) in
                _ = try InitParameters(pin: ascii("123456"), puk: ascii("12345678901"), pairingSecret: secret)
            } == .invalidInput(command: .initialize, reason: "the PUK must be 12 digits"))
    }

    @Test("SIGN needs a 32-byte digest; SET PINLESS PATH an absolute path")
    func sign_andPinless_refusals() throws {
        #expect(
            caught { () throws(CardError) in _ = try KeycardCommands.sign(digest: [UInt8](repeating: 0, count: 31)) }
                == .invalidInput(command: .sign, reason: "the digest must be 32 bytes, got 31"))
        #expect(
            caught { () throws(CardError) in _ = try KeycardCommands.setPinlessPath(CardKeyPath("0/1")) }
                == .invalidInput(
                    command: .setPinlessPath, reason: "the PIN-less path must be absolute (m/…), got ./0/1"))
    }
}

@Suite("Response parsers")
struct ResponseParserTests {
    @Test(
        "keycard.json application_info: SELECT answers, blank and initialized",
        arguments: keycard.object("application_info").objects("cases"))
    func applicationInfo_keycardSwiftRows(_ row: JSON) throws {
        let info = try ApplicationInfo(selectResponse: h(row.string("tlv_hex")))
        let expect = row.object("expect")
        for key in expect.keys {
            switch key {
            case "initializedCard": #expect(info.isInitialized == expect.bool(key))
            case "appVersion": #expect(info.version?.description == expect.string(key))
            case "hasMasterKey": #expect(info.hasMasterKey == expect.bool(key))
            case "hasSecureChannelCapability": #expect(info.capabilities.contains(.secureChannel) == expect.bool(key))
            case "hasKeyManagementCapability": #expect(info.capabilities.contains(.keyManagement) == expect.bool(key))
            case "hasCredentialsManagementCapability":
                #expect(info.capabilities.contains(.credentialsManagement) == expect.bool(key))
            case "hasNDEFCapability": #expect(info.capabilities.contains(.ndef) == expect.bool(key))
            case "freePairingSlots": #expect(info.freePairingSlots == expect.int(key))
            case "instanceUID": #expect(info.instanceUID.hex == normHex(expect.string(key)))
            case "keyUID": #expect(info.keyUID.hex == normHex(expect.string(key)))
            default: Issue.record("unhandled expectation \(key)")
            }
        }
    }

    @Test("SELECT: 'A4 81 81' with a key UID (132 bytes) and unknown trailing fields")
    func applicationInfo_withKeyAndExtraField() throws {
        let key = try PrivateKey(bytes: [UInt8](repeating: 9, count: 32)).publicKey.uncompressed
        let uid = [UInt8](repeating: 0xEE, count: 32)
        let fields: [TLV] = [
            TLV(tag: 0x8F, value: [UInt8](0..<16)), TLV(tag: 0x80, value: key), TLV(tag: 0x02, value: [3, 2]),
            TLV(tag: 0x02, value: [10]), TLV(tag: 0x8E, value: uid), TLV(tag: 0x8D, value: [0x1F]),
        ]
        let bytes = TLV(tag: 0xA4, children: fields).encoded
        #expect(bytes.count == 132)
        #expect(bytes.prefix(3) == [0xA4, 0x81, 0x81])
        let withExtra = TLV(tag: 0xA4, children: fields + [TLV(tag: 0x99, value: [1, 2, 3])]).encoded
        for data in [bytes, withExtra] {
            let info = try ApplicationInfo(selectResponse: data)
            #expect(info.version == AppletVersion(major: 3, minor: 2))
            #expect(info.freePairingSlots == 10)
            #expect(info.keyUID == uid)
            #expect(info.capabilities == .all)
        }
    }

    @Test("SELECT answers that are neither form are malformed", arguments: ["", "9000", "A40280"])
    func applicationInfo_garbage_malformed(_ hex: String) {
        #expect(
            caught { () throws(CardError) in _ = try ApplicationInfo(selectResponse: h(hex)) }?.id
                == "card.malformedResponse")
    }

    @Test(
        "GET STATUS: A3 template with PIN/PUK tries and key flag; extra fields ignored",
        arguments: [
            ("A3090201030201050101FF", 3, 5, true), ("A3090201000201050101009000", 0, 5, false),
            ("A30C0201020201040101FF990100", 2, 4, true),
        ])
    func status_parse(_ hex: String, _ pin: Int, _ puk: Int, _ key: Bool) throws {
        #expect(
            try ApplicationStatus(response: h(hex))
                == ApplicationStatus(pinRetries: pin, pukRetries: puk, keyInitialized: key))
    }

    @Test(
        "GET STATUS P1=01: raw path bytes → absolute path; empty = m",
        arguments: [
            ("8000002C8000003C800000000000000000000000", "m/44'/60'/0'/0/0"), ("", "m"),
        ])
    func keyPath_parse(_ hex: String, _ text: String) throws {
        #expect(try KeycardCommands.keyPath(statusResponse: h(hex)).description == text)
    }

    @Test("keycard.json mnemonic_indexes: 16-bit word indexes → phrase and seed")
    func mnemonic_indexes_phraseAndSeed() throws {
        let v = keycard.object("mnemonic_indexes")
        let mnemonic = try KeycardCommands.mnemonic(indexes: h(v.string("raw_hex")))
        #expect(mnemonic.withPhrase { $0 } == v.string("mnemonic"))
        #expect(mnemonic.seed() == Secret(bytes: h(v.string("binary_seed"))))
    }

    @Test(
        "GENERATE MNEMONIC answers with an odd length, an index ≥ 2048 or a bad checksum are malformed",
        arguments: [
            "03a305", "0800" + String(repeating: "0000", count: 11), String(repeating: "0000", count: 12),
        ])
    func mnemonic_bad_malformed(_ hex: String) {
        #expect(
            caught { () throws(CardError) in _ = try KeycardCommands.mnemonic(indexes: h(hex)) }?.id
                == "card.malformedResponse")
    }

    @Test("SIGN: A0 81 LL template; recovery id found by matching the returned key")
    func sign_template_recoverable() throws {
        let key = PrivateKey.generate(using: SeededRandom(seed: 11))
        let expected = try key.sign(digest: digest)
        let template = TLV(
            tag: 0xA0,
            children: [
                TLV(tag: 0x80, value: key.publicKey.uncompressed),
                try TLV.parseFirst(expected.signature.der),
            ]
        ).encoded
        #expect(template[1] == 0x81)
        let parsed = try CardSignature(response: template, digest: digest)
        #expect(parsed.publicKey == key.publicKey)
        #expect(parsed.signature == expected)
        #expect(try parsed.signature.recoverPublicKey(digest: digest) == key.publicKey)
    }

    @Test(
        "SIGN: DER parsed leniently (§18): a high-S S is normalised, a non-minimal 33-byte S accepted",
        arguments: [true, false])
    func sign_lenientDER_normalised(_ highS: Bool) throws {
        let key = PrivateKey.generate(using: SeededRandom(seed: 12))
        let expected = try key.sign(digest: digest)
        // S as a fixed 33-byte INTEGER 00 ‖ s: minimal for the high S (top bit set), not for the low S.
        let s = highS ? subtract(Secp256k1.order, expected.signature.s) : expected.signature.s
        let r = expected.signature.r
        let rPart: [UInt8] = r[0] & 0x80 != 0 ? [0x00] + r : r
        let body = [0x02, UInt8(rPart.count)] + rPart + [0x02, 0x21, 0x00] + s
        let template = TLV(
            tag: 0xA0,
            children: [
                TLV(tag: 0x80, value: key.publicKey.uncompressed),
                TLV(tag: 0x30, value: body),
            ]
        ).encoded
        let parsed = try CardSignature(response: template, digest: digest)
        #expect(parsed.signature == expected)
        #expect(parsed.signature.signature.isLowS)
    }

    @Test("SIGN: the raw 65-byte 80 form r ‖ s ‖ v; the key is recovered")
    func sign_rawForm_recovered() throws {
        let key = PrivateKey.generate(using: SeededRandom(seed: 13))
        let expected = try key.sign(digest: digest)
        let parsed = try CardSignature(response: TLV(tag: 0x80, value: expected.compact).encoded, digest: digest)
        #expect(parsed.publicKey == key.publicKey)
        #expect(parsed.signature == expected)
    }

    @Test("SIGN: a signature that does not belong to the returned key is refused")
    func sign_wrongKey_malformed() throws {
        let key = PrivateKey.generate(using: SeededRandom(seed: 14))
        let other = PrivateKey.generate(using: SeededRandom(seed: 15))
        let sig = try key.sign(digest: digest)
        let template = TLV(
            tag: 0xA0,
            children: [
                TLV(tag: 0x80, value: other.publicKey.uncompressed),
                try TLV.parseFirst(sig.signature.der),
            ]
        ).encoded
        #expect(
            caught { () throws(CardError) in _ = try CardSignature(response: template, digest: digest) }
                == .malformedResponse(
                    command: .sign, detail: "the signature does not verify with the returned public key"))
    }

    @Test("§16.2 EXPORT KEY P2=02 for m/44'/60'/0': public key and chain code → extended public key")
    func export_extendedPublic_spec() throws {
        let data = h(
            "A1658041044A028E010E80D02C4AE3B6321476DCED2891ACBEE8B353F942296EE24C5696B0412B8015B18ED1D0D67BBB6B14D18F7A2ABF52B746BBD5D94F09BBBFE7AFBD318220FEDA0ED1C9EA4991EB377888B030E01D571797C70BF79EE3C8FC91AF448C795B"
        )
        let exported = try ExportedKey(response: data)
        #expect(exported.privateKey == nil)
        #expect(exported.chainCode == h("FEDA0ED1C9EA4991EB377888B030E01D571797C70BF79EE3C8FC91AF448C795B"))
        let xpub = try exported.extendedPublicKey(depth: 3, childNumber: 0x8000_0000)
        // Same key as deriving the §16.2 seed in software.
        let master = try ExtendedKey.master(
            seed: Secret(
                bytes: h(
                    "B059400CE0F55498A5527667E77048BB482FF6DAA16C37B4B9E8AF70C85B3F4DF588004F19812A1A027C9A51E5E94259A560268E91CD10E206451A129826E740"
                )))
        let derived = try master.derive("m/44'/60'/0'")
        #expect(xpub.publicKey == derived.publicKey)
        #expect(xpub.chainCode == derived.chainCode)
    }

    @Test("§16.2 EXPORT KEY P2=00 for m/43'/60'/1581'/0'/0: private key only, public key computed")
    func export_private_spec() throws {
        let exported = try ExportedKey(
            response: h("A1228120F95DEAC2B5A925A03D33C3894D87A6619DBCF2834C5B8AD376CA76089809DCBC"))
        #expect(
            exported.privateKey?.secret
                == Secret(bytes: h("F95DEAC2B5A925A03D33C3894D87A6619DBCF2834C5B8AD376CA76089809DCBC")))
        #expect(
            exported.publicKey.uncompressed
                == h(
                    "04E7370D118461E1AB01F3E86E88C4B0C7B92CECB79C5E320CEF73DDA912F173BEAE74DF15090B6405A274963C054CDFE6AC7843A302C260390D1FE776008F310E"
                ))
        #expect(!exported.description.contains("f95deac2"))
        #expect(caught { () throws(CardError) in _ = try exported.extendedPublicKey() }?.id == "card.malformedResponse")
    }

    @Test("V6 (keycard-go TestVerifyIdentity): IDENTIFY verifies and recovers the test CA 02FC92…")
    func identify_v6_recoversCA() throws {
        let challenge = h("63ACD6E02A8B5783551FF2836A9CBDF237C115C3FF018B943F044E6A69B19FE7")
        let response = h(
            "A081AB8A620365C18485FE7018E11CB992011426803AA8E843C63AAB9657AED7D3EE4B85A62A11188ADA267DB3312A84E1BE27C01C736A89DA7A1FE4F7E90CE297E74F00008E2BFDB06058374ABFC1C026386D16EAD7BBC19BC0645D2E7ACF7B953169BBC1AC0130450220364C5CA937B7CA42861978F086D206CC569EF0BB2EA4C7DE08929C2FCCA7434D022100C87699CE4F977E6A7A4800343DB9B6842B91CA873E56DFE3327D19A2D01AF14E"
        )
        let identity = try CardIdentity(response: response, challenge: challenge)
        #expect(
            identity.caPublicKey.compressed == h("02FC929321AA94FEA085B166994AA66590116252CF0235A03ACCAA2C8AB4595DE5"))
        #expect(identity.issuer == .unknown)
        #expect(identity.certificate.count == 98)
        #expect(identity.identityPublicKey.compressed == Array(identity.certificate.prefix(33)))

        var other = challenge
        other[0] ^= 1
        #expect(
            caught { () throws(CardError) in _ = try CardIdentity(response: response, challenge: other) }
                == .identityNotVerified(
                    reason: "IDENTIFY: the card's signature over the challenge does not verify with its certificate key"
                ))
    }

    @Test("§11 CA anchors: production 029AB99E… and test 025877…")
    func identify_knownCAs() {
        #expect(
            CardIdentity.productionCA.compressed.hex.uppercased()
                == "029AB99EE1E7A71BDF45B3F9C58C99866FF1294D2C1E304E228A86E10C3343501C")
        #expect(
            CardIdentity.testCA.compressed.hex.uppercased()
                == "025877220AAAE6E54A6F974602D5995C0FE24A3EA7DDABD8644BEC795B9DA00743")
    }

    @Test("keycard.json metadata: name and account index ranges, both directions")
    func metadata_keycardGoVector() throws {
        let v = keycard.object("metadata")
        let parsed = try CardMetadata(bytes: h(v.string("bytes_hex")))
        #expect(parsed.name == v.string("name"))
        #expect(parsed.walletIndexes.map(Int.init) == v.array("paths").map(\.intValue))
        #expect(parsed.description == "\"123\", account indexes 0, 4–7, 31272–31273")
        let built = try CardMetadata(
            name: v.string("name"), walletIndexes: v.array("paths").map { UInt32($0.intValue) }.reversed())
        #expect(built.bytes.hex == normHex(v.string("bytes_hex")))
        #expect(
            caught { () throws(CardError) in _ = try CardMetadata(bytes: h("4331323300")) }
                == .malformedResponse(command: .getData, detail: "card metadata: metadata version 2 is not 1"))
    }

    @Test("PAIR helpers: the transcript's cryptograms and pairing key")
    func pairing_helpers_transcript() throws {
        let secret = try PairingSecret(bytes: Secret(bytes: h(Transcript.pairingToken)))
        let cryptogram = try KeycardCommands.clientCryptogram(
            secret: secret, clientChallenge: h(Transcript.clientChallenge),
            stepOneResponse: h(Transcript.pair1Response))
        #expect(try KeycardCommands.pairStep2(cryptogram: cryptogram).encoded() == h(Transcript.pair2Command))
        let pairing = try KeycardCommands.pairing(secret: secret, stepTwoResponse: h(Transcript.pair2Response))
        #expect(pairing.index == 0)
        #expect(pairing.key == Secret(bytes: h(Transcript.pairingKey)))
        #expect("\(pairing)" == "<pairing: slot 0>")
    }
}

/// a − b for equal-length big-endian numbers with a ≥ b.
private func subtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: a.count)
    var borrow = 0
    for i in stride(from: a.count - 1, through: 0, by: -1) {
        var d = Int(a[i]) - Int(b[i]) - borrow
        borrow = d < 0 ? 1 : 0
        if d < 0 { d += 256 }
        out[i] = UInt8(d)
    }
    return out
}
