// The teaching helpers of the wallet core: BIP-32 derivation traces, extended keys taken apart,
// BIP-39 phrases taken apart, path levels explained, and the offline path search.
// Sources: bip32.json — bitcoin/bips bip-0032.mediawiki "Test Vectors" 1–5, ethers.js
// testcases/mnemonics.json.gz (node cases); bip39.json — trezor/python-mnemonic vectors.json and
// tests/test_mnemonic.py (bad checksum); bip44-49-84.json — bitcoin/bips bip-0084 test vectors,
// NomicFoundation/hardhat default accounts. See the `_sources` of Vectors/*.json.
import KCSTestSupport
import Testing
import WalletCore

private let bip32 = Vectors.json("bip32.json")
private let bip39 = Vectors.json("bip39.json")
private let bip44 = Vectors.json("bip44-49-84.json")

/// The fields of a published serialised key (78-byte payload, checksum already checked).
private struct Published {
    let depth: UInt8
    let parentFingerprint: [UInt8]
    let childNumber: [UInt8]
    let chainCode: [UInt8]
    /// 33 bytes: 00 ‖ k or the compressed public key.
    let keyData: [UInt8]

    init(_ text: String) throws {
        let p = try Base58Check.decode(text)
        #expect(p.count == 78)
        depth = p[4]
        parentFingerprint = Array(p[5..<9])
        childNumber = Array(p[9..<13])
        chainCode = Array(p[13..<45])
        keyData = Array(p[45..<78])
    }

    /// The 32-byte private key of an xprv.
    var privateKey: [UInt8] { Array(keyData.dropFirst()) }
}

private func bytes(_ s: Secret) -> [UInt8] { s.withUnsafeBytes { Array($0) } }

