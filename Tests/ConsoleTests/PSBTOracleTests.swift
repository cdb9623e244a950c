// PSBTs kcs signs, judged by code kcs did not write (docs/bitcoin.md, "Tested against"): for each
// single-key script type, a mixed four-input transaction, and a P2WSH 2-of-3 with one key on the
// simulated card, kcs signs at the console; bdkpython finalizes (a v2 PSBT through hwi's
// convert_to_v0) and py-bitcoinkernel — Bitcoin Core's script interpreter — verifies every input
// of the extracted transaction against its spent outputs; kcs's own finalizer and extractor give
// a transaction the kernel accepts too; embit computes the same signature hashes.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private let testRoot = try! ExtendedKey.master(seed: try! Mnemonic(phrase: testMnemonic).seed())

/// A previous transaction paying `amount` to `script` at output 0 (its own input made up from `salt`).
private func previousTransaction(paying script: [UInt8], amount: UInt64, salt: UInt8) -> BitcoinTransaction {
    BitcoinTransaction(
        version: 2, inputs: [TxInput(previous: OutPoint(hash: [UInt8](repeating: salt, count: 32), index: 1))],
        outputs: [
            TxOutput(amount: amount, script: script),
            TxOutput(amount: 1234, script: BitcoinScript.p2wpkh([UInt8](repeating: salt, count: 20))),
        ])
}

/// The script of `testMnemonic`'s key at `path` for the path's purpose.
private func script(at path: String) throws -> [UInt8] {
    let p = try DerivationPath(path)
    return try BitcoinScript.output(PSBT.addressKind(ofPath: p)!, publicKey: try testRoot.derive(p).publicKey)
}

private let paths = [
    "p2pkh": "m/44'/1'/0'/0/3", "p2sh-p2wpkh": "m/49'/1'/0'/0/3", "p2wpkh": "m/84'/1'/0'/0/3",
    "p2tr": "m/86'/1'/0'/0/3",
]

/// `psbt.create`'s inputs for `kinds`, each spending output 0 of its own previous transaction.
private func inputs(_ kinds: [String]) throws -> String {
    let items = try kinds.enumerated().map { n, kind in
        let path = paths[kind]!
        let prev = previousTransaction(
            paying: try script(at: path), amount: 60_000 + UInt64(n) * 1000, salt: UInt8(n + 1))
        return #"{"prevtx": "\#(Hex.encode(prev.serialized))", "vout": 0, "path": "\#(path)"}"#
    }
    return "[" + items.joined(separator: ", ") + "]"
}

/// A payment, and change at m/84'/1'/0'/1/0, leaving a 1,000 sat fee from `kinds`' inputs.
private func outputs(_ kinds: [String]) -> String {
    let total = kinds.indices.reduce(0) { $0 + 60_000 + $1 * 1000 }
    return #"[{"address": "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", "amount": \#(total - 16_000)}, "#
        + #"{"amount": 15000, "path": "m/84'/1'/0'/1/0"}]"#
}

/// A simulated card of `profile` with `testMnemonic`, logged in and active.
private func cardSetup(_ profile: String) -> String {
    let pairing = profile == "4.0" ? "" : " --pairing \"kcs pairing\""
    let login = profile == "4.0" ? "card.login \"123456\"" : "card.login \"123456\" --password \"kcs pairing\""
    let duress = profile == "4.0" ? " --duress \"654321\"" : ""
    return """
        card.connect --sim btc-\(profile) --profile \(profile)
        card.init --pin "123456" --puk "987654321098"\(duress)\(pairing)
        \(login)
        card.load mnemonic "\(testMnemonic)" --name kc
        use card
        """
}

/// Checks a signed PSBT with the oracles: bdk finalizes it and the kernel accepts every input;
/// kcs's own extracted transaction is accepted too; embit's sighashes equal kcs's.
private func judge(signed: String, extracted: String, spent: [[String: Any]], digests: [String?], inputs n: Int) throws
{
    let finalized = try BitcoinOracle.run("finalize_verify", ["psbt": signed])
    #expect(finalized["could_finalize"] as? Bool == true, "\(finalized["errors"] ?? "")")
    #expect(finalized["inputs"] as? [Bool] == Array(repeating: true, count: n))
    #expect(finalized["tx"] as? String != nil)
    let own = try BitcoinOracle.run("verify", ["tx": extracted, "spent": spent])
    #expect(own["inputs"] as? [Bool] == Array(repeating: true, count: n))
    // The same transaction, whoever finalized it (ECDSA from RFC 6979 is deterministic; a Schnorr
    // signature's auxiliary randomness is not, so only the txid is compared).
    let bdkTx = try BitcoinTransaction.parse(try Hex.decode(finalized["tx"] as? String ?? ""))
    let ownTx = try BitcoinTransaction.parse(try Hex.decode(extracted))
    #expect(bdkTx.txid == ownTx.txid)
    if n > 0, !digests.isEmpty {
        let v0 = try BitcoinOracle.run("parse", ["psbt": signed])["v0"] as? String ?? signed
        let embit = try BitcoinOracle.run("embit_sighash", ["psbt": try unsign(v0)])
        #expect(embit["sighashes"] as? [String?] == digests)
    }
}

