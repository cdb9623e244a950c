// UR registry types against published vectors (Vectors/ur-registry.json: each with its
// repository, path, commit and section — BCR-2020-005/006/007/010/015 in BlockchainCommons/
// Research, KeystoneHQ/ur-registry and keystone-sdk-base, sparrowwallet/hummingbird), and kcs's
// own CBOR read by independent code (urtypes, cbor2; tools/qr-oracle/ur.py). docs/ur.md §5.
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

@Suite("UR registry types")
struct URRegistryTests {
    static let vectors = Vectors.json("ur-registry.json").objects("vectors")

    static func vector(_ id: String) -> JSON { vectors.first { $0.string("id") == id }! }

    /// The published CBOR of a vector: its hex, or what its UR decodes to.
    static func cbor(_ v: JSON) throws -> [UInt8] {
        if let hex = v.optionalString("cbor_hex") { return try Hex.decode(hex.lowercased()) }
        return try URDecoder.decode(v.string("ur")).cbor
    }

    static let urVectors = vectors.filter {
        $0.optionalString("ur") != nil && !$0.string("id").contains("uppercase-decode-only")
    }
    .map { $0.string("id") }

    /// Every published UR decodes (bytewords checksum, type) to the published CBOR.
    @Test("UR text gives the published CBOR", arguments: urVectors)
    func urText(_ id: String) throws {
        let v = Self.vector(id)
        let text = v.string("ur")
        guard let ur = try? URDecoder.decode(text) else {
            // The one published UR whose body has an odd length (noted in the vector file).
            #expect(throws: URError.self) { try URDecoder.decode(text) }
            return
        }
        #expect(text.lowercased().hasPrefix("ur:\(ur.type)/"))
        if let hex = v.optionalString("cbor_hex") { #expect(Hex.encode(ur.cbor) == hex.lowercased(), "\(id)") }
    }

    @Test func seeds() throws {
        for id in [
            "bcr006-v2-seed", "bcr006-v1-crypto-seed", "bcr005-seed-untagged", "hummingbird-CryptoSeedTest",
            "hummingbird-URSeedTest",
        ] {
            let v = Self.vector(id)
            let seed = try URSeed(cbor: CBOR(decoding: Self.cbor(v)))
            #expect(Hex.encode(seed.payload.bytesCopy) == "c7098580125e2ab0981253468b2dbc52", "\(id)")
        }
        // BCR-2020-006's date is tag 100 (days): 18394 days, read as seconds since the epoch.
        let dated = try URSeed(cbor: CBOR(decoding: Self.cbor(Self.vector("bcr006-v2-seed"))))
        #expect(dated.creationDate.map { Int($0) } == 18394 * 86_400)
        // Written back: seconds with tag 1, keys in order.
        #expect(Hex.encode(URSeed(payload: dated.payload).cbor.encoded) == "a10150c7098580125e2ab0981253468b2dbc52")
        #expect(throws: URError.self) { try URSeed(cbor: .map([(.int(1), .bytes([]))])) }
    }

    @Test func bip39Words_andTheStrayBytesOfThePublishedExample() throws {
        let published = try Self.cbor(Self.vector("bcr006-v1-crypto-bip39"))
        // The example carries 3 bytes after the map (19 47 DA): refused, as any trailing bytes are.
        #expect(throws: CBORError.trailingBytes(count: 3)) { try CBOR(decoding: published) }
        let words = try URBIP39(cbor: CBOR(decoding: Array(published.dropLast(3))))
        #expect(
            String(decoding: words.words.bytesCopy, as: UTF8.self)
                == "shield group erode awake lock sausage cash glare wave crew flame glove")
        #expect(words.language == "en")
    }