private func be32(_ v: UInt32) -> [UInt8] {
    [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
}

@Suite("BIP-32 derivation traces")
struct BIP32TraceTests {
    /// Checks every step of one published vector: the HMAC key and data, I_L (through
    /// I_L + k_par mod n = k_i and I_L·G + K_par = K_i), I_R = the child chain code, and the
    /// xprv/xpub at each depth. Each vector's chain adds one level per row.
    func checkVector(_ v: JSON) throws {
        let seed = try Hex.decode(v.string("seed_hex"))
        let chains = v.objects("chains")
        let master = try ExtendedKey.tracedMaster(seed: Secret(bytes: seed))
        let m = try Published(chains[0].string("xprv"))
        #expect(master.kind == .master)
        #expect(master.hmacKey == Array("Bitcoin seed".utf8))
        #expect(bytes(master.hmacData) == seed)
        #expect(bytes(master.il) == m.privateKey, "master I_L is the master private key")
        #expect(master.ir == m.chainCode, "master I_R is the master chain code")
        #expect(try master.child.serialized() == chains[0].string("xprv"))
        #expect(master.child.publicString == chains[0].string("xpub"))
        #expect(master.hmacDataIsSecret && master.ilIsSecret)

        var parent = master.child
        var parentRow = chains[0]
        var traced: [DerivationStep] = []
        for row in chains.dropFirst() {
            let path = try DerivationPath(row.string("path"))
            let index = try #require(path.components.last)
            let step = try parent.tracedChild(index, path: path)
            traced.append(step)
            let p = try Published(parentRow.string("xprv")), pPub = try Published(parentRow.string("xpub"))
            let c = try Published(row.string("xprv")), cPub = try Published(row.string("xpub"))
            let label = row.string("path")
            #expect(step.kind == (index.hardened ? .hardened : .normalPrivate), "\(label)")
            #expect(step.serializedIndex == c.childNumber, "\(label): ser32(i)")
            #expect(step.hmacKey == p.chainCode, "\(label): the HMAC key is the parent chain code")
            let data = index.hardened ? [0] + p.privateKey + c.childNumber : pPub.keyData + c.childNumber
            #expect(bytes(step.hmacData) == data, "\(label): HMAC data")
            #expect(step.ir == c.chainCode, "\(label): I_R is the child chain code")
            let k = try PrivateKey(bytes: p.privateKey).adding(tweak: bytes(step.il))
            #expect(bytes(k.secret) == c.privateKey, "\(label): I_L + k_par mod n = k_i")
            #expect(
                try PublicKey(bytes: pPub.keyData).adding(tweak: bytes(step.il)).compressed == cPub.keyData,
                "\(label): point(I_L) + K_par = K_i")
            #expect(step.ilPoint == (try PrivateKey(bytes: bytes(step.il))).publicKey)
            #expect(be32(step.child.parentFingerprint) == c.parentFingerprint, "\(label): parent fingerprint")
            #expect(step.child.depth == c.depth)
            #expect(try step.child.serialized() == row.string("xprv"), "\(label): xprv")
            #expect(step.child.publicString == row.string("xpub"), "\(label): xpub")
            #expect(step.ilIsSecret == index.hardened && step.hmacDataIsSecret == index.hardened)
            parent = step.child
            parentRow = row
        }
        // The whole path at once gives the same steps, and the same key as `derive`.
        let last = try DerivationPath(chains[chains.count - 1].string("path"))
        let whole = try master.child.trace(last)
        #expect(whole.map { try? $0.child.serialized() } == traced.map { try? $0.child.serialized() })
        #expect(whole.map(\.path) == traced.map(\.path))
        #expect(
            try whole.last.map { try $0.child.serialized() } ?? master.child.serialized()
                == master.child.derive(last).serialized())
    }

    @Test func trace_vector1_everyStepMatchesBIP32() throws {
        let v = bip32.objects("valid")[0]
        #expect(v.string("seed_hex") == "000102030405060708090a0b0c0d0e0f")
        try checkVector(v)
        // The master key and chain code inside vector 1's published xprv.
        let master = try ExtendedKey.tracedMaster(
            seed: Secret(bytes: try Hex.decode("000102030405060708090a0b0c0d0e0f")))
        #expect(Hex.encode(bytes(master.il)) == "e8f32e723decf4051aefac8e2c93c9c5b214313817cdb01a1494b917c8436b35")
        #expect(Hex.encode(master.ir) == "873dff81c02f525623fd1fe5167eac3a55a049de3d314bb42ee227ffed37d508")
        // m/0': the chain code of xprv9uHRZZhk6KAJC1av… and fingerprint 3442193e of the master.
        let step = try master.child.tracedChild(ChildIndex(0, hardened: true), path: DerivationPath("m/0'"))
        #expect(Hex.encode(step.ir) == "47fdacbd0f1097043b78c63c20c34ef4ed9a111d980047ad16282c7ae6236141")
        #expect(step.child.parentFingerprint == 0x3442_193e)
        #expect(Hex.encode(step.serializedIndex) == "80000000")
    }

    @Test("test vectors 2–4: every step matches", arguments: 1..<4)
    func trace_vectors2to4_everyStepMatches(_ n: Int) throws {
        try checkVector(bip32.objects("valid")[n])
    }

    @Test func trace_fromVector1Xpub_isPublicDerivation() throws {
        let rows = bip32.objects("valid")[0].objects("chains")
        let start = try ExtendedKey(rows[3].string("xpub"))  // m/0'/1/2'
        let steps = try start.trace(DerivationPath("2/1000000000"))
        #expect(steps.map(\.kind) == [.normalPublic, .normalPublic])
        #expect(steps.map(\.child.publicString) == [rows[4].string("xpub"), rows[5].string("xpub")])
        #expect(steps.map(\.path.description) == ["2", "2/1000000000"])
        #expect(steps.allSatisfy { !$0.ilIsSecret && !$0.hmacDataIsSecret && !$0.child.isPrivate })
        // Below a key whose path is known, the steps carry the full path.
        let based = try start.trace(DerivationPath("2"), base: DerivationPath("m/0'/1/2'"))
        #expect(based.map(\.path.description) == ["m/0'/1/2'/2"])
    }

    @Test func trace_badInput_throwsTheCoresErrors() throws {
        let xpub = try ExtendedKey(bip32.objects("valid")[0].objects("chains")[1].string("xpub"))
        #expect(
            caught { () throws(HDError) in _ = try xpub.trace(DerivationPath("1/2'")) }
                == .hardenedFromPublic(index: "2'"))
        #expect(
            caught { () throws(HDError) in _ = try xpub.trace(DerivationPath("m/1")) }
                == .pathAbsoluteFromChild(depth: 1))
        #expect(
            caught { () throws(HDError) in _ = try ExtendedKey.tracedMaster(seed: Secret(bytes: [1, 2, 3])) }
                == .seedLength(got: 3))
    }

    @Test(
        "ethers.js nodes: the traced key equals the derived one",
        arguments: bip32.object("ethers_nodes").objects("cases").prefix(8))
    func trace_ethersNodes_matchPrivateKeys(_ row: JSON) throws {
        let master = try ExtendedKey.master(seed: Secret(bytes: try Hex.decode(row.string("seed"))))
        for node in row.objects("nodes") {
            let steps = try master.trace(DerivationPath(node.string("path")))
            let key = steps.last?.child ?? master
            #expect(try key.serialized() == node.string("xpriv"), "\(node.string("path"))")
        }
    }
}

