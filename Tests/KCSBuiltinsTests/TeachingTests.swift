// The teaching commands (issue 8 §2): path.explain, mnemonic.explain, xkey.explain,
// presets.compare, path.find and derive --trace, checked against published vectors:
// BIP-32 test vector 1 (bitcoin/bips bip-0032.mediawiki), the trezor/python-mnemonic BIP-39
// vectors, BIP-84's test vector addresses and the abandon…about address 0x9858…da94 at
// m/44'/60'/0'/0/0. The vector files are in Tests/WalletCoreTests/Vectors.
import Foundation
import KCSErrors
import KCSRuntime
import Testing
import WalletCore
import WalletCrypto

@testable import KCSBuiltins

/// Reading the reports the teaching commands return.
enum Teach {
    /// The rows of a report (or any domain value), in order.
    static func rows(_ v: Value) -> [(name: String, value: Value)] {
        guard case .domain(let d) = v else { return [] }
        return d.fields
    }

    /// The row called `name`.
    static func row(_ v: Value, _ name: String) -> Value? { rows(v).first { $0.name == name }?.value }

    /// A trace row: the path, then (after the padding) the label.
    static func step(_ v: Value, _ path: String, _ label: String) -> Value? {
        rows(v).first { row in
            let parts = row.name.split(separator: " ", maxSplits: 1)
            return parts.count == 2 && parts[0] == path && parts[1].trimmingCharacters(in: .whitespaces) == label
        }?.value
    }

    /// The value inside an explained value (or the value itself).
    static func inner(_ v: Value?) -> Value? {
        if case .domain(let e as ExplainedValue)? = v { return e.value }
        return v
    }

    /// The field `name` of a domain value.
    static func field(_ v: Value?, _ name: String) -> Value? {
        guard case .domain(let d)? = v else { return nil }
        return d.field(name)
    }

    /// The error id a call stops with, or nil.
    static func errorID(_ name: String, _ args: [Value] = [], _ options: [(String, Value?)] = []) -> String? {
        do {
            _ = try Call.run(name, args, options)
            return nil
        } catch {
            return (error as? any IdentifiableError)?.id ?? "\(error)"
        }
    }

    static func hex(_ s: String) -> Value { .bytes((try? Hex.decode(s)) ?? []) }

    /// The BIP-39 vector file of the wallet core's tests.
    static let bip39: [[String: String]] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("WalletCoreTests/Vectors/bip39.json")
        guard let data = FileManager.default.contents(atPath: url.path),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let english = json["english"] as? [[String: Any]]
        else { fatalError("bip39.json missing") }
        return english.map { row in row.compactMapValues { $0 as? String } }
    }()
}

/// BIP-32 test vector 1 (seed 000102…0f): the published keys along m/0'/1.
private enum Vector1 {
    static let seed = Value.bytes(Array(0..<16))
    static let masterXprv = Vectors.vector1MasterXprv
    static let child0HXprv =
        "xprv9uHRZZhk6KAJC1avXpDAp4MDc3sQKNxDiPvvkX8Br5ngLNv1TxvUxt4cV1rGL5hj6KCesnDYUhd7oWgT11eZG7XnxHrnYeSvkzY7d2bhkJ7"
    static let child0H1Xprv =
        "xprv9wTYmMFdV23N2TdNG573QoEsfRrWKQgWeibmLntzniatZvR9BmLnvSxqu53Kw1UmYPxLgboyZQaXwTCg8MSY3H2EU4pWcQDnRnrVA1xe8fs"
    static let child0H1Xpub =
        "xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ"

    /// The private key inside a published xprv, as hex.
    static func privateKeyHex(_ xprv: String) throws -> String {
        let key = try #require(try ExtendedKey(xprv).privateKey)
        return key.secret.withUnsafeBytes { Hex.encode($0) }
    }

    /// The chain code inside a published key.
    static func chainCode(_ text: String) throws -> [UInt8] { try ExtendedKey(text).chainCode }
}

@Suite struct TeachingTests {
    // MARK: path.explain