    @Test func hdKeys_becomeThePublishedExtendedKeys_andEncodeBackByteForByte() throws {
        let expected: [(String, String)] = [
            ("bcr007-v1-tv1-master", "xprv"), ("bcr007-v2-tv1-master", "xprv"), ("bcr007-v1-tv2-tpub", "tpub"),
            ("bcr007-v2-tv2-tpub", "tpub"), ("keystone-ur-registry-hdkey-m-level", "xpub"),
        ]
        for (id, field) in expected {
            let v = Self.vector(id)
            let cbor = try Self.cbor(v)
            let key = try URHDKey(cbor: CBOR(decoding: cbor))
            let fields = v.object("fields")
            #expect(try key.extendedKey().serialized() == fields.string(field), "\(id)")
            #expect(key.cbor(v2: v.string("type") == "hdkey").encoded == cbor, "\(id) written back")
        }
        // Keystone's Ethereum export: "abandon … about" at m/44'/60'/0', as its utils test has it.
        let eth = try URHDKey(cbor: CBOR(decoding: Self.cbor(Self.vector("keystone-sdk-eth-hdkey"))))
        let xpub = Self.vector("keystone-sdk-eth-utils-xpub").object("fields").string("xpub")
        #expect(try eth.extendedKey().description == xpub)
        #expect(eth.origin?.text == "m/44'/60'/0'" && eth.origin?.sourceFingerprint == 0xE918_1CF3)
        let seed = try Mnemonic(
            phrase: "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
        ).seed()
        let account = try ExtendedKey.master(seed: seed).derive("m/44'/60'/0'").neutered
        #expect(account.description == xpub)

        // kcs's own export of that account, read by urtypes into the same xpub, canonical for cbor2.
        let mine = URHDKey(
            account, path: try DerivationPath("m/44'/60'/0'"), masterFingerprint: 0x73C5_DA0A,
            children: URKeypath(components: [.index(0, hardened: false), .wildcard(hardened: false)]),
            name: "kcs", note: "account.standard")
        let hex = Hex.encode(mine.cbor().encoded)
        #expect(try QROracle.run(["hdkey", hex], script: "ur.py") == xpub + "\n")
        #expect(try QROracle.run(["canonical", hex], script: "ur.py") == "same\n")
        #expect(try URHDKey(cbor: CBOR(decoding: mine.cbor().encoded)).extendedKey().description == xpub)
    }

    @Test func outputs_readAndWrittenBack_andReadByURTypes() throws {
        for id in [
            "bcr010-tv1-pkh-eckey", "bcr010-tv2-sh-wpkh-eckey", "bcr010-tv3-sh-multi-eckey", "bcr010-tv4-pkh-hdkey",
            "bcr010-tv5-wsh-multi-hdkey", "keystone-ur-registry-output-p2pkh-hdkey",
        ] {
            let cbor = try Self.cbor(Self.vector(id))
            let output = try UROutput(cbor: CBOR(decoding: cbor))
            #expect(output.cbor.encoded == cbor, "\(id) written back")
            // urtypes reads kcs's CBOR as the same descriptor: the published one for plain keys; for
            // HD keys the xpub kcs makes of the same map (the BCR example's text and its map disagree
            // on the depth, noted in the vector file).
            let read = try QROracle.run(["output", Hex.encode(output.cbor.encoded)], script: "ur.py")
            if let key = output.hdKey {
                #expect(read.contains(try key.extendedKey().description), "\(id): \(read)")
            } else if case .multi(_, _, let keys) = output.body, case .hd = keys[0] {
                for case .hd(let k) in keys {
                    #expect(read.contains(try k.extendedKey().description), "\(id): \(read)")
                }
            } else if let descriptor = Self.vector(id).object("fields").optionalString("descriptor") {
                #expect(read.hasPrefix(descriptor + "#"), "\(id): \(read)")
            }
        }
        let multi = try UROutput(cbor: CBOR(decoding: Self.cbor(Self.vector("bcr010-tv3-sh-multi-eckey"))))
        #expect(multi.scriptNames == ["sh", "multi"])
        guard case .multi(false, 2, let keys) = multi.body else {
            Issue.record("not a 2-of-n multi")
            return
        }
        #expect(keys.count == 2)
    }

    @Test func accounts_bothWithAndWithoutTag308() throws {
        let current = try Self.cbor(Self.vector("bcr015-current-7-outputs-308-cosigner"))
        let wrapped = try URAccount(cbor: CBOR(decoding: current))
        #expect(wrapped.masterFingerprint == 0x37B5_EED4 && wrapped.outputs.count == 7)
        #expect(wrapped.cbor.encoded == current, "written back as BCR-2020-015 writes it")
        let keystone = try URAccount(
            cbor: CBOR(decoding: Self.cbor(Self.vector("keystone-ur-registry-account-6-outputs"))))
        #expect(keystone.masterFingerprint == 0x37B5_EED4 && keystone.outputs.count == 6)
        #expect(keystone.outputs[0].scriptNames == ["pkh"] && keystone.outputs[1].scriptNames == ["sh", "wpkh"])
        #expect(keystone.outputs[0].hdKey?.origin?.text == "m/44'/0'/0'")
        // urtypes reads kcs's account with the same master fingerprint and outputs.
        let lines = try QROracle.run(["account", Hex.encode(keystone.cbor.encoded)], script: "ur.py").split(
            separator: "\n")
        #expect(lines.first == "37b5eed4" && lines.count == 7)
    }

