// EIP-681 payment requests, with the examples of ethereum/EIPs EIPS/eip-681.md ("Examples").
import Testing
import WalletCore

@Suite("EIP-681 payment requests")
struct PaymentRequestTests {
    @Test func eipExamples_keepAmountChainAndCall() throws {
        // "Payment request to address 0xfb69… with 2.014 ETH", chain 1 spelled out here. The EIP
        // writes the address in mixed case that is not its EIP-55 checksum: refused as a typo would
        // be; in lower case (no checksum claimed) it reads.
        #expect(throws: EthereumError.self) {
            try PaymentRequest.parse("ethereum:0xfb6916095ca1df60bb79Ce92ce3Ea74c37c5d359?value=2.014e18")
        }
        let pay = try #require(
            try PaymentRequest.parse("ethereum:0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359@1?value=2.014e18"))
        #expect(pay.target.checksummed == "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359")
        #expect(pay.chainID == UInt256(1) && pay.value == UInt256(decimal: "2014000000000000000"))
        #expect(SigningReview.amount(pay.value!, symbol: "ETH") == "2.014 ETH (2,014,000,000,000,000,000 wei)")
        // "Requesting payments in ERC20 tokens": transfer 1 unit to 0x8e23… on the token contract.
        let token = try #require(
            try PaymentRequest.parse(
                "ethereum:0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7/transfer?address=0x8e23ee67d1332ad560396262c48ffbb01f93d052&uint256=1"
            ))
        #expect(
            token.function == "transfer" && token.parameter("address") == "0x8e23ee67d1332ad560396262c48ffbb01f93d052")
        #expect(token.parameter("uint256") == "1" && token.value == nil && token.chainID == nil)
        // pay- prefix, gas values, 1.50e1 is whole.
        let p = try #require(
            try PaymentRequest.parse(
                "ethereum:pay-0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359@137?value=1.50e1&gasLimit=21000"))
        #expect(p.chainID == UInt256(137) && p.value == UInt256(15))
        #expect(try PaymentRequest.parse("bitcoin:1BoatSLRHtKNngkdXEeobR76b53LETtpyT") == nil)
    }

    @Test func malformedRequests_areRefused() {
        for bad in [
            "ethereum:0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359?value=1.5",  // not whole
            "ethereum:0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359@0",  // chain 0
            "ethereum:0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359@18446744073709551617",
            "ethereum:0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359?value=1&value=2",  // said twice
            "ethereum:vitalik.eth?value=1",
        ] {  // ENS: not resolved
            #expect(throws: EthereumError.self, "\(bad)") { try PaymentRequest.parse(bad) }
        }
    }
}