/// The PSBT with every signature removed, for embit (which computes sighashes of unsigned inputs).
private func unsign(_ base64: String) throws -> String {
    var p = try PSBT.read(text: base64)
    for i in p.inputs.indices { p.inputs[i].records.removeAll { $0.type == 0x02 || $0.type == 0x13 } }
    return p.base64
}

/// The spent outputs of `kinds`' inputs, as the kernel takes them.
private func spent(_ kinds: [String]) throws -> [[String: Any]] {
    try kinds.enumerated().map { n, kind in
        ["script": Hex.encode(try script(at: paths[kind]!)), "amount": 60_000 + n * 1000]
    }
}

@Suite("PSBTs kcs signs, judged by bdk, Bitcoin Core's interpreter and embit")
struct PSBTOracleTests {
    static let cases: [[String]] = [
        ["p2pkh"], ["p2sh-p2wpkh"], ["p2wpkh"], ["p2tr"], ["p2pkh", "p2sh-p2wpkh", "p2wpkh", "p2tr"],
    ]

    @Test(arguments: cases, [false, true])
    func signed_byKcs_verifiedByCore(kinds: [String], card: Bool) throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            let m = hd.master "\(testMnemonic)"
            let p = psbt.create \(try inputs(kinds)) \(outputs(kinds)) --key $m --chain test
            \(card ? cardSetup("4.0") : "import mnemonic \"\(testMnemonic)\" --name words")
            let s = psbt.sign $p --chain test \(card ? "" : "--key words")
            print "S", s.psbt
            print "N", s.signed, s.complete
            let shown = psbt.show $p --chain test --json \(card ? "" : "--key $m")
            for i in shown.inputs { print "D", hex(i.digest) }
            print "X", hex((psbt.extract $s).tx)
            print "H", len((history --kind bitcoin))
            """)
        #expect(r.code == 0, "\(r.err)")
        let n = kinds.count
        #expect(tagged("N", in: r.out) == ["\((0..<n).map(String.init)) true".replacingOccurrences(of: "\"", with: "")])
        #expect(tagged("H", in: r.out) == ["\(n)"])
        let signed = try #require(tagged("S", in: r.out).first)
        let extracted = try #require(tagged("X", in: r.out).first).replacingOccurrences(of: "0x", with: "")
        let digests = tagged("D", in: r.out).map { String($0.dropFirst(2)) as String? }
        try judge(signed: signed, extracted: extracted, spent: try spent(kinds), digests: digests, inputs: n)
    }
}

private let cosignerWords = "legal winner thank year wave sausage worth useful legal winner thank yellow"
private let thirdWords = "letter advice cage absurd amount doctor acoustic avoid letter advice cage above"
private let multisigPath = "m/48'/1'/0'/2'/0/0"

/// A P2WSH sortedmulti(2, card, cosigner, third) input spending 100,000 sat, with every key's
/// origin, paying 99,000 sat to one address: as a coordinator (Sparrow, Core) hands it to each signer.
private func multisigPSBT(nested: Bool = false) throws -> (psbt: PSBT, witnessScript: [UInt8]) {
    let path = try DerivationPath(multisigPath)
    let masters = try [testMnemonic, cosignerWords, thirdWords].map {
        try ExtendedKey.master(seed: try Mnemonic(phrase: $0).seed())
    }
    let keys = try masters.map { try $0.derive(path).publicKey.compressed }
    let ms = MultisigScript(threshold: 2, keys: keys.sorted { $0.lexicographicallyPrecedes($1) })
    let program = BitcoinScript.p2wsh(Hash.sha256(ms.script))
    let spk = nested ? BitcoinScript.p2sh(Hash.hash160(program)) : program
    let prev = previousTransaction(paying: spk, amount: 100_000, salt: 0x33)
    let tx = BitcoinTransaction(
        inputs: [TxInput(previous: OutPoint(hash: prev.txidHash, index: 0))],
        outputs: [TxOutput(amount: 99_000, script: BitcoinScript.p2wpkh([UInt8](repeating: 0x77, count: 20)))])
    var input = PSBTMap([
        PSBTRecord(type: 0x00, value: prev.serialized),
        PSBTRecord(type: 0x01, value: TxOutput(amount: 100_000, script: spk).serialized),
        PSBTRecord(type: 0x05, value: ms.script),
    ])
    if nested { input.set(PSBTRecord(type: 0x04, value: program)) }
    for (m, k) in zip(masters, keys) {
        input.set(
            PSBTRecord(type: 0x06, keyData: k, value: KeyOrigin(fingerprint: m.fingerprint, path: path).serialized))
    }
    let psbt = PSBT(
        version: 0, global: PSBTMap([PSBTRecord(type: 0x00, value: tx.legacySerialized)]), inputs: [input],
        outputs: [PSBTMap()])
    return (try PSBT.parse(psbt.serialized), spk)
}

extension PSBTOracleTests {
    @Test(arguments: [false, true])
    func p2wsh2of3_cardAndCosigner_combinedAndFinalized_verifiedByCore(nested: Bool) throws {
        let (psbt, spk) = try multisigPSBT(nested: nested)
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            \(cardSetup("4.0"))
            let shown = psbt.show "\(psbt.base64)" --chain test --json
            print "T", shown.inputs[0].type, shown.inputs[0].path, shown.inputs[0].willSign
            let a = psbt.sign "\(psbt.base64)" --chain test
            print "A", a.signed, a.complete
            let b = psbt.sign "\(psbt.base64)" --chain test --key (hd.master "\(cosignerWords)")
            print "B", b.signed, b.complete
            let half = psbt.finalize $a
            print "I", half.complete, half.incomplete
            let c = psbt.combine [a, b]
            let again = psbt.show $c --chain test --json
            print "G", again.inputs[0].signatures, again.inputs[0].willSign
            let f = psbt.finalize $c
            print "F", f.complete, f.finalized
            print "C", c.psbt
            print "X", hex((psbt.extract $f).tx)
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("T", in: r.out) == ["\(nested ? "p2sh-p2wsh" : "p2wsh") 2-of-3 multisig \(multisigPath) true"])
        #expect(tagged("A", in: r.out) == ["[0] false"])
        #expect(tagged("B", in: r.out) == ["[0] false"])
        #expect(tagged("I", in: r.out) == ["false [\"input 0: 1 of the 2 signatures a 2-of-3 multisig needs\"]"])
        #expect(tagged("G", in: r.out) == ["2 false"])
        #expect(tagged("F", in: r.out) == ["true [0]"])
        let combined = try #require(tagged("C", in: r.out).first)
        let extracted = try #require(tagged("X", in: r.out).first).replacingOccurrences(of: "0x", with: "")
        try judge(
            signed: combined, extracted: extracted, spent: [["script": Hex.encode(spk), "amount": 100_000]],
            digests: [],
            inputs: 1)
    }

    @Test func v2PSBT_signedAndConvertedByHWI_verifiedByCore() throws {
        let kinds = ["p2wpkh", "p2tr"]
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            let m = hd.master "\(testMnemonic)"
            let p = psbt.create \(try inputs(kinds)) \(outputs(kinds)) --key $m --chain test --v2 --locktime 840000
            print "V", p.version, p.locktime
            import mnemonic "\(testMnemonic)" --name words
            let s = psbt.sign $p --key words
            print "S", s.psbt
            print "X", hex((psbt.extract $s).tx)
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("V", in: r.out) == ["2 840000"])
        let signed = try #require(tagged("S", in: r.out).first)
        let parsed = try BitcoinOracle.run("parse", ["psbt": signed])
        #expect(parsed["version"] as? Int == 2)
        #expect(parsed["locktime"] as? Int == 840_000)
        let extracted = try #require(tagged("X", in: r.out).first).replacingOccurrences(of: "0x", with: "")
        #expect(try BitcoinTransaction.parse(try Hex.decode(extracted)).lockTime == 840_000)
        try judge(signed: signed, extracted: extracted, spent: try spent(kinds), digests: [], inputs: 2)
    }

    @Test func card31_signsECDSA_andRefusesTaprootByName() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run(
            """
            let m = hd.master "\(testMnemonic)"
            let p = psbt.create \(try inputs(["p2wpkh"])) \(outputs(["p2wpkh"])) --key $m --chain test
            let t = psbt.create \(try inputs(["p2tr"])) \(outputs(["p2tr"])) --key $m --chain test
            \(cardSetup("3.1.0"))
            let s = psbt.sign $p --chain test
            print "S", s.psbt
            print "X", hex((psbt.extract $s).tx)
            try { psbt.sign $t --chain test } catch e { print "E", e.kind, e.message }
            print "H", len((history --kind bitcoin))
            """)
        #expect(r.code == 0, "\(r.err)")
        let e = try #require(tagged("E", in: r.out).first)
        #expect(
            e.hasPrefix(
                "psbt.taprootNeedsCard4 psbt.sign: input 0 is a Taproot key-path spend, which needs a Schnorr signature"
            ))
        #expect(tagged("H", in: r.out) == ["1"])
        let signed = try #require(tagged("S", in: r.out).first)
        let extracted = try #require(tagged("X", in: r.out).first).replacingOccurrences(of: "0x", with: "")
        try judge(signed: signed, extracted: extracted, spent: try spent(["p2wpkh"]), digests: [], inputs: 1)
    }
}
