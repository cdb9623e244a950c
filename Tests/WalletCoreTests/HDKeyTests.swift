// BIP-32 keys and derivation paths. Sources: bip32.json — bitcoin/bips bip-0032.mediawiki
// "Test Vectors" 1–5, ethers.js testcases/mnemonics.json.gz (node cases); bip44-49-84.json —
// bitcoin/bips bip-0084/bip-0049 test vectors (SLIP-132 zprv/uprv), NomicFoundation/hardhat
// default accounts. See the `_sources` of Vectors/*.json.
import Foundation
import KCSTestSupport
import Testing
import WalletCore

private let bip32 = Vectors.json("bip32.json")
private let bip44 = Vectors.json("bip44-49-84.json")

/// A (vector, chain row) pair for parameterised tests.
struct ChainCase: Sendable, CustomStringConvertible {
    let vector: Int
    let seed: String
    let row: JSON
    var description: String { "vector \(vector) \(row.string("path"))" }
}

/// BIP-39 seed of a phrase, computed straight from the BIP-39 formula (PBKDF2-HMAC-SHA512,
/// 2048 rounds, salt "mnemonic" + passphrase) so these tests do not depend on the mnemonic type.
func bip39Seed(_ phrase: String, passphrase: String = "") throws -> Secret {
    try KeyDerivation.pbkdf2(
        password: Secret(utf8: phrase), salt: Array(("mnemonic" + passphrase).utf8),
        iterations: 2048, length: 64, prf: .hmacSHA512)
}

@Suite("BIP-32 extended keys")
struct BIP32Tests {
    static let chains: [ChainCase] = bip32.objects("valid").enumerated().flatMap { n, v in
        v.objects("chains").map { ChainCase(vector: n + 1, seed: v.string("seed_hex"), row: $0) }
    }
    static let invalid = bip32.objects("invalid_extended_keys")
    static let ethers = bip32.object("ethers_nodes").objects("cases")

    @Test("test vectors 1–4: derive from the seed and serialise", arguments: chains)
    func derive_bip32Vectors_matchXprvAndXpub(_ c: ChainCase) throws {
        let master = try ExtendedKey.master(seed: Secret(bytes: try Hex.decode(c.seed)))
        let key = try master.derive(c.row.string("path"))
        #expect(try key.serialized() == c.row.string("xprv"))
        #expect(try key.serialized(.xpub) == c.row.string("xpub"))
        #expect(key.publicString == c.row.string("xpub"))
        // Parsing round-trips, and public derivation of the non-hardened tail agrees.
        let parsed = try ExtendedKey(c.row.string("xprv"))
        #expect(try parsed.serialized() == c.row.string("xprv"))
        #expect(try ExtendedKey(c.row.string("xpub")).serialized() == c.row.string("xpub"))
        // The path as written in BIP-32 (H for hardened) parses to the same path.
        #expect(try DerivationPath(c.row.string("path_as_written")) == DerivationPath(c.row.string("path")))
    }

    @Test("test vector 5: each invalid key is refused for its own reason", arguments: invalid)
    func parse_bip32Vector5_rejectedWithReason(_ row: JSON) throws {
        let expected: String =
            switch row.string("reason") {
            case "pubkey version / prvkey mismatch", "prvkey version / pubkey mismatch": "bip32.versionKeyMismatch"
            case let r where r.hasPrefix("invalid pubkey prefix") || r.hasPrefix("invalid prvkey prefix"):
                "bip32.invalidKeyPrefix"
            case "zero depth with non-zero parent fingerprint": "bip32.zeroDepthParentFingerprint"
            case "zero depth with non-zero index": "bip32.zeroDepthChildNumber"
            case "unknown extended key version": "bip32.unknownVersion"
            case let r where r.hasPrefix("private key"): "bip32.privateKeyOutOfRange"
            case let r where r.hasPrefix("invalid pubkey"): "bip32.invalidPublicKey"
            case "invalid checksum": "bip32.encoding"
            default: "unmapped reason \(row.string("reason"))"
            }
        do {
            _ = try ExtendedKey(row.string("key"))
            Issue.record("accepted an invalid key: \(row.string("reason"))")
        } catch {
            #expect(error.id == expected, "\(row.string("reason")): \(error)")
        }
    }

