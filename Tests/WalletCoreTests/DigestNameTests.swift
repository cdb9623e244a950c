// ERC-8213's digests by name (docs/signing-review.md, "Digests by name"): the Calldata Digest and
// the three typed-data hashes, from the ERC's own test case and the erc8213 site's tests
// (ethereum/ERCs:ERCS/erc-8213.md; PatrickAlphaC/erc8213:app/lib/digests.test.ts), and from
// eth-account and eth-hash (the project's EVM venv) on random call data.
import Foundation
import KCSTestSupport
import Testing
import WalletCore
import WalletCrypto

private func hex(_ b: [UInt8]) -> String { "0x" + Hex.encode(b) }

@Suite("ERC-8213 digests by name")
struct DigestNameTests {
    @Test("Calldata Digest: the ERC's transfer and empty call data")
    func calldataDigestVectors() throws {
        let transfer = try Hex.decode(
            "a9059cbb0000000000000000000000004675c7e5baafbffbca748158becba61ef3b0a2630000000000000000000000000000000000000000000000000de0b6b3a7640000"
        )
        #expect(hex(CallData.digest(transfer)) == "0x812cee5d9cc7461c04bbcd7b70af9c28b243ac5d74d3453b008b93b7dac69985")
        #expect(hex(CallData.digest([])) == "0x290decd9548b62a8d60345a988386fc84ba6bc95484008f6362f93160ef3e563")
    }

    @Test("typed data: Domain Hash, Message Hash and EIP-712 Digest of the site's Permit2 example, named in the review")
    func typedDataVectors() throws {
        let permit2 = """
            {"types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"},
              {"name": "verifyingContract", "type": "address"}],
             "PermitTransferFrom": [{"name": "permitted", "type": "TokenPermissions"}, {"name": "spender", "type": "address"},
              {"name": "nonce", "type": "uint256"}, {"name": "deadline", "type": "uint256"}],
             "TokenPermissions": [{"name": "token", "type": "address"}, {"name": "amount", "type": "uint256"}]},
             "primaryType": "PermitTransferFrom",
             "domain": {"name": "Permit2", "chainId": 1, "verifyingContract": "0x000000000022D473030F116dDEE9F6B43aC78BA3"},
             "message": {"permitted": {"token": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "amount": 1000000000},
              "spender": "0xE592427A0AEce92De3Edee1F18E0157C05861564", "nonce": 0, "deadline": 1893456000}}
            """
        let typed = try TypedData(json: Array(permit2.utf8))
        #expect(
            hex(try typed.domainSeparator()) == "0x866a5aba21966af95d6c7ab78eb2b2fc913915c28be3b9aa07cc04ff903e3f28")
        #expect(hex(try typed.messageHash()) == "0x7d1be9b8c7677c8cc6adba965260e35822632ef4eb35ddd5d6aafe26cb1ef882")
        #expect(hex(try typed.digest()) == "0x01e5a64a608f03873d795fe77fe6bcd1a15692ee25bc02dd638b8fbc3753625c")
        let review = try SigningReview.typedData(typed)
        let lines = Dictionary(review.lines.map { ($0.label, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(lines["Domain Hash"] == "0x866a5aba21966af95d6c7ab78eb2b2fc913915c28be3b9aa07cc04ff903e3f28")
        #expect(lines["Message Hash"] == "0x7d1be9b8c7677c8cc6adba965260e35822632ef4eb35ddd5d6aafe26cb1ef882")
        #expect(review.digestName == "EIP-712 Digest")
        let digestLine = review.rendered().split(separator: "\n").first { $0.hasPrefix("  EIP-712 Digest ") }
        #expect(digestLine?.hasSuffix(" 0x01e5a64a608f03873d795fe77fe6bcd1a15692ee25bc02dd638b8fbc3753625c") == true)
    }

    @Test("a transaction with call data names its Calldata Digest; one without has none")
    func transactionReview() throws {
        let to = try EthereumAddress("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48")
        let data = try Hex.decode(
            "a9059cbb0000000000000000000000004675c7e5baafbffbca748158becba61ef3b0a2630000000000000000000000000000000000000000000000000de0b6b3a7640000"
        )
        let tx = EthereumTransaction(
            type: .dynamicFee, chainID: UInt256(1), nonce: .zero, maxPriorityFeePerGas: UInt256(1),
            maxFeePerGas: UInt256(2), gasLimit: UInt256(60000), to: to, value: .zero, data: data)
        let review = SigningReview.transaction(tx)
        #expect(
            review.lines.contains {
                $0.label == "Calldata Digest"
                    && $0.value == "0x812cee5d9cc7461c04bbcd7b70af9c28b243ac5d74d3453b008b93b7dac69985"
            })
        var plain = tx
        plain.data = []
        #expect(!SigningReview.transaction(plain).lines.contains { $0.label == "Calldata Digest" })
    }

    @Test("eth-hash agrees on random call data of every length up to 300 bytes")
    func calldataDigest_againstEthHash() throws {
        let random = SeededRandom(seed: 8213)
        let samples = (0..<40).map { i in random.bytes(i * 7 + (i % 3)) }
        let script = """
            import sys
            from eth_hash.auto import keccak
            for line in sys.stdin.read().split():
                d = bytes.fromhex(line[1:])
                print("0x" + keccak(len(d).to_bytes(32, "big") + d).hex())
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: EVMNode.python)
        p.arguments = ["-c", script]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(Data(samples.map { "x" + Hex.encode($0) + "\n" }.joined().utf8))
        input.fileHandleForWriting.closeFile()
        let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(answer.split(separator: "\n").map(String.init) == samples.map { hex(CallData.digest($0)) })
    }
}
