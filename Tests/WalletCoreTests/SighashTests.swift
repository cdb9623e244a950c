// Signature hashes and the Taproot tweak, byte for byte against BIP-341's wallet vectors
// (Vectors/bitcoin/bip341_wallet_vectors.json — bitcoin/bitcoin src/test/data, the BIP's
// wallet-test-vectors.json; see Vectors/bitcoin/README.md): the tweak and output key of each
// script tree, and for each key-path input its SigMsg, sighash, tweak and signature; and the
// fully signed transaction checked by py-bitcoinkernel in the PSBT oracle tests' way.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private let bip341 = Vectors.json("bitcoin/bip341_wallet_vectors.json")

@Suite("BIP-341 signature hashes and tweaks")
struct SighashTests {
    @Test func scriptPubKeys_tweaksAndAddresses() throws {
        for v in bip341.array("scriptPubKey") {
            let internalKey = try Hex.decode(v.object("given").string("internalPubkey"))
            let root = try v.object("intermediary").optionalString("merkleRoot").map { try Hex.decode($0) }
            let tweak = Sighash.taprootTweak(internalKey: internalKey, merkleRoot: root)
            #expect(Hex.encode(tweak) == v.object("intermediary").string("tweak"))
            let output = try XOnlyPublicKey(bytes: internalKey).taprootTweaked(merkleRoot: root)
            #expect(output.bytes == (try Hex.decode(v.object("intermediary").string("tweakedPubkey"))))
            let script = BitcoinScript.p2tr(output.bytes)
            #expect(Hex.encode(script) == v.object("expected").string("scriptPubKey"))
            #expect(BitcoinNetwork.bitcoin.address(of: script) == v.object("expected").string("bip350Address"))
            #expect(try BitcoinNetwork.bitcoin.script(of: v.object("expected").string("bip350Address")) == script)
        }
    }

    @Test func keyPathSpending_sigMsg_sigHash_tweak_andSignature() throws {
        for v in bip341.array("keyPathSpending") {
            let tx = try BitcoinTransaction.parse(try Hex.decode(v.object("given").string("rawUnsignedTx")))
            let spent: [TxOutput?] = try v.object("given").array("utxosSpent").map {
                TxOutput(amount: UInt64($0.int("amountSats")), script: try Hex.decode($0.string("scriptPubKey")))
            }
            for input in v.array("inputSpending") {
                let given = input.object("given"), mid = input.object("intermediary")
                let index = given.int("txinIndex")
                let type = UInt32(given.int("hashType"))
                let message = try Sighash.taprootMessage(tx, index: index, spent: spent, type: type)
                // The vectors' sigMsg starts with the epoch byte (00) the hash is taken over.
                #expect("00" + Hex.encode(message) == mid.string("sigMsg"), "input \(index)")
                let hash = try Sighash.taproot(tx, index: index, spent: spent, type: type)
                #expect(Hex.encode(hash) == mid.string("sigHash"), "input \(index)")
                let key = try PrivateKey(bytes: try Hex.decode(given.string("internalPrivkey")))
                #expect(key.publicKey.xOnly.key.bytes == (try Hex.decode(mid.string("internalPubkey"))))
                let root = try given.optionalString("merkleRoot").map { try Hex.decode($0) }
                let tweak = Sighash.taprootTweak(internalKey: key.publicKey.xOnly.key.bytes, merkleRoot: root)
                #expect(Hex.encode(tweak) == mid.string("tweak"))
                // The BIP's signatures use all-zero auxiliary randomness: the same bytes here.
                let signature = try key.signSchnorr(message: hash, tweak: tweak, aux: [UInt8](repeating: 0, count: 32))
                let witness = try Hex.decode(input.object("expected").strings("witness")[0])
                #expect(signature + (type == 0 ? [] : [UInt8(type)]) == witness, "input \(index)")
            }
        }
    }

    @Test func keyPathSpending_fullySignedTransaction_verifiesInBitcoinCore() throws {
        for v in bip341.array("keyPathSpending") {
            let spent = v.object("given").array("utxosSpent").map {
                ["script": $0.string("scriptPubKey"), "amount": $0.int("amountSats")] as [String: Any]
            }
            let tx = v.object("auxiliary").string("fullySignedTx")
            let answer = try BitcoinOracle.run("verify", ["tx": tx, "spent": spent])
            #expect(answer["inputs"] as? [Bool] == Array(repeating: true, count: spent.count))
        }
    }
}