    @Test("ethers.js nodes: fingerprints, chain codes, keys", arguments: ethers)
    func derive_ethersNodes_matchEveryField(_ row: JSON) throws {
        let master = try ExtendedKey.master(seed: Secret(bytes: try Hex.decode(row.string("seed"))))
        for node in row.objects("nodes") {
            let key = try master.derive(node.string("path"))
            let path = node.string("path")
            #expect(Hex.encode(key.chainCode) == normHex(node.string("chainCode")), "\(path)")
            #expect(Int(key.depth) == node.int("depth"), "\(path)")
            #expect(Int(key.childNumber) == node.int("index"), "\(path)")
            #expect(
                String(format: "%08x", key.parentFingerprint) == normHex(node.string("parentFingerprint")), "\(path)")
            #expect(String(format: "%08x", key.fingerprint) == normHex(node.string("fingerprint")), "\(path)")
            #expect(key.publicKey.compressed.hex == normHex(node.string("publicKey")), "\(path)")
            #expect(
                key.privateKey!.secret.withUnsafeBytes { Hex.encode($0) } == normHex(node.string("privateKey")),
                "\(path)")
            #expect(try key.serialized() == node.string("xpriv"), "\(path)")
            #expect(key.publicString == node.string("xpub"), "\(path)")
        }
    }

    @Test func publicDerivation_matchesPrivateDerivation() throws {
        let master = try ExtendedKey.master(seed: Secret(bytes: [UInt8](repeating: 7, count: 32)))
        let account = try master.derive("m/44'/60'/0'/0")
        let viaPublic = try account.neutered.derive("5/7")
        let viaPrivate = try account.derive("5/7")
        #expect(viaPublic.publicKey == viaPrivate.publicKey)
        #expect(viaPublic.publicString == viaPrivate.publicString)
    }

    @Test func hardenedFromPublic_isRefused() throws {
        let xpub = try ExtendedKey(BIP32Tests.chains[0].row.string("xpub"))
        #expect(throws: HDError.hardenedFromPublic(index: "0'")) { try xpub.derive("0'") }
        #expect(
            HDError.hardenedFromPublic(index: "0'").description
                == "hardened child 0' needs the private key, but this is a public extended key")
    }

    @Test func absolutePathFromChild_isRefused() throws {
        let master = try ExtendedKey.master(seed: Secret(bytes: [UInt8](repeating: 1, count: 16)))
        let child = try master.derive("m/1")
        #expect(throws: HDError.pathAbsoluteFromChild(depth: 1)) { try child.derive("m/2") }
    }

    @Test func seedLength_outOfRange_isRefused() {
        #expect(throws: HDError.seedLength(got: 15)) {
            try ExtendedKey.master(seed: Secret(bytes: [UInt8](repeating: 1, count: 15)))
        }
        #expect(throws: HDError.seedLength(got: 65)) {
            try ExtendedKey.master(seed: Secret(bytes: [UInt8](repeating: 1, count: 65)))
        }
    }

    @Test func privateVersionForPublicKey_isRefused() throws {
        let xpub = try ExtendedKey(BIP32Tests.chains[0].row.string("xpub"))
        #expect(throws: HDError.versionNotApplicable(version: "xprv", reason: "this is a public extended key")) {
            try xpub.serialized(.xprv)
        }
    }

    @Test func description_ofPrivateKey_hidesIt() throws {
        let master = try ExtendedKey.master(seed: Secret(bytes: [UInt8](repeating: 1, count: 16)))
        #expect("\(master)" == "<extended private key xprv, depth 0>")
        #expect("\(master.neutered)".hasPrefix("xpub"))
    }
}

