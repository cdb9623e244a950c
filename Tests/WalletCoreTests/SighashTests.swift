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

private let bip143 = Vectors.json("bitcoin/bip143.json")
private let bip370 = Vectors.json("bitcoin/bip370_locktime.json")

@Suite("BIP-143 signature hashes, BIP-370 lock times")
struct SegwitSighashTests {
    /// BIP-143's examples (Vectors/bitcoin/bip143.json): the preimage and sighash byte for byte,
    /// the BIP's signature verifying under its key, and kcs's signature verifying too.
    @Test func bip143Examples_preimageAndSighash() throws {
        for c in bip143.array("cases") {
            let tx = try BitcoinTransaction.parse(try Hex.decode(c.string("unsignedTx")))
            for s in c.array("signatures") {
                var r = BitcoinReader(try Hex.decode(s.string("scriptCode")))
                let scriptCode = try r.lengthPrefixed("scriptCode")
                let args = (
                    index: s.int("inputIndex"), amount: UInt64(s.int("amount")), type: UInt32(s.int("nHashType"))
                )
                let preimage = Sighash.segwitV0Preimage(
                    tx, index: args.index, scriptCode: scriptCode, amount: args.amount, type: args.type)
                #expect(Hex.encode(preimage) == s.string("preimage"), "\(c.string("description"))")
                let hash = Sighash.segwitV0(
                    tx, index: args.index, scriptCode: scriptCode, amount: args.amount, type: args.type)
                #expect(Hex.encode(hash) == s.string("sigHash"), "\(c.string("description"))")
                let key = try PrivateKey(bytes: try Hex.decode(s.string("privateKey")))
                #expect(Hex.encode(key.publicKey.compressed) == s.string("publicKey"))
                let theirs = try Hex.decode(s.string("signature"))
                let sig = try ECDSASignature(der: Array(theirs.dropLast()), lenient: true)
                #expect(Secp256k1.verify(sig.normalized, digest: hash, publicKey: key.publicKey))
                #expect(Secp256k1.verify(try key.sign(digest: hash).signature, digest: hash, publicKey: key.publicKey))
            }
        }
    }

    @Test func bip370LockTimes_areDetermined_orIndeterminate() throws {
        for c in bip370.array("locktime") {
            let psbt = try PSBT.read(text: c.string("psbt"))
            if c.bool("computable") {
                #expect(psbt.determinedLockTime == UInt32(c.int("expectedLocktime")), "\(c.string("description"))")
                #expect(psbt.unsignedTransaction?.lockTime == UInt32(c.int("expectedLocktime")))
            } else {
                #expect(psbt.determinedLockTime == nil, "\(c.string("description"))")
                #expect(psbt.unsignedTransaction == nil)
            }
        }
    }

    @Test func bip370Vectors_invalidRefused_validReadAndWrittenBack() throws {
        for c in bip370.array("invalid") {
            #expect(throws: PSBTError.self, "\(c.string("description"))") { try PSBT.read(text: c.string("psbt")) }
        }
        for c in bip370.array("valid") {
            let psbt = try PSBT.read(text: c.string("psbt"))
            #expect(psbt.version == 2)
            #expect(psbt.base64 == c.string("psbt"))
        }
    }
}
