// Token permits in the typed-data review (docs/signing-review.md, "Permits"): Permit2's
// PermitSingle with an unlimited amount, an EIP-2612 Permit with a finite one.
import Foundation
import KCSTestSupport
import Testing
import WalletCore

@Suite("Permits in the typed-data review")
struct PermitReviewTests {
    @Test("Permit2 PermitSingle, amount 2^160 − 1: unlimited, flagged; its expiration and deadline as dates")
    func permit2Unlimited() throws {
        let doc = try String(
            contentsOf: TestPaths.root.appendingPathComponent(
                "Tests/TranscriptTests/Scripts/eth/permit2-unlimited.json"),
            encoding: .utf8)
        let review = try SigningReview.typedData(TypedData(json: Array(doc.utf8)))
        let text = review.rendered(width: 200)
        #expect(
            review.warnings.contains {
                $0.hasPrefix(
                    "unlimited permit: 0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD may take every token 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
                )
            })
        #expect(
            text.contains(
                "1461501637330902918203684832716283019655932542975 (unlimited) of token 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48, allowance until 2027-01-01 00:00:00 UTC"
            ), "\(text)")
        #expect(text.contains("signature valid until  2026-01-01 00:00:00 UTC"), "\(text)")
        #expect(text.contains("EIP-712 Digest") && text.contains("Domain Hash") && text.contains("Message Hash"))
    }

    @Test("EIP-2612 Permit with a finite value: summarised, not flagged")
    func eip2612Finite() throws {
        let doc = """
            {"types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}],
              "Permit": [{"name": "owner", "type": "address"}, {"name": "spender", "type": "address"},
                {"name": "value", "type": "uint256"}, {"name": "nonce", "type": "uint256"}, {"name": "deadline", "type": "uint256"}]},
             "primaryType": "Permit",
             "domain": {"name": "USD Coin", "version": "2", "chainId": 1, "verifyingContract": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"},
             "message": {"owner": "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", "spender": "0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD",
               "value": 1000000, "nonce": 0, "deadline": 1767225600}}
            """
        let review = try SigningReview.typedData(TypedData(json: Array(doc.utf8)))
        #expect(!review.warnings.contains { $0.hasPrefix("unlimited permit") })
        #expect(
            review.lines.contains {
                $0.label == "allows"
                    && $0.value == "1000000 token units of token 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
            })
        #expect(review.lines.contains { $0.label == "signature valid until" && $0.value == "2026-01-01 00:00:00 UTC" })
    }
}