@Suite("SLIP-132 and BIP-44/49/84 vectors")
struct SLIP132Tests {
    @Test func bip84_rootAccountAndAddresses_match() throws {
        let v = bip44.object("bip84")
        let master = try ExtendedKey.master(seed: try bip39Seed(v.string("mnemonic")), version: .zprv)
        #expect(try master.serialized() == v.string("rootpriv"))
        #expect(try master.serialized(.zpub) == v.string("rootpub"))
        let account = try master.derive(v.object("account0").string("path"))
        #expect(try account.serialized() == v.object("account0").string("xpriv"))
        #expect(account.publicString == v.object("account0").string("xpub"))
        #expect(try ExtendedKey(v.object("account0").string("xpub")).publicKey == account.publicKey)
        for a in v.objects("addresses") {
            let key = try master.derive(a.string("path"))
            #expect(key.publicKey.compressed.hex == a.string("pubkey"))
            #expect(try BitcoinAddress.make(.p2wpkh, publicKey: key.publicKey) == a.string("address"))
            #expect(
                WIF(privateKey: key.privateKey!).encoded().withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
                    == a.string("privkey_wif"))
        }
    }

    @Test func bip49_testnetRootAccountAndAddress_match() throws {
        let v = bip44.object("bip49")
        let master = try ExtendedKey.master(seed: try bip39Seed(v.string("mnemonic")), version: .uprv)
        #expect(try master.serialized() == v.string("masterseed_uprv"))
        let account = try master.derive(v.object("account0").string("path"))
        #expect(try account.serialized() == v.object("account0").string("xpriv"))
        #expect(account.publicString == v.object("account0").string("xpub"))
        let r = v.object("first_receive")
        let key = try master.derive(r.string("path"))
        #expect(key.privateKey!.secret.withUnsafeBytes { Hex.encode($0) } == normHex(r.string("privkey_hex")))
        #expect(key.publicKey.compressed.hex == normHex(r.string("pubkey_hex")))
        #expect(
            try BitcoinAddress.make(.p2shP2wpkh, publicKey: key.publicKey, network: .testnet) == r.string("address"))
    }

    @Test(
        "Hardhat / Anvil default accounts (m/44'/60'/0'/0/i)",
        arguments: bip44.object("bip44_ethereum_dev_mnemonic").objects("accounts"))
    func bip44_hardhatAccounts_match(_ a: JSON) throws {
        let v = bip44.object("bip44_ethereum_dev_mnemonic")
        let master = try ExtendedKey.master(seed: try bip39Seed(v.string("mnemonic")))
        let key = try master.derive(a.string("path"))
        #expect(key.privateKey!.secret.withUnsafeBytes { Hex.encode($0) } == normHex(a.string("private_key")))
        #expect(EthereumAddress(publicKey: key.publicKey).checksummed == a.string("address"))
        if let xy = a.optionalString("public_key_uncompressed_xy") {
            #expect(Hex.encode(key.publicKey.uncompressed.dropFirst()) == normHex(xy))
        }
        #expect(try PathPreset.metamask.path(UInt32(a.int("index"))).description == a.string("path"))
    }

    // BIP-86 (bitcoin/bips bip-0086.mediawiki), "abandon … about", first receiving address.
    @Test func bip86_firstReceivingAddress_matches() throws {
        let master = try ExtendedKey.master(seed: try bip39Seed(bip44.object("bip84").string("mnemonic")))
        let key = try master.derive("m/86'/0'/0'/0/0")
        #expect(key.publicKey.xOnly.key.bytes.hex == "cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115")
        #expect(
            try BitcoinAddress.make(.p2tr, publicKey: key.publicKey)
                == "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr")
    }
}

@Suite("Derivation paths")
struct DerivationPathTests {
    @Test(arguments: [
        ("m/44'/60'/0'/0/0", "m/44'/60'/0'/0/0"),
        ("m/44h/60H/0'/0/0", "m/44'/60'/0'/0/0"),
        ("M/0", "m/0"),
        ("m", "m"),
        ("0/5", "0/5"),
        ("2147483647'", "2147483647'"),
        (" m/1/2 ", "m/1/2"),
    ])
    func parse_validPaths_printNormalised(_ input: String, _ expected: String) throws {
        #expect(try DerivationPath(input).description == expected)
    }

