// `--expect-digest` and `--expect-calldata-digest` (ERC-8213, docs/signing-review.md): a digest the
// person computed on another device, compared before anything is signed. The expected values are
// the EIP-712 spec's Ether Mail digest and the ERC's own Calldata Digest test case; a mismatch signs
// nothing and records nothing.
import Foundation
import KCSTestSupport
import Testing

@Suite("Signing only what was checked elsewhere")
struct ExpectDigestTests {
    @Test func mismatch_signsNothing_match_signs() throws {
        var home = try BatchHome()
        defer { home.remove() }
        home.environment["KCS_VAULT_PASSPHRASE"] = "a long enough passphrase"
        let mail = TestPaths.root.appendingPathComponent("Tests/TranscriptTests/Scripts/eth/mail.json").path
        let transfer =
            "0xa9059cbb0000000000000000000000004675c7e5baafbffbca748158becba61ef3b0a2630000000000000000000000000000000000000000000000000de0b6b3a7640000"
        let r = try home.run(
            """
            import mnemonic "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about" --name w
            use key w-0
            try { sign typed "\(mail)" --expect-digest 0x\(String(repeating: "00", count: 31))01 } catch e { print e.kind }
            print len(history())
            print (sign typed "\(mail)" --expect-digest 0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2).digest
            try { sign typed "\(mail)" --expect-digest "0x12" } catch e { print e.kind }
            let tx = {"type": 2, "chainId": 1, "nonce": 0, "to": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "gas": 60000, "maxFeePerGas": "20 gwei", "maxPriorityFeePerGas": "1 gwei", "data": "\(transfer)"}
            try { sign tx $tx --offline --expect-calldata-digest 0x812cee5d9cc7461c04bbcd7b70af9c28b243ac5d74d3453b008b93b7dac69986 } catch e { print e.kind }
            print len(history())
            print (sign tx $tx --offline --expect-calldata-digest 0x812cee5d9cc7461c04bbcd7b70af9c28b243ac5d74d3453b008b93b7dac69985).calldataDigest
            print len(history())
            """, name: "expect.kcs")
        #expect(r.code == 0, "\(r.err)")
        #expect(
            r.out == """
                sign.digestMismatch
                0
                0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2
                builtin.outOfRange
                sign.digestMismatch
                1
                0x812cee5d9cc7461c04bbcd7b70af9c28b243ac5d74d3453b008b93b7dac69985
                2

                """, "\(r.out)\(r.err)")
    }
}
