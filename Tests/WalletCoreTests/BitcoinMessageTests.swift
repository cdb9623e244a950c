// Messages signed for Bitcoin addresses: BIP-322's vectors (Vectors/bitcoin/bip322.json, and the
// newer draft's basic-test-vectors.json; see Vectors/bitcoin/README.md) — message hashes, the
// virtual transactions' txids, every simple signature verified and a wrong message, address or
// encoding refused — and the legacy form against Bitcoin Core's own test
// (bitcoin/bitcoin test/functional/rpc_signmessage.py: its key, message and expected signature).
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private let bip322 = Vectors.json("bitcoin/bip322.json")
private let basic = Vectors.json("bitcoin/bip322_basic_test_vectors.json")

@Suite("Bitcoin messages: BIP-322 and legacy")
struct BitcoinMessageTests {
    @Test func bip322_hashes_txids_andSignatures() throws {
        let script = try BitcoinNetwork.bitcoin.script(of: bip322.string("address"))
        for c in bip322.array("cases") {
            let message = Array(c.string("message").utf8)
            #expect(Hex.encode(BitcoinMessage.bip322Hash(message)) == c.string("messageHash"))
            let spend = BitcoinMessage.toSpend(message, script: script)
            #expect(spend.txid == c.string("toSpendTxid"))
            #expect(BitcoinMessage.toSign(spend).txid == c.string("toSignTxid"))
            for s in c.strings("simpleSignatures") {
                #expect(
                    try BitcoinMessage.verify(
                        address: bip322.string("address"), message: message, signature: s, network: .bitcoin))
                #expect(
                    try !BitcoinMessage.verify(
                        address: bip322.string("address"), message: message + [0x21], signature: s, network: .bitcoin))
            }
            // RFC 6979 gives the BIP's second signature exactly.
            let key = try WIF(bip322.string("privateKeyWIF")).privateKey
            var psbt = BitcoinMessage.psbt(message, script: script)
            var ring = BitcoinKeyRing(fingerprint: nil, lone: key.publicKey) { _ in key.publicKey }
            let step = try #require(try psbt.plan(keys: &ring, policy: PSBTPolicy(chain: .main)).steps.first)
            psbt.add(try key.sign(digest: step.sighash).signature.der + [0x01], for: step)
            psbt.finalize()
            #expect(
                BitcoinMessage.simpleSignature(psbt.inputs[0].finalScriptWitness ?? [])
                    == c.strings("simpleSignatures")[1])
        }
    }

    @Test func basicVectors_simpleVerify_andErrorsAreRefused() throws {
        for c in basic.array("simple") where c.string("type") != "p2wsh-multisig-3of3" {
            for s in c.strings("bip322_signatures") {
                #expect(
                    try BitcoinMessage.verify(
                        address: c.string("address"), message: Array(c.string("message").utf8), signature: s,
                        network: .bitcoin), "\(c.string("type"))")
            }
        }
        for c in basic.array("error") {
            let ok = try? BitcoinMessage.verify(
                address: c.string("address"), message: Array(c.string("message").utf8),
                signature: c.string("signature"), network: .bitcoin)
            #expect(ok != true, "\(c.string("description"))")
        }
    }

    @Test func legacy_signmessage_equalsBitcoinCoresExpectedSignature() throws {
        let key = try WIF("cUeKHd5orzT3mz8P9pxyREHfsWtVfgsfDjiZZBcjUBAaGk1BTj7N").privateKey
        let message = Array("This is just a test message".utf8)
        let signature = try key.sign(digest: BitcoinMessage.legacyDigest(message))
        let expected = "INbVnW4e6PeRmsv2Qgu8NuopvrVjkcxob+sX8OcZG0SALhWybUjzMLPdAsXI46YZGb0KQTRii+wWIQzRpG/U+S0="
        #expect(BitcoinMessage.legacySignature(signature) == expected)
        #expect(
            try BitcoinMessage.verify(
                address: "mpLQjfK79b7CCV4VMJWEWAj5Mpx8Up5zxB", message: message, signature: expected, network: .testnet)
        )
        #expect(
            try !BitcoinMessage.verify(
                address: "mpLQjfK79b7CCV4VMJWEWAj5Mpx8Up5zxB", message: message + [0x2e], signature: expected,
                network: .testnet))
    }
}
