// What a signer must refuse before it signs (docs/bitcoin.md, "What kcs checks"): each case of
// the PSBT spec's negative list, made by changing one record of a PSBT that signs cleanly, and
// refused (or left unsigned) with a sentence that names the input or output and the check.
import Foundation
import Testing
import WalletCore
import WalletCrypto

private let words = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
private let master = try! ExtendedKey.master(seed: try! Mnemonic(phrase: words).seed())

private func ring() -> BitcoinKeyRing {
    BitcoinKeyRing(fingerprint: master.fingerprint) { try master.derive($0).publicKey }
}

private func prev(_ script: [UInt8], _ amount: UInt64, salt: UInt8) -> BitcoinTransaction {
    BitcoinTransaction(
        inputs: [TxInput(previous: OutPoint(hash: [UInt8](repeating: salt, count: 32), index: 0))],
        outputs: [TxOutput(amount: amount, script: script)])
}

private func scriptAt(_ path: String) throws -> [UInt8] {
    let p = try DerivationPath(path)
    return try BitcoinScript.output(PSBT.addressKind(ofPath: p)!, publicKey: try master.derive(p).publicKey)
}

/// A clean PSBT: one input at `path` with its previous transaction, a payment and change.
private func clean(
    _ path: String = "m/84'/1'/0'/0/0", version: UInt32 = 0, change: String = "m/84'/1'/0'/1/0"
) throws -> PSBT {
    var keys = ring()
    let p = prev(try scriptAt(path), 100_000, salt: 7)
    return try PSBT.create(
        inputs: [
            PSBTInputSpec(
                outpoint: OutPoint(hash: p.txidHash, index: 0), previousTransaction: p, path: try DerivationPath(path))
        ],
        outputs: [
            PSBTOutputSpec(amount: 80_000, script: BitcoinScript.p2wpkh([UInt8](repeating: 0x42, count: 20))),
            PSBTOutputSpec(amount: 19_000, path: try DerivationPath(change)),
        ],
        version: version, keys: &keys)
}

private func plan(_ psbt: PSBT, _ policy: PSBTPolicy = PSBTPolicy(chain: .test)) throws -> PSBTPlan {
    var keys = ring()
    return try psbt.plan(keys: &keys, policy: policy)
}

