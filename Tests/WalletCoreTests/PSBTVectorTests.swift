// PSBTs read, written and completed as Bitcoin Core's own PSBT corpus demands
// (Vectors/bitcoin/rpc_psbt.json — bitcoin/bitcoin test/functional/data/rpc_psbt.json, a superset
// of the BIP-174, BIP-370 and BIP-371 test vectors; see Vectors/bitcoin/README.md): every invalid
// PSBT refused, every valid one read and written back byte for byte, and the finalizer, extractor
// and combiner vectors reproduced.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private let corpus = Vectors.json("bitcoin/rpc_psbt.json")

@Suite("PSBT vectors (Bitcoin Core's rpc_psbt.json)")
struct PSBTVectorTests {
    @Test func everyInvalidPSBT_isRefused() {
        var accepted: [Int] = []
        for (n, v) in corpus.array("invalid").enumerated() where (try? PSBT.read(text: v.stringValue)) != nil {
            accepted.append(n)
        }
        #expect(accepted.isEmpty, "invalid PSBTs read without error: \(accepted)")
        var acceptedWithMessage: [String] = []
        for v in corpus.array("invalid_with_msg") {
            let pair = v.arrayValue
            if (try? PSBT.read(text: pair[0].stringValue)) != nil { acceptedWithMessage.append(pair[1].stringValue) }
        }
        #expect(acceptedWithMessage.isEmpty, "invalid PSBTs read without error: \(acceptedWithMessage)")
    }

    @Test func everyValidPSBT_isRead_andWrittenBackByteForByte() throws {
        for v in corpus.array("valid") {
            let text = v.stringValue
            let psbt = try PSBT.read(text: text)
            #expect(psbt.base64 == text)
        }
    }

    @Test func finalizer_andExtractor_reproduceTheVectors() throws {
        let f = corpus.array("finalizer")[0]
        var psbt = try PSBT.read(text: f.string("finalize"))
        let (done, left) = psbt.finalize()
        #expect(done == [0, 1])
        #expect(left.isEmpty)
        let expected = try PSBT.read(text: f.string("result"))
        for i in psbt.inputs.indices {
            #expect(Set(psbt.inputs[i].records.map(\.key)) == Set(expected.inputs[i].records.map(\.key)))
            for r in expected.inputs[i].records {
                #expect(psbt.inputs[i].records.first { $0.key == r.key }?.value == r.value)
            }
        }
        let x = corpus.array("extractor")[0]
        let tx = try PSBT.read(text: x.string("extract")).extract()
        #expect(Hex.encode(tx.serialized) == x.string("result"))
    }

    @Test func combiner_mergesEveryRecord() throws {
        let c = corpus.array("combiner")[0]
        let parts = try c.array("combine").map { try PSBT.read(text: $0.stringValue) }
        var combined = parts[0]
        for p in parts.dropFirst() { combined = try combined.combined(with: p) }
        let expected = try PSBT.read(text: c.string("result"))
        #expect(
            Set(combined.inputs.flatMap { $0.records.map(\.key) })
                == Set(expected.inputs.flatMap { $0.records.map(\.key) }))
        for (a, b) in zip(combined.inputs, expected.inputs) {
            #expect(Set(a.records.map { $0.key + $0.value }) == Set(b.records.map { $0.key + $0.value }))
        }
    }
}

extension PSBTVectorTests {
    /// Core's signer vectors (BIP-174's 2-of-2 P2SH and P2SH-P2WSH, and the PSBTs a signer must
    /// not sign): each WIF key signs what it can; the signatures are compared by key and verified
    /// (Core grinds for low R, so the bytes differ), and where Core adds none, kcs adds none.
    @Test func signerVectors_signTheSameInputs_withSignaturesThatVerify() throws {
        for c in corpus.array("signer") {
            var psbt = try PSBT.read(text: c.string("psbt"))
            let expected = try PSBT.read(text: c.string("result"))
            for wif in c.strings("privkeys") {
                let key = try WIF(wif).privateKey
                var ring = BitcoinKeyRing(fingerprint: nil, lone: key.publicKey) { _ in key.publicKey }
                var policy = PSBTPolicy(chain: .test)
                policy.allowMissingPrevTx = true
                let plan = try psbt.plan(keys: &ring, policy: policy)
                guard plan.refusals.isEmpty else { continue }
                for step in plan.steps {
                    let sig = try key.sign(digest: step.sighash).signature
                    #expect(Secp256k1.verify(sig, digest: step.sighash, publicKey: key.publicKey))
                    psbt.add(sig.der + [UInt8(step.sighashType)], for: step)
                }
            }
            for (ours, theirs) in zip(psbt.inputs, expected.inputs) {
                #expect(Set(ours.partialSignatures.map(\.publicKey)) == Set(theirs.partialSignatures.map(\.publicKey)))
            }
        }
    }
}

private let bip174 = Vectors.json("bitcoin/bip174.json")
private let bip371 = Vectors.json("bitcoin/bip371.json")

/// The BIP texts' own vectors (Vectors/bitcoin/bip174.json and bip371.json, extracted from the
/// BIPs by script; Core's corpus above holds most of them, three differ in the sources).
@Suite("PSBT vectors (BIP-174, BIP-371 texts)")
struct PSBTBIPVectorTests {
    @Test func invalidRefused_validReadAndWrittenBack() throws {
        for file in [bip174, bip371] {
            for v in file.array("invalid") {
                #expect(throws: PSBTError.self, "\(v.string("description"))") { try PSBT.read(text: v.string("psbt")) }
            }
            for v in file.array("valid") {
                let psbt = try PSBT.read(text: v.string("psbt"))
                #expect(psbt.base64 == v.string("psbt"), "\(v.string("description"))")
            }
        }
    }

    /// BIP-174's "fails signer checks": each PSBT's first input is not signed by the role chain's
    /// first signer, with a refusal or a note that names it.
    @Test func failsSignerChecks_areNotSigned() throws {
        let keys = try bip174.object("roleChain").object("signer1").array("keys").map {
            try WIF($0.string("wif")).privateKey
        }
        for v in bip174.array("failsSignerChecks") {
            let psbt = try PSBT.read(text: v.string("psbt"))
            for key in keys {
                var ring = BitcoinKeyRing(fingerprint: nil, lone: key.publicKey) { _ in key.publicKey }
                var policy = PSBTPolicy(chain: .test)
                policy.allowMissingPrevTx = true
                let plan = try psbt.plan(keys: &ring, policy: policy)
                let refused = !plan.refusals.isEmpty || plan.inputs[0].step == nil
                #expect(refused, "\(v.string("description"))")
            }
        }
    }

    @Test func roleChain_extractorGivesTheBIPsTransaction() throws {
        let x = bip174.object("roleChain").object("extractor")
        // Its input is the finalizer's result.
        let tx = try PSBT.read(text: bip174.object("roleChain").object("finalizer").object("result").string("psbt"))
            .extract()
        #expect(Hex.encode(tx.serialized) == x.string("transactionHex"))
    }
}