@Suite("Extended keys field by field")
struct ExtendedKeyFieldsTests {
    @Test func fields_vector1Child_areThePublishedOnes() throws {
        let row = bip32.objects("valid")[0].objects("chains")[1]  // m/0'
        let f = try ExtendedKeyFields(row.string("xpub"))
        #expect(f.version == .xpub && f.versionValue == 0x0488_B21E)
        #expect(f.depth == 1 && f.parentFingerprint == 0x3442_193e && f.childNumber == 0x8000_0000)
        #expect(Hex.encode(f.chainCode) == "47fdacbd0f1097043b78c63c20c34ef4ed9a111d980047ad16282c7ae6236141")
        #expect(bytes(f.keyData) == (try Published(row.string("xpub"))).keyData)
        #expect(f.checksumValid && f.problem == nil && f.key?.publicString == row.string("xpub"))
        let priv = try ExtendedKeyFields(row.string("xprv"))
        #expect(priv.version == .xprv && priv.keyPrefix == 0 && priv.key?.isPrivate == true)
        #expect(ExtendedKeyVersion.xprv.meaning.hasPrefix("xprv: mainnet private key"))
    }

    @Test func fields_slip132Zpub_namesBIP84() throws {
        let f = try ExtendedKeyFields(bip44.object("bip84").string("rootpub"))
        #expect(f.version == .zpub && f.versionValue == 0x04B2_4746)
        #expect(f.version?.meaning.contains("BIP-84") == true)
        #expect(ExtendedKeyVersion.tpub.network == "testnet")
    }

    @Test(
        "test vector 5: the fields are kept and the problem is the parser's",
        arguments: bip32.objects("invalid_extended_keys"))
    func fields_vector5_problemIsTheStrictParsersError(_ row: JSON) throws {
        let text = row.string("key")
        let strict = caught { () throws(HDError) in _ = try ExtendedKey(text) }
        do {
            let f = try ExtendedKeyFields(text)
            #expect(f.problem == strict, "\(row.string("reason"))")
            #expect(f.problem != nil)
            #expect(f.checksumValid == (row.string("reason") != "invalid checksum"))
        } catch {
            // Only text that is not 82 Base58 bytes is refused outright, as the parser does.
            #expect(error == strict, "\(row.string("reason"))")
        }
    }