@Suite("PSBT checks before signing")
struct PSBTCheckTests {
    @Test func cleanPSBT_hasOneStep_andChange() throws {
        let p = try plan(try clean())
        #expect(p.refusals.isEmpty)
        #expect(p.steps.count == 1)
        #expect(p.fee == 1000)
        #expect(p.feeVerified)
        #expect(p.outputs[1].change == (try DerivationPath("m/84'/1'/0'/1/0")))
        #expect(
            p.outputs[0].address
                == (try SegwitAddress(hrp: "tb", version: 0, program: [UInt8](repeating: 0x42, count: 20))).string)
        #expect(p.outputs[0].address?.hasPrefix("tb1qgfpyy") == true)
        #expect(p.spentByUs == 81_000)
        #expect(p.sentToOthers == 80_000)
    }

    @Test func previousTransactionOfAnotherTxid_isRefused() throws {
        var psbt = try clean()
        var other = psbt.inputs[0].nonWitnessUTXO!
        other.lockTime = 99
        psbt.inputs[0].set(PSBTRecord(type: 0x00, value: other.serialized))
        let p = try plan(psbt)
        #expect(
            p.refusals.contains { $0.hasPrefix("input 0: its previous transaction has txid \(other.txid), not the") })
    }

    @Test func witnessUTXOAmountDifferingFromThePreviousTransaction_isRefused() throws {
        var psbt = try clean()
        let w = psbt.inputs[0].witnessUTXO!
        psbt.inputs[0].set(PSBTRecord(type: 0x01, value: TxOutput(amount: w.amount - 1, script: w.script).serialized))
        let p = try plan(psbt)
        #expect(
            p.refusals == [
                "input 0: WITNESS_UTXO (99999 sat) differs from output 0 of its previous transaction (100000 sat)"
            ])
    }

    @Test func missingPreviousTransaction_onSegwitV0_isRefused_unlessAllowed() throws {
        var psbt = try clean()
        psbt.inputs[0].remove(0x00)
        let p = try plan(psbt)
        #expect(p.refusals.count == 1)
        #expect(p.refusals[0].hasPrefix("input 0: no previous transaction (NON_WITNESS_UTXO)"))
        #expect(!p.feeVerified)
        var allow = PSBTPolicy(chain: .test)
        allow.allowMissingPrevTx = true
        let allowed = try plan(psbt, allow)
        #expect(allowed.refusals.isEmpty)
        #expect(allowed.warnings.contains { $0.hasSuffix("fee cannot be verified") })
        #expect(allowed.steps.count == 1)
    }

    @Test(arguments: [UInt32(0x02), 0x03, 0x81, 0x83])
    func sighashOtherThanAll_isNotSigned_unlessAllowed(type: UInt32) throws {
        var psbt = try clean()
        psbt.inputs[0].set(PSBTRecord(type: 0x03, value: BitcoinWriter.uint32(type)))
        let p = try plan(psbt)
        #expect(p.steps.isEmpty)
        #expect(p.inputs[0].notes.first?.hasPrefix("SIGHASH_\(SighashType.name(type)) leaves ") == true)
        var allow = PSBTPolicy(chain: .test)
        allow.allowSighash = true
        #expect(try plan(psbt, allow).steps.first?.sighashType == type)
    }

    @Test func fingerprintMatch_withAnotherKey_isNotSigned() throws {
        var psbt = try clean()
        let (pk, origin) = psbt.inputs[0].derivations(type: 0x06)[0]
        psbt.inputs[0].records.removeAll { $0.type == 0x06 }
        // Our fingerprint, but the path of another key than the one in the record.
        let wrong = KeyOrigin(fingerprint: origin.fingerprint, path: try DerivationPath("m/84'/1'/0'/0/1"))
        psbt.inputs[0].set(PSBTRecord(type: 0x06, keyData: pk, value: wrong.serialized))
        let p = try plan(psbt)
        #expect(p.steps.isEmpty)
        #expect(p.inputs[0].ours.isEmpty)
        #expect(p.inputs[0].notes.contains { $0.contains("carries this wallet's fingerprint but names another key") })
    }

    @Test func changeWithTheRightFingerprint_butAnotherScriptType_isNotChange() throws {
        var psbt = try clean()
        // The change output pays the P2PKH script of the key its derivation names (m/84'…: P2WPKH).
        let (pk, _) = psbt.outputs[1].derivations(type: 0x02)[0]
        var tx = psbt.unsignedTransaction!
        tx.outputs[1].script = BitcoinScript.p2pkh(Hash.hash160(pk))
        psbt.global.set(PSBTRecord(type: 0x00, value: tx.legacySerialized))
        let p = try plan(psbt)
        #expect(p.outputs[1].change == nil)
        #expect(
            p.outputs[1].notes == [
                "this wallet's key at m/84'/1'/0'/1/0 makes a p2wpkh script, not this output's: not change"
            ])
        #expect(p.spentByUs == 100_000)
    }

    @Test func taprootInternalKey_otherThanTheDerivedKey_isNotSigned() throws {
        var psbt = try clean("m/86'/1'/0'/0/0")
        #expect(try plan(psbt).steps.count == 1)
        let x = psbt.inputs[0].tapDerivations(type: 0x16)[0]
        let other = try master.derive(try DerivationPath("m/86'/1'/0'/0/1")).publicKey.xOnly.key.bytes
        psbt.inputs[0].records.removeAll { $0.type == 0x16 || $0.type == 0x17 }
        psbt.inputs[0].set(PSBTRecord(type: 0x17, value: other))
        psbt.inputs[0].set(PSBTRecord(type: 0x16, keyData: other, value: PSBTFields.tapDerivationValue(x.origin)))
        let p = try plan(psbt)
        #expect(p.steps.isEmpty)
        #expect(p.inputs[0].notes.contains { $0.contains("Taproot derivation") && $0.contains("another key") })
    }

    @Test func taprootInput_besideAnInputWithNoSpentOutput_isRefused() throws {
        var keys = ring()
        let tr = prev(try scriptAt("m/86'/1'/0'/0/0"), 50_000, salt: 1)
        let psbt = try PSBT.create(
            inputs: [
                PSBTInputSpec(
                    outpoint: OutPoint(hash: tr.txidHash, index: 0), previousTransaction: tr,
                    path: try DerivationPath("m/86'/1'/0'/0/0")),
                PSBTInputSpec(
                    outpoint: OutPoint(hash: [UInt8](repeating: 9, count: 32), index: 0), amount: 1, script: [0x51]),
            ],
            outputs: [PSBTOutputSpec(amount: 40_000, script: [0x6a])], keys: &keys)
        var stripped = psbt
        stripped.inputs[1].records.removeAll()
        let p = try plan(stripped)
        #expect(
            p.refusals.contains {
                $0.hasPrefix(
                    "input 1: its spent output is not in the PSBT, and a Taproot input's signature hashes every input's"
                )
            })
    }

    @Test func mainnetKey_onATestChain_isNotSigned_andTheReverse() throws {
        let main = try clean("m/84'/0'/0'/0/0", change: "m/84'/0'/0'/1/0")
        let p = try plan(main, PSBTPolicy(chain: .test))
        #expect(p.steps.isEmpty)
        #expect(p.inputs[0].notes.contains { $0.contains("a mainnet path (coin type 0')") })
        #expect(try plan(main, PSBTPolicy(chain: .main)).steps.count == 1)
        #expect(try plan(try clean(), PSBTPolicy(chain: .main)).steps.isEmpty)
    }

    @Test func outputsAboveInputs_areRefused() throws {
        var psbt = try clean()
        var tx = psbt.unsignedTransaction!
        tx.outputs[0].amount = 90_000
        psbt.global.set(PSBTRecord(type: 0x00, value: tx.legacySerialized))
        #expect(try plan(psbt).refusals == ["the outputs (109000 sat) spend more than the inputs (100000 sat)"])
    }

    @Test func v0WithAV2Field_andV2WithoutItsFields_areRefusedByName() throws {
        var v0 = try clean()
        v0.inputs[0].set(PSBTRecord(type: 0x0e, value: [UInt8](repeating: 1, count: 32)))
        #expect(throws: PSBTError.notInVersion(map: .input(0), key: "0e", version: 0)) { try PSBT.parse(v0.serialized) }
        var v2 = try clean(version: 2)
        v2.outputs[1].remove(0x04)
        #expect(throws: PSBTError.missing(map: .output(1), field: "PSBT_OUT_SCRIPT (04)", version: 2)) {
            try PSBT.parse(v2.serialized)
        }
    }

    @Test func readWriteRoundTrip_keepsUnknownRecords_andV2Roles() throws {
        var psbt = try clean(version: 2)
        psbt.inputs[0].set(PSBTRecord(type: 0xfc, keyData: Array("kcs".utf8) + [0x01], value: [1, 2, 3]))
        psbt.global.set(PSBTRecord(type: 0x06, value: [0x03]))
        let read = try PSBT.parse(psbt.serialized)
        #expect(read.serialized == psbt.serialized)
        var keys = ring()
        let step = try #require(try read.plan(keys: &keys, policy: PSBTPolicy(chain: .test)).steps.first)
        var signed = read
        signed.add([0x30], for: step)
        // After an ALL signature neither inputs nor outputs may change (BIP-370 "Signer").
        #expect(signed.global.value(0x06) == [0x00])
    }
}

extension PSBTCheckTests {
    /// A PSBT's derivation records are the sender's to choose: more than `maximumKeys` keys of
    /// this wallet asked for is refused before they are all derived (each costs an APDU on a card).
    @Test func aPSBTAskingForTooManyKeys_isRefused() throws {
        var psbt = try clean()
        let anyKey = try master.derive(try DerivationPath("m/1")).publicKey.compressed
        for i in 0...BitcoinKeyRing.maximumKeys {
            let origin = KeyOrigin(
                fingerprint: master.fingerprint, path: DerivationPath(absolute: true, [ChildIndex(UInt32(i))]))
            var key = anyKey
            key[32] ^= UInt8(truncatingIfNeeded: i)  // distinct key data; validity is not what is tested
            psbt.inputs[0].records.append(PSBTRecord(type: 0x06, keyData: key, value: origin.serialized))
        }
        var keys = ring()
        #expect(throws: PSBTError.self) { try psbt.plan(keys: &keys, policy: PSBTPolicy(chain: .test)) }
    }
}