    @Test func parse_components_haveRawValues() throws {
        let p = try DerivationPath("m/44'/60'/0'/0/7")
        #expect(p.components.map(\.raw) == [0x8000_002C, 0x8000_003C, 0x8000_0000, 0, 7])
        #expect(p.isAbsolute && p.depth == 5)
        #expect(!(try DerivationPath("0/5")).isAbsolute)
    }

    @Test func parse_indexAtLimit_isRefused() {
        #expect(throws: HDError.pathIndexTooLarge(segment: "2147483648", number: 2)) {
            try DerivationPath("m/0/2147483648")
        }
        #expect(
            HDError.pathIndexTooLarge(segment: "2147483648", number: 2).description
                == "derivation path segment 2 \"2147483648\" must be below 2^31 (2147483648); mark hardened indexes with ' instead"
        )
        #expect(throws: HDError.pathIndexTooLarge(segment: "99999999999999999999'", number: 1)) {
            try DerivationPath("m/99999999999999999999'")
        }
    }

    @Test func parse_badHardenedMarkers_areRefused() {
        #expect(
            throws: HDError.pathBadSegment(
                segment: "44''", number: 1, reason: "the hardened marker may appear once, at the end")
        ) {
            try DerivationPath("m/44''")
        }
        #expect(
            throws: HDError.pathBadSegment(
                segment: "'", number: 2, reason: "a hardened marker needs an index before it")
        ) {
            try DerivationPath("m/1/'")
        }
        #expect(
            throws: HDError.pathBadSegment(
                segment: "44x", number: 1,
                reason: "expected digits and an optional hardened marker ' h H, found \"x\"")
        ) {
            try DerivationPath("m/44x")
        }
        #expect(
            HDError.pathBadSegment(segment: "44x", number: 1, reason: "r").description
                == "derivation path segment 1 \"44x\" is invalid: r")
    }

    @Test func parse_emptyAndSlashes_areRefused() {
        #expect(throws: HDError.pathEmpty) { try DerivationPath("") }
        #expect(
            throws: HDError.pathBadSegment(
                segment: "", number: 2, reason: "empty segment (two slashes or a trailing slash)")
        ) {
            try DerivationPath("m/1//2")
        }
        #expect(
            throws: HDError.pathBadSegment(
                segment: "", number: 2, reason: "empty segment (two slashes or a trailing slash)")
        ) {
            try DerivationPath("m/1/")
        }
        #expect(throws: HDError.pathBadSegment(segment: "-1", number: 1, reason: "indexes cannot be negative")) {
            try DerivationPath("m/-1")
        }
    }

    @Test func presets_produceAndRecogniseTheirPaths() throws {
        #expect(try PathPreset.metamask.path(3).description == "m/44'/60'/0'/0/3")
        #expect(try PathPreset.ledgerLive.path(3).description == "m/44'/60'/3'/0/0")
        #expect(try PathPreset.ledgerLegacy.path(3).description == "m/44'/60'/0'/3")
        #expect(try PathPreset.bip84.path(0).description == "m/84'/0'/0'/0/0")
        #expect(try PathPreset.eip1581.path(0).description == "m/43'/60'/1581'/0'/0")
        let matches = PathPreset.matching(try DerivationPath("m/44'/60'/0'/0/0"))
        #expect(matches.map(\.preset.name).sorted() == ["ledger-live", "metamask"])
        #expect(PathPreset.matching(try DerivationPath("m/44'/60'/0'/0/9")).map(\.index) == [9])
        #expect(PathPreset.named("Trezor") == PathPreset.metamask)
        #expect(PathPreset.named("ledger-legacy")?.index(of: try DerivationPath("m/44'/60'/0'/12")) == 12)
    }
}
