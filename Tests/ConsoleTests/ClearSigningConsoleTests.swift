// `--descriptor` at the console (docs/eth-signing.md, "ERC-7730"): the review of `sign tx` and
// `sign typed` labelled by a clear-signing descriptor, one that does not apply said so, a bad one
// named.
import Foundation
import KCSTestSupport
import Testing

private let folder = TestPaths.root.appendingPathComponent("Tests/TranscriptTests/Scripts/eth/erc7730").path

@Suite("ERC-7730 descriptors at the console")
struct ClearSigningConsoleTests {
    @Test func descriptorsLabelTheReview() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let permit = try home.write(
            #"{"types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "version", "type": "string"}, {"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}], "Permit": [{"name": "owner", "type": "address"}, {"name": "spender", "type": "address"}, {"name": "value", "type": "uint256"}, {"name": "nonce", "type": "uint256"}, {"name": "deadline", "type": "uint256"}]}, "primaryType": "Permit", "domain": {"name": "USD Coin", "version": "2", "chainId": 42161, "verifyingContract": "0xaf88d065e77c8cC2239327C5EDb3A432268e5831"}, "message": {"owner": "0x742d35Cc6634C0532925a3b844Bc454e4438f44e", "spender": "0x1111111254EEB25477B68fb85Ed929f73A960582", "value": "250000000", "nonce": "7", "deadline": "1780000000"}}"#,
            to: "permit.json")
        let bad = try home.write("{}", to: "bad.json")
        let approve =
            #"{"type": 2, "chainId": CHAIN, "nonce": 21, "gas": 76203, "maxFeePerGas": "23 gwei", "maxPriorityFeePerGas": "1 gwei", "to": "0xae7ab96520DE3A18E5e111B5EaAb095312D7fE84", "data": "0x095ea7b300000000000000000000000040aa958dd87fc8305b97f2ba922cddca374bcd7f0000000000000000000000000000000000000000000000000354a6ba7a180000"}"#
        let steth = folder + "/registry/lido/calldata-stETH.json"
        let r = try home.run(
            """
            print (sign tx \(approve.replacingOccurrences(of: "CHAIN", with: "1")) --dry-run --descriptor "\(steth)").review
            print (sign tx \(approve.replacingOccurrences(of: "CHAIN", with: "10")) --dry-run --descriptor "\(steth)").review
            print (sign typed "\(permit)" --dry-run --descriptor "\(folder)/registry/permit/eip712-permit-arbitrum-usdc.json").review
            try { sign typed "\(permit)" --dry-run --descriptor "\(bad)" } catch e { print "E", e.kind, e.message }
            """)
        #expect(r.code == 0, "\(r.err)")
        // The review wraps long values onto indented lines: compare with the whitespace collapsed.
        let flat = r.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for shown in [
            "Approve 0x40aA958dd87FC8305b97f2BA922CDdCa374bcD7f to spend 0.24 stETH (descriptor of Lido DAO)",
            "Spender", "0.24 stETH", "approve(address,uint256), selector 0x095ea7b3",
            "does not cover this call: shown as kcs decodes it",
            "Authorize spending of tokens (descriptor of USDC)", "Max spending amount", "250 USDC",
            "2026-05-28 20:26:40 UTC", "EIP-712 Digest",
        ] {
            #expect(flat.contains(shown), "missing \(shown): \(r.out)")
        }
        #expect(
            tagged("E", in: r.out) == [
                "eth.descriptor.malformed ERC-7730 descriptor \(bad): expected display.formats (an ERC-7730 descriptor)"
            ], "\(r.out)")
    }
}