    @Test func fields_badCharacterOrLength_areErrors() {
        #expect(caught { () throws(HDError) in _ = try ExtendedKeyFields("xpub0") }?.id == "bip32.encoding")
        #expect(caught { () throws(HDError) in _ = try ExtendedKeyFields("xpub123") }?.id == "bip32.length")
    }
}

@Suite("BIP-39 phrases bit by bit")
struct MnemonicAnatomyTests {
    @Test("trezor english vectors: entropy, indexes and checksum", arguments: bip39.objects("english"))
    func anatomy_englishVectors_giveTheEntropy(_ row: JSON) throws {
        let a = try MnemonicAnatomy(phrase: row.string("mnemonic"))
        #expect(Hex.encode(bytes(a.entropy)) == normHex(row.string("entropy")))
        #expect(a.checksumValid && a.language == .english)
        #expect(a.entropyBits == a.entropy.count * 8 && a.checksumBits == a.entropyBits / 32)
        let list = Wordlist(.english)
        #expect(a.indexes.map { list[$0] } == row.string("mnemonic").split(separator: " ").map(String.init))
        #expect(a.expectedChecksum == a.entropyHash[0] >> (8 - a.checksumBits))
    }

    @Test func anatomy_abandonAbout_lastWordHoldsChecksum0011() throws {
        let a = try MnemonicAnatomy(phrase: String(repeating: "abandon ", count: 11) + "about")
        #expect(a.indexes == Array(repeating: 0, count: 11) + [3])
        #expect(MnemonicAnatomy.bits(3) == "00000000011")
        #expect(a.checksum == 0b0011 && MnemonicAnatomy.bits(a.checksum, count: 4) == "0011")
        #expect(Hex.encode(a.entropyHash) == "374708fff7719dd5979ec875d56cd2286f6d3cf7ec317a3b25632aab28ec37bb")
    }

    @Test func anatomy_badChecksum_isExplainedNotThrown() throws {
        let phrase = bip39.objects("invalid_checksum")[0].string("mnemonic")
        #expect(caught { () throws(MnemonicError) in _ = try Mnemonic(phrase: phrase) }?.id == "mnemonic.checksum")
        let a = try MnemonicAnatomy(phrase: phrase)
        #expect(!a.checksumValid && a.checksum != a.expectedChecksum)
        #expect(
            caught { () throws(MnemonicError) in
                _ = try MnemonicAnatomy(phrase: String(repeating: "abandon ", count: 11) + "abot")
            }?.id
                == "mnemonic.unknownWord")
        #expect(
            caught { () throws(MnemonicError) in _ = try MnemonicAnatomy(phrase: "abandon about") }?.id
                == "mnemonic.wordCount")
    }
}

@Suite("Path levels explained")
struct PathExplanationTests {
    @Test func levels_bip44Ethereum_namesEachRole() throws {
        let levels = PathExplanation.levels(of: try DerivationPath("m/44'/60'/0'/0/0"))
        #expect(levels.map(\.role) == ["purpose", "coin type", "account", "change", "address index"])
        #expect(levels.map(\.raw) == [0x8000_002C, 0x8000_003C, 0x8000_0000, 0, 0])
        #expect(levels[0].meaning.hasPrefix("purpose 44 = BIP-44"))
        #expect(levels[1].meaning == "coin type 60 = ETH (Ether) in SLIP-44")
        #expect(levels[3].meaning == "change 0 = external chain (receiving addresses)")
    }

