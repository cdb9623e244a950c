// `sign userop` at the console (docs/eth-signing.md, "ERC-4337"): the review, the owner's
// signature recovered over the right digest for each EntryPoint version, and an unknown
// EntryPoint refused.
import Foundation
import KCSTestSupport
import Testing

private let op =
    #"{"sender": "0x1234567890123456789012345678901234567890", "nonce": "0x0000000000000000000000000000000000000000000000070000000000000003", "callData": "0xb61d27f6", "callGasLimit": 6942069, "verificationGasLimit": 6942069, "preVerificationGas": 6942069, "maxFeePerGas": "2 gwei", "maxPriorityFeePerGas": "1 gwei", "paymaster": "0x1234567890123456789012345678901234567890", "paymasterVerificationGasLimit": 100000, "paymasterPostOpGasLimit": 50000}"#

@Suite("sign userop at the console")
struct UserOpConsoleTests {
    @Test func review_signatures_andAnUnknownEntryPoint() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let key = "0x" + String(repeating: "aa", count: 32)
        let r = try home.run(
            """
            let d = sign userop \(op) --entrypoint 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108 --chain 8453 --dry-run
            print d.review
            let s8 = sign userop \(op) --entrypoint 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108 --chain 8453 --key \(key)
            print "V8", (recover $s8.userOpHash $s8.signature), hex(s8.userOpHash) == hex(d.userOpHash)
            let s7 = sign userop \(op) --entrypoint 0x0000000071727De22E5E9d8BAf0edAc6f37da032 --chain 8453 --key \(key)
            print "V7", (recover $s7.signature --message $s7.userOpHash), s7.entryPointVersion
            try { sign userop \(op) --entrypoint 0x1234567890123456789012345678901234567890 --chain 1 --key \(key) } catch e { print "E", e.kind, e.message }
            """)
        #expect(r.code == 0, "\(r.err)")
        for shown in [
            "ERC-4337 user operation (EntryPoint v0.8)", "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108 (v0.8)",
            "Base (8453)", "(key 7, sequence 3)",
            "0x1234567890123456789012345678901234567890 (verification gas 100,000,",
            "worst-case fee            0.041952414 ETH", "EIP-712 Digest (userOpHash) 0x",
        ] {
            #expect(r.out.contains(shown), "missing \(shown): \(r.out)")
        }
        // v0.8's owner signs the userOpHash itself; v0.7's SimpleAccount its EIP-191 hash.
        #expect(tagged("V8", in: r.out) == ["0x8fd379246834eac74B8419FfdA202CF8051F7A03 true"])
        #expect(tagged("V7", in: r.out) == ["0x8fd379246834eac74B8419FfdA202CF8051F7A03 0.7"])
        #expect(
            tagged("E", in: r.out).first?.hasPrefix(
                "builtin.outOfRange sign.userop: --entrypoint must be an EntryPoint kcs knows") == true, "\(r.out)")
    }
}