    /// BCR-2023-019's account-descriptor (version 3 output descriptors with source text), as its
    /// descriptors say: script types and the account xpubs.
    @Test func accountDescriptorV2_readsAsItsPublishedDescriptors() throws {
        let ur =
            "ur:account-descriptor/oeadcyemrewytyaolttantjyoeadiojojeisdefzdydtaolytantjloxaxhdclaxwmfmdeiamecsdsemgtvsjzcncygrkowtrontzschgezokstswkkscfmklrtauteyaahdcxiehfonurdppfyntapejpproypegrdawkgmaewejlsfdtsrfybdehcaflmtrlbdhpamtantjooeadlncsdwykaeykaeykaocyemrewytyaycynlytsnyltantjyoeadjzjkisdektjojeisdefzdydtdtaolytantjloxaxhdclaostvelfemdyynwydwyaievosrgmambklovabdgypdglldvespsthysadamhpmjeinaahdcxntdllnaaeykoytdacygegwhgjsiyonpywmcmrpwphsvodsrerozsbyaxluzcoxdpamtantjooeadlncsehykaeykaeykaocyemrewytyaycypdbskeuytantjyoeadisktjojeisdefzdydtaolytantjloxaxhdclaxzcfxeegdrpmogrgwkbzctlttweadkiengrwlhtprremouoluutqdpfbncedkynfhaahdcxjpwevdeogthttkmeswzcolcpsaahcfnshkhtehytclmnteatmoteadtlwynnftloamtantjooeadlncsghykaeykaeykaocyemrewytyaycybthlvytstantjyoeadjojkisdeiajljkiniojtihjpdefzdydtdtaolytantjloxaxhdclaxhhsnhdrpftdwuocntilydibehnecmovdfekpjkclcslasbhkpawsaddmcmmnahnyaahdcxlotedtndfymyltclhlmtpfsadscnhtztaolbnnkistaedegwfmmedreetnwmcycnamtantjooeadlfcsdpykaocyemrewytyaycyemrewytytantjyoeadkpjkisdektjkisdeiajljkiniojtihjpdefzdydtdtdtaolytantjloxaxhdclaxdwkswmztpytnswtsecnblfbayajkdldeclqzzolrsnhljedsgminetytbnahatbyaahdcxkkguwsvyimjkvwteytwztyswvendtpmncpasfrrylprnhtkblndrgrmkoyjtbkrpamtantjooeadlocsdyykaeykaeykadykaocyemrewytyaycyhkrpnddrtantjyoeadjsktjkisdeiajljkiniojtihjpdefzdydtdtaolytantjloxaxhdclaohnhffmvsbndslrfgclpfjejyatbdpebacnzokotofxntaoemvskpaowmryfnotfgaahdcxdlnbvecentssfsssgylnhkrstoytecrdlyadrekirfaybglahltalsrfcaeerobwamtantjooeadlocsdyykaeykaeykaoykaocyemrewytyaycyhkrpnddrtantjyoeadiyjyjpdefzdydtaolytantjloxaxhdclaorkrhkeytwsoykorletwstbwycagtbsotmeptjkesgwrfcmveskvdmngujzttgtdpaahdcxgrfgmuvyylmwcxjtttechplslgoegagaptdniatidmhdmebdwfryfsnsdkcplyvaamtantjooeadlncshfykaeykaeykaocyemrewytyaycytostatbnyadleoeh"
        let resource = try URDecoder.decode(ur)
        #expect(resource.type == "account-descriptor" && resource.cbor.count == 859, "BCR-2023-019: 859 bytes")
        let account = try URAccount(cbor: CBOR(decoding: resource.cbor))
        #expect(account.masterFingerprint == 0x37B5_EED4)
        #expect(
            account.outputs.map { $0.scriptNames.joined(separator: "/") }
                == ["pkh", "sh/wpkh", "wpkh", "sh/cosigner", "sh/wsh/cosigner", "wsh/cosigner", "tr"])
        let xpubs = try account.outputs.map { try #require($0.hdKey).extendedKey().description }
        #expect(
            xpubs[0]
                == "xpub6CnQkivUEH9bSbWVWfDLCtigKKgnSWGaVSRyCbN2QNBJzuvHT1vUQpgSpY1NiVvoeNEuVwk748Cn9G3NtbQB1aGGsEL7aYEnjVWgjj9tefu"
        )
        #expect(
            xpubs[1]
                == "xpub6CtR1iF4dZPkEyXDwVf3HE74tSwXNMcHtBzX4gwz2UnPhJ54Jz5unHx2syYCCDkvVUmsmoYTmcaHXe1wJppvct4GMMaN5XAbRk7yGScRSte"
        )
        #expect(
            xpubs[3]
                == "xpub68JFLJTH96GUqC6SoVw5c2qyLSt776PGu5xde8ddVACuPYyarvSL827TbZGavuNbKQ8DG3VP9fCXPhQRBgPrS4MPG3zaZgwAGuPHYvVuY9X"
        )
        #expect(
            xpubs[6]
                == "xpub6DAvL2L5bgGSpDygSQUDpjwE47saoMk2rSRtYhN7Dma7HvnFLTXNrcSC1AmEN8G2SCD958bUwgc6Bew4sAFa2kqYynF8Rmu6P5jMt2FDPtm"
        )
        // A source that names no key, or a script kcs does not know, is refused.
        let bad = CBOR.tagged(40308, .map([(.int(1), .text("pkh(@1)")), (.int(2), .array([]))]))
        #expect(throws: URError.self) { try UROutput(cbor: bad) }
        let unknown = CBOR.tagged(40308, .map([(.int(1), .text("miniscript(@0)")), (.int(2), .array([]))]))
        #expect(throws: URError.self) { try UROutput(cbor: unknown) }
    }

    @Test func ethSignRequests_andSignatures() throws {
        let request = try ETHSignRequest(
            cbor: CBOR(decoding: Self.cbor(Self.vector("keystone-sdk-eth-sign-request-legacy-metamask"))))
        #expect(Hex.encode(request.requestID ?? []) == "9b1deb4d3b7d4bad9bdd2b0d7b3dcb6d")
        #expect(request.dataType == .legacyTransaction && request.chainID == 1 && request.origin == "metamask")
        #expect(request.path.text == "m/44'/1'/1'/0/1" && request.path.sourceFingerprint == 0x1234_5678)
        #expect(Hex.encode(request.signData).hasPrefix("f849808609184e72a000822710"))
        for id in [
            "keystone-sdk-eth-sign-request-legacy-metamask", "keystone-sdk-eth-sign-request-legacy-constructETHRequest",
            "keystone-ur-registry-eth-sign-request-no-xfp", "keystone-sdk-eth-signature-origin-keystone",
            "keystone-sdk-eth-signature-no-origin",
        ] {
            let v = Self.vector(id)
            let ur = try URDecoder.decode(v.string("ur"))
            let again =
                ur.type == "eth-signature"
                ? try ETHSignature(cbor: CBOR(decoding: ur.cbor)).cbor
                : try ETHSignRequest(cbor: CBOR(decoding: ur.cbor)).cbor
            #expect(again.encoded == ur.cbor, "\(id) written back")
            #expect(
                try UniformResource(type: ur.type, cbor: again.encoded).singlePart == v.string("ur").lowercased(),
                "\(id)")
        }
        let signature = try ETHSignature(
            cbor: CBOR(
                decoding: URDecoder.decode(Self.vector("keystone-sdk-eth-signature-origin-keystone").string("ur")).cbor)
        )
        #expect(signature.origin == "keystone" && signature.signature.count == 65)
        #expect(throws: URError.self) {
            try ETHSignRequest(cbor: .map([(.int(2), .bytes([1])), (.int(3), .unsigned(9))]))
        }
    }

    @Test func cbor_strictButTolerant() throws {
        // Unsorted keys and a longer-than-needed head are read; the encoder writes the canonical form.
        let loose: [UInt8] = [0xA2, 0x02, 0x61, 0x62, 0x18, 0x01, 0x61, 0x61]
        let item = try CBOR(decoding: loose)
        #expect(item[1] == .text("a") && item[2] == .text("b"))
        #expect(Hex.encode(item.encoded) == "a2016161026162")
        #expect(throws: CBORError.duplicateKey(offset: 3)) { try CBOR(decoding: [0xA2, 0x01, 0x00, 0x01, 0x00]) }
        #expect(throws: CBORError.indefiniteLength(offset: 0)) { try CBOR(decoding: [0x9F, 0xFF]) }
        #expect(throws: CBORError.tooLong(offset: 0)) { try CBOR(decoding: [0x5A, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]) }
        #expect(throws: CBORError.tooLong(offset: 0)) {
            try CBOR(decoding: [0x9B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        }
        #expect(throws: CBORError.invalidUTF8(offset: 0)) { try CBOR(decoding: [0x62, 0xC3, 0x28]) }
        #expect(throws: CBORError.tooDeep(limit: 32)) {
            try CBOR(decoding: [UInt8](repeating: 0x81, count: 40) + [0x00])
        }
        #expect(throws: CBORError.truncated(offset: 2)) { try CBOR(decoding: [0x19, 0x01]) }
        #expect(try CBOR(decoding: [0xF9, 0x3C, 0x00]) == .float(1.0))
        #expect(try CBOR(decoding: [0x3A, 0x00, 0x01, 0x86, 0x9F]) == .int(-100_000))
    }
}