    @Test func levels_otherLayouts() throws {
        let legacy = PathExplanation.levels(of: try DerivationPath("m/44'/60'/0'/1"))
        #expect(legacy[3].meaning.contains("Ledger legacy / MEW use this level as address index 1"))
        let eip1581 = PathExplanation.levels(of: try DerivationPath("m/43'/60'/1581'/0'/0"))
        #expect(eip1581.map(\.role) == ["purpose", "coin type", "subpurpose", "key type", "key index"])
        #expect(PathExplanation.levels(of: try DerivationPath("m/84'/0'/0'/0/0"))[0].meaning.contains("BIP-84"))
        let soft = PathExplanation.levels(of: try DerivationPath("m/44'/60'/0/0/0"))
        #expect(soft[2].meaning == "account 0 (the first); BIP-44 hardens this level (0')")
        let unknown = PathExplanation.levels(of: try DerivationPath("m/44/60"))
        #expect(unknown.map(\.role) == ["child", "child"])
        #expect(unknown[0].meaning.contains("a purpose is always hardened"))
        #expect(PathExplanation.levels(of: try DerivationPath("0/5")).map(\.meaning) == ["child 0", "child 5"])
    }
}

@Suite("Finding the path of an address")
struct PathSearchTests {
    static let abandon = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

    func master(_ phrase: String) throws -> ExtendedKey {
        try ExtendedKey.master(seed: try Mnemonic(phrase: phrase).seed())
    }

    @Test func search_abandonFirstEthereumAddress_isMetaMaskIndex0() throws {
        let target = try #require(try PathSearch.Target.parse("0x9858EfFD232B4033E47d90003D41EC34EcaEda94"))
        let found = try PathSearch.search(target, master: master(Self.abandon), maxIndex: 20)
        #expect(found.path?.description == "m/44'/60'/0'/0/0" && found.searched == 1)
        #expect(found.presets.map(\.name) == ["metamask", "ledger-live", "ledger-legacy"])
    }

    @Test("hardhat default accounts: m/44'/60'/0'/0/i", arguments: [0, 7, 19])
    func search_hardhatAccounts_foundAtTheirIndex(_ i: Int) throws {
        let v = bip44.object("bip44_ethereum_dev_mnemonic")
        let target = try #require(try PathSearch.Target.parse(v.objects("accounts")[i].string("address")))
        let found = try PathSearch.search(target, master: master(v.string("mnemonic")), maxIndex: 20)
        #expect(found.path?.description == "m/44'/60'/0'/0/\(i)")
    }

    @Test(
        "BIP-84 vector addresses, the change address from the account grid",
        arguments: bip44.object("bip84").objects("addresses"))
    func search_bip84Addresses_foundAtTheirPath(_ row: JSON) throws {
        let target = try #require(try PathSearch.Target.parse(row.string("address")))
        guard case .bitcoin(.p2wpkh, _) = target else {
            Issue.record("not P2WPKH: \(target)")
            return
        }
        let found = try PathSearch.search(target, master: master(Self.abandon), maxIndex: 3)
        #expect(found.path?.description == row.string("path"))
    }

    @Test func search_notFound_countsEveryPathOnce() throws {
        let target = try #require(try PathSearch.Target.parse("0x0000000000000000000000000000000000000001"))
        let found = try PathSearch.search(target, master: master(Self.abandon), maxIndex: 1)
        // Presets: 3 × 2 paths, m/44'/60'/0'/0/0 twice → 5; grid 2 × 2 × 2 = 8, 3 already seen → 5.
        #expect(found.path == nil && found.searched == 10)
        #expect(found.grid == "m/44'/60'/{account}'/{0,1}/{index}")
    }

    @Test func parse_recognisesKindsAndRefusesBadText() throws {
        #expect(
            try PathSearch.Target.parse("1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA")
                == .bitcoin(.p2pkh, "1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA"))
        #expect(
            try PathSearch.Target.parse("BC1QCR8TE4KR609GCAWUTMRZA0J4XV80JY8Z306FYU")
                == .bitcoin(.p2wpkh, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"))
        #expect(try PathSearch.Target.parse("hello") == nil)
        #expect(
            (caught { _ = try PathSearch.Target.parse("0x9858efFD232B4033E47d90003D41EC34EcaEda94") } as? AddressError)?
                .id
                == "address.ethereum.badChecksum")
        #expect(caught { _ = try PathSearch.Target.parse("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv") } != nil)
    }
}