    @Test func pathExplain_bip44Ethereum_oneRowPerLevelAndThePresets() throws {
        let e = try Call.run("path.explain", [.string("m/44'/60'/0'/0/0")])
        #expect(e.typeName == "explanation")
        #expect(
            Teach.rows(e).map(\.name) == [
                "path", "m/44'", "m/44'/60'", "m/44'/60'/0'", "m/44'/60'/0'/0",
                "m/44'/60'/0'/0/0", "presets",
            ])
        let coin = Teach.row(e, "m/44'/60'")
        #expect(Teach.field(coin, "raw") == Teach.hex("0x8000003c"))
        #expect(Teach.field(coin, "hardened") == .bool(true) && Teach.field(coin, "index") == .int(60))
        #expect(Teach.field(coin, "role") == .string("coin type"))
        #expect(Teach.field(Teach.row(e, "m/44'/60'/0'/0"), "raw") == Teach.hex("0x00000000"))
        guard case .list(let presets)? = Teach.row(e, "presets") else {
            Issue.record("no presets")
            return
        }
        #expect(presets.map(\.inlineText) == ["metamask (address 0)", "ledger-live (account 0)"])
        #expect(
            e.text.split(separator: "\n")[2]
                == "m/44'/60'         60'  0x8000003c  = 0x80000000 + 60  coin type 60 = ETH (Ether) in SLIP-44")
    }

    @Test func pathExplain_ledgerLegacy_wholeText() throws {
        let e = try Call.run("path.explain", [.string("m/44h/60h/0h/1")])
        #expect(
            e.text == """
                path            m/44'/60'/0'/1
                m/44'           44'  0x8000002c  = 0x80000000 + 44  purpose 44 = BIP-44 multi-account hierarchy (P2PKH for Bitcoin; Ethereum wallets use it too)
                m/44'/60'       60'  0x8000003c  = 0x80000000 + 60  coin type 60 = ETH (Ether) in SLIP-44
                m/44'/60'/0'    0'   0x80000000  = 0x80000000 + 0   account 0 (the first)
                m/44'/60'/0'/1  1    0x00000001  (not hardened)     change 1 = internal chain (change addresses); Ledger legacy / MEW use this level as address index 1
                presets         [ledger-legacy (address 1)]
                """)
    }

    @Test func pathExplain_badPath_namesTheSegment() {
        #expect(Teach.errorID("path.explain", [.string("m/44'/2147483648")]) == "path.indexTooLarge")
        #expect(
            Call.message("path.explain", [.string("m/44'/60''")])
                == "derivation path segment 2 \"60''\" is invalid: the hardened marker may appear once, at the end")
    }

    // MARK: mnemonic.explain

    @Test("trezor BIP-39 vectors: entropy, word indexes, checksum", arguments: Teach.bip39)
    func mnemonicExplain_englishVectors(_ row: [String: String]) throws {
        let phrase = try #require(row["mnemonic"]), entropy = try #require(row["entropy"])
        let e = try Call.run("mnemonic.explain", [.string(phrase)])
        let words = phrase.split(separator: " ").map(String.init)
        #expect(Teach.row(e, "entropy") == Teach.hex(entropy))
        #expect(Teach.row(e, "valid") == .bool(true))
        #expect(Teach.inner(Teach.row(e, "words")) == .int(words.count))
        #expect(Teach.inner(Teach.row(e, "entropyBits")) == .int(entropy.count * 4))
        #expect(Teach.inner(Teach.row(e, "checksumBits")) == .int(entropy.count * 4 / 32))
        let list = Wordlist(.english)
        for (n, w) in words.enumerated() {
            let word = Teach.row(e, "word \(n + 1)")
            #expect(Teach.field(word, "word") == .string(w))
            #expect(Teach.field(word, "index") == .int(list.index(of: w) ?? -1))
            guard case .string(let bits)? = Teach.field(word, "bits") else {
                Issue.record("bits")
                continue
            }
            #expect(Int(bits.filter { $0 != "|" }, radix: 2) == list.index(of: w))
        }
    }

    @Test func mnemonicExplain_abandonAbout_checksumIsTheLastFourBits() throws {
        let e = try Call.run("mnemonic.explain", [.string(Vectors.abandon)])
        #expect(Teach.row(e, "word 12")?.inlineText == "about       3  0000000|0011")
        #expect(Teach.row(e, "word 1")?.inlineText == "abandon     0  00000000000")
        #expect(Teach.inner(Teach.row(e, "checksum")) == .string("0011"))
        #expect(
            Teach.row(e, "checksum")?.inlineText
                == "0011  the bits after | in word 12; SHA-256(entropy) starts 0x37 = 00110111, its first 4 bits 0011 match: valid"
        )
        #expect(
            Teach.inner(Teach.row(e, "sha256"))
                == Teach.hex("374708fff7719dd5979ec875d56cd2286f6d3cf7ec317a3b25632aab28ec37bb"))
    }

    @Test func mnemonicExplain_badChecksum_isExplainedAsInvalid() throws {
        // trezor/python-mnemonic test_failed_checksum.
        let e = try Call.run(
            "mnemonic.explain", [.string("bless cloud wheel regular tiny venue bird web grief security dignity zoo")])
        #expect(Teach.row(e, "valid") == .bool(false))
        #expect(Teach.row(e, "checksum")?.inlineText.hasSuffix("invalid, a word is wrong or out of place") == true)
    }

    @Test func mnemonicExplain_secretNeedsReveal_typosAreErrors() throws {
        let m = Value.mnemonic(try Mnemonic(phrase: Vectors.abandon))
        #expect(Teach.errorID("mnemonic.explain", [m]) == "teaching.secretNeedsReveal")
        #expect(
            Call.message("mnemonic.explain", [m]) == "mnemonic.explain: argument 1 (mnemonic) is a secret value and "
                + "explaining it shows its words and entropy; add --reveal to show them")
        #expect(Teach.row(try Call.run("mnemonic.explain", [m], [("reveal", nil)]), "valid") == .bool(true))
        #expect(
            Call.message("mnemonic.explain", [.string(String(repeating: "abandon ", count: 11) + "abot")])
                == "mnemonic word 12 must be in the english BIP-39 word list, got 'abot'; did you mean 'about'?")
        #expect(Teach.errorID("mnemonic.explain", [.string("abandon about")]) == "mnemonic.wordCount")
        #expect(
            Teach.errorID("mnemonic.explain", [.string(Vectors.abandon)], [("language", .string("french"))])
                == "mnemonic.wrongLanguage")
        #expect(
            Teach.errorID("mnemonic.explain", [.string(Vectors.abandon)], [("language", .string("klingon"))])
                == "builtin.badChoice")
    }

    // MARK: derive --trace

    func trace(_ path: String, from: Value = Vector1.seed, reveal: Bool = false) throws -> Value {
        try Call.run("derive", [.string(path)], [("from", from), ("trace", nil)] + (reveal ? [("reveal", nil)] : []))
    }

    @Test func deriveTrace_vector1_stepsMatchThePublishedKeys() throws {
        let t = try trace("m/0'/1")
        #expect(t.typeName == "trace")
        // Depth 0: I = HMAC-SHA512("Bitcoin seed", seed); I_R is the master chain code.
        #expect(Teach.step(t, "m", "I_R = master chain code c") == .bytes(try Vector1.chainCode(Vector1.masterXprv)))
        #expect(Teach.step(t, "m", "xpub") == .string(Vectors.vector1MasterXpub))
        // m/0': hardened, the HMAC key is the master chain code; I_R is the child chain code.
        #expect(Teach.step(t, "m/0'", "parent fingerprint = HASH160(K_par)[0:4]") == Teach.hex("3442193e"))
        #expect(Teach.inner(Teach.step(t, "m/0'", "index i = ser32(i)")) == Teach.hex("80000000"))
        #expect(
            Teach.step(t, "m/0'", "HMAC-SHA512 key = c_par (parent chain code)")
                == .bytes(try Vector1.chainCode(Vector1.masterXprv)))
        #expect(Teach.step(t, "m/0'", "I_R = I[32:64]") == .bytes(try Vector1.chainCode(Vector1.child0HXprv)))
        #expect(Teach.step(t, "m/0'", "c_i = I_R (chain code)") == .bytes(try Vector1.chainCode(Vector1.child0HXprv)))
        #expect(Teach.step(t, "m/0'", "xpub") == .string(Vectors.vector1Child0HXpub))
        // m/0'/1: normal, so its I_L is shown (the parent xpub gives it to anyone).
        #expect(Teach.step(t, "m/0'/1", "I_R = I[32:64]") == .bytes(try Vector1.chainCode(Vector1.child0H1Xprv)))
        #expect(Teach.step(t, "m/0'/1", "xpub") == .string(Vector1.child0H1Xpub))
        #expect(Teach.step(t, "m/0'/1", "I_L = I[0:32]").map { if case .bytes = $0 { true } else { false } } == true)
        #expect(
            Teach.step(t, "m/0'/1", "HMAC-SHA512 data = serP(K_par) ‖ ser32(i)")
                == Teach.hex("035a784662a4a20a65bf6aab9ae98a6c068a81c52e4b032c0fb5400c706cfccc5600000001"))
    }

    @Test func deriveTrace_masksPrivateMaterial_unlessRevealed() throws {
        let t = try trace("m/0'/1")
        let secrets = [
            try Vector1.privateKeyHex(Vector1.masterXprv), try Vector1.privateKeyHex(Vector1.child0HXprv),
            try Vector1.privateKeyHex(Vector1.child0H1Xprv), Vector1.masterXprv, Vector1.child0HXprv,
            Vector1.child0H1Xprv,
            "000102030405060708090a0b0c0d0e0f",
        ]
        for text in [t.text, t.json, Value.list([t]).text] {
            for s in secrets {
                #expect(!text.lowercased().contains(s.lowercased()), "a masked trace shows \(s.prefix(12))…")
            }
        }
        #expect(
            Teach.step(t, "m/0'", "k_i = I_L + k_par mod n")?.inlineText
                == "<masked private key k_i (32 bytes); --reveal shows it>")
        #expect(
            Teach.step(t, "m/0'", "HMAC-SHA512 data = 0x00 ‖ k_par ‖ ser32(i)")?.inlineText
                == "0x00 ‖ <masked k_par (32 bytes); --reveal shows it> ‖ 0x80000000")
        #expect(
            Teach.step(t, "m", "HMAC-SHA512 data = seed S")?.inlineText == "<masked seed (16 bytes); --reveal shows it>"
        )

        let r = try trace("m/0'/1", reveal: true)
        #expect(
            Teach.step(r, "m", "I_L = master private key k") == Teach.hex(try Vector1.privateKeyHex(Vector1.masterXprv))
        )
        #expect(
            Teach.step(r, "m/0'", "k_i = I_L + k_par mod n")
                == Teach.hex(try Vector1.privateKeyHex(Vector1.child0HXprv)))
        #expect(
            Teach.step(r, "m/0'/1", "k_i = I_L + k_par mod n")
                == Teach.hex(try Vector1.privateKeyHex(Vector1.child0H1Xprv)))
        #expect(Teach.step(r, "m", "xprv") == .string(Vector1.masterXprv))
        #expect(Teach.step(r, "m/0'", "xprv") == .string(Vector1.child0HXprv))
        #expect(Teach.step(r, "m/0'/1", "xprv") == .string(Vector1.child0H1Xprv))
        #expect(
            Teach.step(r, "m/0'", "HMAC-SHA512 data = 0x00 ‖ k_par ‖ ser32(i)")
                == Teach.hex("00" + (try Vector1.privateKeyHex(Vector1.masterXprv)) + "80000000"))
    }

    @Test func deriveTrace_fromAnXpub_isPublicDerivation() throws {
        let xpub = try Call.run("xkey.decode", [.string(Vectors.vector1Child0HXpub)])
        let t = try trace("1", from: xpub)
        #expect(Teach.step(t, "…", "start key (xpub)") == .string(Vectors.vector1Child0HXpub))
        #expect(Teach.step(t, "…/1", "xpub") == .string(Vector1.child0H1Xpub))
        #expect(Teach.step(t, "…/1", "K_i = I_L·G + K_par (public key)") != nil)
        #expect(Teach.step(t, "…/1", "xprv") == nil)
        #expect(
            Teach.errorID("derive", [.string("1'")], [("from", xpub), ("trace", nil)]) == "bip32.hardenedFromPublic")
    }

    @Test func deriveTrace_fromAMnemonic_endsAtTheKnownAddress() throws {
        let t = try trace("m/44'/60'/0'/0/0", from: .string(Vectors.abandon))
        #expect(
            Teach.step(t, "m/44'/60'/0'/0/0", "address (ETH)")?.inlineText
                == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        // Plain derive takes the same --from values.
        let key = try Call.run("derive", [.string("m/44'/60'/0'/0/0")], [("from", .string(Vectors.abandon))])
        #expect(Teach.field(key, "address")?.inlineText == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        let m = Value.mnemonic(try Mnemonic(phrase: Vectors.abandon))
        let fromSecret = try Call.run("derive", [.string("m/44'/60'/0'/0/0")], [("from", m)])
        #expect(Teach.field(fromSecret, "address")?.inlineText == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
    }

    @Test func deriveTrace_badUse_namesTheOption() {
        #expect(
            Teach.errorID("derive", [.string("m/0")], [("from", Vector1.seed), ("reveal", nil)])
                == "builtin.optionNotApplicable")
        #expect(
            Call.message("derive", [.string("m/0")], [("from", Vector1.seed), ("reveal", nil)])
                == "derive: --reveal does not apply here: it goes with --trace (derive PATH --trace --reveal)")
        #expect(Teach.errorID("derive", [.string("m/0")], [("trace", nil)]) == "builtin.noCurrentKey")
        #expect(
            Teach.errorID("derive", [.string("m/0")], [("from", .bytes([1, 2])), ("trace", nil)]) == "bip32.seedLength")
    }

    @Test func deriveFrom_badSources_areTheCoresErrors() throws {
        let t: (String, Value?) = ("trace", nil)
        #expect(
            Teach.errorID("derive", [.string("m/0")], [("from", .string(Vectors.vector1Child0HXpub)), t])
                == "path.absoluteFromChild")
        #expect(Teach.errorID("derive", [.string("0")], [("from", .string("xpub-not-a-key")), t]) == "bip32.encoding")
        #expect(Teach.errorID("derive", [.string("0")], [("from", .string("xpub-not-a-key"))]) == "bip32.encoding")
        #expect(
            Teach.errorID("derive", [.string("m/0")], [("from", .string("abandon abandon")), t]) == "mnemonic.wordCount"
        )
        #expect(
            Teach.errorID(
                "derive", [.string("m/0")], [("from", SecretKind.xprv.value(Secret(bytes: [0xff, 0xfe]))), t])
                == "builtin.secretNotText")
        // A secret xprv (blanks around it, as pasted) starts a trace as its text does.
        let xprv = SecretKind.xprv.value(Secret(bytes: Array(" \(Vector1.masterXprv)\n".utf8)))
        let r = try trace("m/0'", from: xprv)
        #expect(Teach.step(r, "m", "start key (xpub)") == .string(Vectors.vector1MasterXpub))
        #expect(Teach.step(r, "m/0'", "xpub") == .string(Vectors.vector1Child0HXpub))
    }

    @Test func deriveTrace_activeSigner_softwareTracesAndCardRefuses() throws {
        let f = try CardFixture()
        try f.run(
            """
            import mnemonic "\(Vectors.abandon)" --name demo
            import privkey 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318 --name raw
            use key demo-0
            """)
        let lines = try f.lines("print (derive \"m/44'/60'/0'/0/0\" --trace)")
        #expect(lines.last?.hasPrefix("m/44'/60'/0'/0/0  address (ETH) ") == true)
        #expect(lines.last?.hasSuffix(" 0x9858EfFD232B4033E47d90003D41EC34EcaEda94") == true)
        #expect(lines.first?.hasPrefix("m  ") == true, "the trace starts at the master key's HMAC step")
        #expect(f.errorID("use key raw\nderive \"m/0\" --trace") == "teaching.traceNeedsHDKey")
        #expect(
            f.errorID("card.load mnemonic \"\(CardFixture.legalWinner)\" --name kc\nuse card\nderive \"m/0\" --trace")
                == "builtin.optionNotApplicable")
        do {
            try f.run("derive \"m/44'/60'/0'/0/0\" --trace")
            Issue.record("a card traced")
        } catch {
            #expect("\(error)".contains("derive: --trace does not apply here: the active signer kc is a card key"))
        }
    }

    // MARK: xkey.explain

    @Test func xkeyExplain_vector1Child_fieldByField() throws {
        let e = try Call.run("xkey.explain", [.string(Vectors.vector1Child0HXpub)])
        #expect(
            Teach.rows(e).map(\.name) == [
                "version", "depth", "parentFingerprint", "childNumber", "chainCode", "key",
                "checksum", "fingerprint", "layout", "valid",
            ])
        #expect(Teach.inner(Teach.row(e, "version")) == Teach.hex("0488b21e"))
        #expect(
            Teach.field(Teach.row(e, "version"), "meaning")
                == .string("xpub: mainnet public key, BIP-32 / BIP-44: P2PKH, or any script (Ethereum uses these)"))
        #expect(Teach.inner(Teach.row(e, "depth")) == .int(1))
        #expect(Teach.inner(Teach.row(e, "parentFingerprint")) == Teach.hex("3442193e"))
        #expect(Teach.row(e, "childNumber")?.inlineText == "0x80000000  0x80000000 + 0: hardened child 0'")
        #expect(Teach.row(e, "chainCode") == .bytes(try Vector1.chainCode(Vector1.child0HXprv)))
        #expect(
            Teach.row(e, "checksum")?.inlineText.hasSuffix("valid: SHA-256(SHA-256(the 78 bytes before it))[0:4]")
                == true)
        #expect(Teach.inner(Teach.row(e, "fingerprint")) == Teach.hex("5c1bd648"))
        #expect(Teach.row(e, "valid") == .bool(true))
    }

    @Test func xkeyExplain_xprv_masksTheKeyUnlessRevealed() throws {
        let e = try Call.run("xkey.explain", [.string(Vector1.child0HXprv)])
        let k = try Vector1.privateKeyHex(Vector1.child0HXprv)
        #expect(!e.text.contains(k) && !e.json.contains(k))
        #expect(Teach.row(e, "key")?.inlineText == "0x00 ‖ <masked private key k (32 bytes); --reveal shows it>")
        #expect(
            Teach.inner(Teach.row(e, "publicKey"))
                == Teach.hex("035a784662a4a20a65bf6aab9ae98a6c068a81c52e4b032c0fb5400c706cfccc56"))
        let r = try Call.run("xkey.explain", [.string(Vector1.child0HXprv)], [("reveal", nil)])
        #expect(Teach.inner(Teach.row(r, "key")) == Teach.hex("00" + k))
    }

    @Test func xkeyExplain_badChecksum_isShownInvalid() throws {
        var text = Vectors.vector1MasterXpub
        text.removeLast()
        text += "9"
        let e = try Call.run("xkey.explain", [.string(text)])
        #expect(Teach.row(e, "valid") == .bool(false))
        #expect(Teach.row(e, "checksum")?.inlineText.contains("invalid") == true)
        #expect(Teach.row(e, "problem")?.inlineText.contains("not valid Base58Check") == true)
        #expect(Teach.errorID("xkey.explain", [.string("xpub123")]) == "bip32.length")
    }

    @Test func xkeyExplain_secretXprvAndBadText() throws {
        let xprv = SecretKind.xprv.value(Secret(bytes: Array(" \(Vector1.child0HXprv)\n".utf8)))
        let e = try Call.run("xkey.explain", [xprv])
        #expect(Teach.row(e, "valid") == .bool(true))
        #expect(Teach.row(e, "key")?.inlineText == "0x00 ‖ <masked private key k (32 bytes); --reveal shows it>")
        #expect(
            Teach.errorID("xkey.explain", [SecretKind.xprv.value(Secret(bytes: [0xff]))]) == "builtin.secretNotText")
        #expect(Teach.errorID("xkey.explain", [.string("0OIl")]) == "bip32.encoding")
    }

    // MARK: presets.compare

    @Test func presetsCompare_abandon_sideBySideIndexByIndex() throws {
        let v = try Call.run("presets.compare", [.string(Vectors.abandon)], [("count", .int(2))])
        guard case .list(let rows) = v else {
            Issue.record("not a list")
            return
        }
        #expect(rows.count == 14)
        func cell(_ n: Int, _ key: String) -> String? {
            guard case .map(let m) = rows[n] else { return nil }
            return m[key]?.inlineText
        }
        #expect(
            rows.indices.map { cell($0, "preset") }
                == Array(
                    repeating: [
                        "metamask", "ledger-live", "ledger-legacy", "bip44", "bip49", "bip84", "bip86",
                    ], count: 2
                ).flatMap { $0 })
        #expect(
            cell(0, "address") == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94" && cell(0, "path") == "m/44'/60'/0'/0/0")
        #expect(
            cell(1, "address") == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", "ledger-live account 0 is the same key")
        // BIP-84 test vector: first and second receiving addresses.
        #expect(cell(5, "address") == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        #expect(
            cell(12, "address") == "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g" && cell(12, "path") == "m/84'/0'/0'/0/1"
        )
        #expect(cell(8, "path") == "m/44'/60'/1'/0/0" && cell(9, "path") == "m/44'/60'/0'/1")
        #expect(v.text.split(separator: "\n").first == "index  preset         path              address")
        #expect(
            Call.message("presets.compare", [.string(Vectors.abandon)], [("count", .int(0))])
                == "presets.compare: --count must be 1 to 100, got 0")
    }

    @Test func presetsCompare_badMnemonic_isTheCoresError() {
        #expect(
            Teach.errorID(
                "presets.compare", [.string("bless cloud wheel regular tiny venue bird web grief security dignity zoo")]
            )
                == "mnemonic.checksum")
        #expect(Teach.errorID("presets.compare", [.string("abandon about")]) == "mnemonic.wordCount")
    }

    // MARK: path.find

    @Test func pathFind_namesThePath() throws {
        let found = try Call.run(
            "path.find", [.bytes(try Hex.decode("9858EfFD232B4033E47d90003D41EC34EcaEda94"))],
            [("mnemonic", .string(Vectors.abandon))])
        #expect(found.typeName == "match")
        #expect(Teach.row(found, "path")?.inlineText == "m/44'/60'/0'/0/0")
        #expect(Teach.row(found, "presets")?.inlineText == "[metamask (address 0), ledger-live (account 0)]")
        #expect(Teach.row(found, "searched") == .int(1))
        let btc = try Call.run(
            "path.find", [.string("bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el")],
            [("mnemonic", .string(Vectors.abandon))])
        #expect(Teach.row(btc, "path")?.inlineText == "m/84'/0'/0'/1/0", "BIP-84's first change address, from the grid")
        #expect(
            Teach.row(btc, "layout")
                == .string("purpose 84', coin type 0' (BTC), account 0', change 1, address index 0"))
        let ledger = try Call.run(
            "path.find", [.string("0x07B5FdfEB4E11826D233403Fe8Db0611CCF4c231")],
            [("mnemonic", .string(Vectors.abandon))])
        #expect(Teach.row(ledger, "presets")?.inlineText == "[ledger-live (account 2)]")
    }

    @Test func pathFind_badInput_isNamed() {
        let m: (String, Value?) = ("mnemonic", .string(Vectors.abandon))
        #expect(
            Teach.errorID("path.find", [.string("0x9858EfFD232B4033E47d90003D41EC34EcaEda94")])
                == "teaching.needsMnemonic")
        #expect(
            Call.message("path.find", [.string("hello")], [m])
                == "path.find: argument 1 (address) must be an Ethereum address (0x + 40 hex digits) or a Bitcoin mainnet "
                + "address (1…, 3…, bc1q…, bc1p…), got \"hello\"")
        #expect(
            Teach.errorID("path.find", [.string("0x9858efFD232B4033E47d90003D41EC34EcaEda94")], [m])
                == "address.ethereum.badChecksum")
        #expect(
            Call.message(
                "path.find", [.string("0x0000000000000000000000000000000000000001")], [m, ("max-index", .int(1))])
                == "path.find: 0x0000000000000000000000000000000000000001 is at none of the 10 paths searched (metamask, "
                + "ledger-live, ledger-legacy with index 0…1, then m/44'/60'/{account}'/{0,1}/{index} with account and index 0…1); "
                + "try a larger --max-index, the BIP-39 passphrase, or another mnemonic")
        #expect(
            Teach.errorID(
                "path.find", [.string("0x9858EfFD232B4033E47d90003D41EC34EcaEda94")], [m, ("max-index", .int(101))])
                == "builtin.outOfRange")
        #expect(
            Teach.errorID("path.find", [.string("0x9858EfFD232B4033E47d90003D41EC34EcaEda94")], [m, ("card", nil)])
                == "builtin.optionNotApplicable")
        #expect(
            Teach.errorID("path.find", [.string("bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6em")], [m])
                == "bech32.invalidChecksum")
        #expect(
            Teach.errorID("path.find", [.string("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3")], [m])
                == "base58check.checksumMismatch")
    }

    // MARK: The table

    @Test func secretsAreDeclaredInTheTable() {
        let r = Builtins.registry()
        #expect(r.lookup("mnemonic.explain")?.secretPositions == [0])
        #expect(r.lookup("presets.compare")?.secretPositions == [0])
        #expect(r.lookup("xkey.explain")?.secretPositions == [0])
        #expect(r.lookup("path.find")?.options.first { $0.name == "mnemonic" }?.isSecret == true)
        #expect(r.lookup("derive")?.options.first { $0.name == "from" }?.isSecret == true)
    }
}
