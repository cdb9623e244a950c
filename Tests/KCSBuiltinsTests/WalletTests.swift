import KCSRuntime
import Testing
import WalletCore

@testable import KCSBuiltins

/// Published vectors (sources in Tests/WalletCoreTests/Vectors: bip39.json, bip32.json,
/// bip44-49-84.json).
enum Vectors {
    /// BIP-39 all-zero entropy, 12 words.
    static let abandon = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
    /// Hardhat / Anvil development mnemonic.
    static let hardhat = "test test test test test test test test test test test junk"
    /// BIP-32 test vector 1.
    static let vector1Seed: [UInt8] = Array(0..<16)
    static let vector1MasterXpub =
        "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8"
    static let vector1MasterXprv =
        "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi"
    static let vector1Child0HXpub =
        "xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw"
}

@Suite struct WalletTests {
    func master(_ phrase: String) throws -> Value { try Call.run("hd.master", [.string(phrase)]) }

    func field(_ v: Value, _ name: String) -> Value? {
        guard case .domain(let d) = v else { return nil }
        return d.field(name)
    }

    // MARK: mnemonic.*

    @Test func mnemonicCheck_validPhrase_reportsWordsAndLanguage() throws {
        #expect(
            try Call.run("mnemonic.check", [.string(Vectors.abandon)])
                == .map(ValueMap([("valid", .bool(true)), ("words", .int(12)), ("language", .string("english"))])))
    }

    @Test func mnemonicCheck_unknownWord_namesItsPosition() {
        let typo = String(repeating: "abandon ", count: 11) + "abot"
        #expect(
            Call.message("mnemonic.check", [.string(typo)])
                == "mnemonic word 12 must be in the english BIP-39 word list, got 'abot'; did you mean 'about'?")
        #expect(
            Call.message("mnemonic.check", [.string("abandon abandon")])
                == "mnemonic must have 12, 15, 18, 21 or 24 words, got 2")
        #expect(
            Call.message("mnemonic.check", [.string(String(repeating: "test ", count: 12))])
                == "mnemonic checksum must match its words, got a mismatch: one of the 12 english words is wrong or out of place"
        )
        #expect(
            Call.message("mnemonic.check", [.string(Vectors.abandon)], [("language", .string("klingon"))])
                == "mnemonic.check: --language must be one of english, japanese, korean, spanish, chinese_simplified, "
                + "chinese_traditional, french, italian, czech, portuguese, got klingon")
    }

    @Test func mnemonicGenerate_givesASecretThatChecks() throws {
        let m = try Call.run("mnemonic.generate", [], [("words", .int(24))])
        guard case .secret(let s) = m else {
            Issue.record("not a secret: \(m.typeName)")
            return
        }
        #expect(s.kind == "mnemonic")
        #expect(m.text == "<secret mnemonic>")
        #expect(
            try Call.run("mnemonic.check", [m])
                == .map(
                    ValueMap([
                        ("valid", .bool(true)), ("words", .int(24)), ("language", .string("english")),
                    ])))
        guard case .string(let words) = try Call.run("reveal", [m]) else {
            Issue.record("reveal")
            return
        }
        #expect(words.split(separator: " ").count == 24)
        #expect(
            Call.message("mnemonic.generate", [], [("words", .int(13))])
                == "mnemonic.generate: --words must be one of 12, 15, 18, 21, 24, got 13")
    }

    @Test func mnemonicSeed_matchesBIP39Vector() throws {
        let seed = try Call.run("mnemonic.seed", [.string(Vectors.abandon)], [("passphrase", .string("TREZOR"))])
        #expect(seed.text == "<secret seed>")
        #expect(seed.json == #""<secret seed>""#)
        #expect(
            try Call.run("reveal", [seed])
                == .string(
                    "0xc55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04"
                ))
    }

    @Test func reveal_showsTheWordsOfAMnemonicSecret() throws {
        let m = try Call.run("mnemonic.generate")
        let words = try Call.run("reveal", [m])
        // Parsing the revealed words gives an equal secret (compared in constant time).
        guard case .string(let phrase) = words else {
            Issue.record("reveal")
            return
        }
        let again = Value.mnemonic(try Mnemonic(phrase: phrase))
        #expect(again == m)
        #expect(again != (try Call.run("mnemonic.generate")))
    }

    // MARK: hd.master, derive, address

    @Test func derive_metamaskFirstAddress_ofAbandonAbout() throws {
        let root = try master(Vectors.abandon)
        let key = try Call.run("derive", [.string("m/44'/60'/0'/0/0")], [("from", root)])
        #expect(field(key, "address")?.text == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        #expect(try Call.run("address", [key]).text == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        #expect(field(key, "path")?.inlineText == "m/44'/60'/0'/0/0")
        #expect(field(key, "depth") == .int(5))
        #expect(field(key, "child") == .string("0"))
    }

    @Test func derive_hardhatAccount0_fromSecretMnemonic() throws {
        let m = Value.mnemonic(try Mnemonic(phrase: Vectors.hardhat))
        let root = try Call.run("hd.master", [m])
        let account = try Call.run("derive", [.string("m/44'/60'/0'")], [("from", root)])
        // A relative path continues the parent's path.
        let key = try Call.run("derive", [Call.run("path.parse", [.string("0/0")])], [("from", account)])
        #expect(try Call.run("address", [key]).text == "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
        #expect(field(key, "path")?.inlineText == "m/44'/60'/0'/0/0")
        #expect(
            field(key, "publicKey")?.text
                == "0x038318535b54105d4a7aae60c08fc45f9687181b4fdfc625bd1a753fa7397fed75")
    }

    @Test func address_bitcoinKinds_followThePathOrTheOption() throws {
        let root = try master(Vectors.abandon)
        let bip84 = try Call.run("derive", [.string("m/84'/0'/0'/0/0")], [("from", root)])
        #expect(
            try Call.run("address", [bip84], [("coin", .string("BTC"))]).text
                == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        let bip49 = try Call.run("derive", [.string("m/49'/1'/0'/0/0")], [("from", root)])
        #expect(
            try Call.run("address", [bip49], [("coin", .int(1)), ("kind", .string("p2sh-p2wpkh"))]).text
                == "2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2")
        #expect(
            Call.message("address", [bip84], [("coin", .string("BTC")), ("kind", .string("p2x"))])
                == "address: --kind must be one of p2pkh, p2sh-p2wpkh, p2wpkh, p2tr, got p2x")
        #expect(
            Call.message("address", [bip84], [("coin", .string("ATOM"))])
                == "address format for ATOM is not supported (derivation still works)")
        #expect(
            Call.message("address", [bip84], [("coin", .string("XMR"))])?.hasPrefix("XMR keys are on ed25519") == true)
        #expect(
            Call.message("address", [bip84], [("coin", .string("NOPE"))])
                == "coin symbol NOPE is not in the SLIP-44 registry")
    }

    @Test func derive_badPath_isThePathError() throws {
        let root = try master(Vectors.abandon)
        #expect(
            Call.message("derive", [.string("m/44'/x")], [("from", root)])
                == #"derivation path segment 2 "x" is invalid: expected digits and an optional hardened marker ' h H, found "x""#
        )
        #expect(
            Call.message("path.parse", [.string("m/2147483648")])
                == #"derivation path segment 1 "2147483648" must be below 2^31 (2147483648); mark hardened indexes with ' instead"#
        )
        let child = try Call.run("derive", [.string("m/0")], [("from", root)])
        #expect(
            Call.message("derive", [.string("m/1")], [("from", child)])
                == "an absolute path (m/…) needs a master key, but this key is at depth 1; use a relative path")
        #expect(
            Call.message("derive", [.string("m/0")])
                == "derive: no current HD key; pass one with --from KEY (e.g. --from (hd.master $m))")
    }

    // MARK: xkey.*

    @Test func xkey_bip32Vector1_roundTrips() throws {
        let root = try Call.run("hd.master", [.bytes(Vectors.vector1Seed)])
        #expect(try Call.run("xkey.encode", [root]) == .string(Vectors.vector1MasterXpub))
        #expect(field(root, "xpub") == .string(Vectors.vector1MasterXpub))
        let child = try Call.run("derive", [.string("m/0h")], [("from", root)])
        #expect(try Call.run("xkey.encode", [child]) == .string(Vectors.vector1Child0HXpub))
        // Decode the xpub and encode it again; a decoded master knows its path.
        let decoded = try Call.run("xkey.decode", [.string(Vectors.vector1MasterXpub)])
        #expect(try Call.run("xkey.encode", [decoded]) == .string(Vectors.vector1MasterXpub))
        #expect(field(decoded, "path")?.inlineText == "m")
        #expect(field(decoded, "private") == .bool(false))
        #expect(
            try Call.run("xkey.encode", [Call.run("derive", [.string("0h")], [("from", root)])])
                == .string(Vectors.vector1Child0HXpub))
        #expect(
            Call.message("derive", [.string("0h")], [("from", decoded)])
                == "hardened child 0' needs the private key, but this is a public extended key")
    }

    @Test func xkeyEncode_private_isASecretAndNeedsTheFlag() throws {
        let root = try Call.run("hd.master", [.bytes(Vectors.vector1Seed)])
        let xprv = try Call.run("xkey.encode", [root], [("private", nil)])
        #expect(xprv.text == "<secret xprv>")
        #expect(try Call.run("reveal", [xprv]) == .string(Vectors.vector1MasterXprv))
        #expect(
            Call.message("xkey.encode", [root], [("version", .string("xprv"))])
                == "xkey.encode: xprv holds the private key; add --private to export it (as a secret)")
        let fromSecret = try Call.run("xkey.decode", [xprv])
        #expect(field(fromSecret, "private") == .bool(true))
        #expect(try Call.run("xkey.encode", [fromSecret]) == .string(Vectors.vector1MasterXpub))
        let decoded = try Call.run("xkey.decode", [.string(Vectors.vector1MasterXpub)])
        #expect(
            Call.message("xkey.encode", [decoded], [("private", nil)])
                == "cannot serialise as xprv: this is a public extended key")
    }

    @Test func xkeyEncode_slip132Versions() throws {
        let root = try master(Vectors.abandon)
        let account = try Call.run("derive", [.string("m/84'/0'/0'")], [("from", root)])
        #expect(
            try Call.run("xkey.encode", [account], [("version", .string("zpub"))])
                == .string(
                    "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs"
                ))
        #expect(
            Call.message("xkey.decode", [.string("xpub123")])?.hasPrefix("extended key is not valid Base58Check")
                == true)
    }

    // MARK: path.parse, coins

    @Test func pathParse_normalisesAndListsComponents() throws {
        let p = try Call.run("path.parse", [.string("m/44h/60H/0'/0/7")])
        #expect(
            p.text == """
                text        m/44'/60'/0'/0/7
                depth       5
                absolute    true
                components  ["44'", "60'", "0'", "0", "7"]
                """)
        #expect(
            p.json == #"{"text":"m/44'/60'/0'/0/7","depth":5,"absolute":true,"components":["44'","60'","0'","0","7"]}"#)
    }

    @Test func coins_looksUpBySymbolOrIndex() throws {
        let eth = try Call.run("coins", [.string("eth")])
        #expect(eth.json == #"{"index":60,"symbol":"ETH","name":"Ether"}"#)
        #expect(try Call.run("coins", [.int(0)]).json == #"{"index":0,"symbol":"BTC","name":"Bitcoin"}"#)
        guard case .list(let all) = try Call.run("coins") else {
            Issue.record("coins")
            return
        }
        #expect(all.count == SLIP44.coins.count)
        #expect(Call.message("coins", [.int(-1)]) == "coins: a coin type must be 0 to 2147483647, got -1")
    }

    @Test func hdMaster_passphraseWithSeed_isRefused() throws {
        let seed = try Call.run("mnemonic.seed", [.string(Vectors.abandon)])
        #expect(
            Call.message("hd.master", [seed], [("passphrase", .string("x"))])
                == "hd.master: --passphrase does not apply here: a seed already includes its passphrase")
        let a = try Call.run("hd.master", [seed])
        let b = try Call.run("hd.master", [.string(Vectors.abandon)])
        #expect(a == b)
        let c = try Call.run("hd.master", [.string(Vectors.abandon)], [("passphrase", .string("TREZOR"))])
        #expect(a != c)
    }
}
