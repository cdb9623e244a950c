// Safe owners at the console (docs/eth-signing.md, "Safe"): a proposed transaction imported from
// the Safe Transaction Service's JSON (safe-eth-py's mock of a Gnosis Chain Safe) with its hash
// recomputed — right on chain 100, refused on any other —, owners confirming with a software key,
// the simulated card and --eth-sign, their signatures packed, and a delegatecall's review at a
// terminal.
import Foundation
import KCSTestSupport
import Testing

private let mockSafe = "0xAedF684C1c41B51CbD228116e11484425d2FACB9"
private let mockHash = "0x06c88df42a8ab64b2b2c5e2b5c8c4df384c267b39929a8416d1518db23f91783"

/// safe-global/safe-eth-py safe_eth/safe/tests/mocks/mock_transactions.py, the fields that are hashed
/// and a few the service adds.
private let serviceJSON = """
    {"safe": "\(mockSafe)", "to": "\(mockSafe)", "value": "0",
     "data": "0xe318b52b0000000000000000000000000000000000000000000000000000000000000001000000000000000000000000c6b82ba149cfa113f8f48d5e3b1f78e933e16dfd0000000000000000000000003066786706ff0b6e71044e55074dbae7d01573cb",
     "operation": 0, "gasToken": "0x0000000000000000000000000000000000000000", "safeTxGas": 0, "baseGas": 0,
     "gasPrice": "0", "refundReceiver": "0x0000000000000000000000000000000000000000", "nonce": 5,
     "safeTxHash": "\(mockHash)", "proposer": "0xc6b82bA149CFA113f8f48d5E3b1F78e933e16DfD", "isExecuted": true,
     "dataDecoded": {"method": "swapOwner", "parameters": []}, "confirmationsRequired": 1,
     "confirmations": [{"owner": "0xc6b82bA149CFA113f8f48d5E3b1F78e933e16DfD", "submissionDate": "2024-01-24T15:22:55Z",
       "transactionHash": null, "signatureType": "APPROVED_HASH",
       "signature": "0x000000000000000000000000c6b82ba149cfa113f8f48d5e3b1f78e933e16dfd000000000000000000000000000000000000000000000000000000000000000001"}]}
    """

@Suite("Safe owners at the console")
struct SafeConsoleTests {
    @Test func serviceJSON_isRecomputed_andOwnersConfirmAndCombine() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let file = try home.write(serviceJSON, to: "proposed.json")
        let r = try home.run(
            """
            let p = safe.tx "\(file)" --chain 100
            print "P", hex(p.safeTxHash), p.safe, p.version, p.confirmations[0].owner, p.confirmations[0].kind
            import privkey 0x1111111111111111111111111111111111111111111111111111111111111111 --name owner1
            card.connect --sim safe-owner
            card.init --pin "123456" --puk "987654321098" --pairing "safe pairing"
            card.login "123456" --password "safe pairing"
            card.load mnemonic "\(testMnemonic)" --name kc
            use card
            derive "m/44'/60'/0'/0/0"
            let a = sign safe "\(file)" --chain 100 --key owner1
            let b = sign safe "\(file)" --chain 100 --key kc
            let c = sign safe "\(file)" --chain 100 --key 0x2222222222222222222222222222222222222222222222222222222222222222 --eth-sign
            print "A", a.owner, a.verified, len(a.signature), a.signature[64]
            print "B", b.owner, b.verified, b.key
            print "C", c.signature[64] > 30
            print "J", a.confirmation
            let all = safe.combine $p.safeTxHash [a, b, c, p.confirmations[0].signature]
            print "N", all.count, len(all.signatures)
            print "PACKED", hex(all.signatures)
            for o in all.owners { print "O", o.owner, o.kind }
            try { safe.combine $p.safeTxHash [{"owner": c.owner, "signature": a.signature}] } catch e { print "X", e.kind }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(
            tagged("P", in: r.out) == [
                "\(mockHash) \(mockSafe) 1.3.0 0xc6b82bA149CFA113f8f48d5E3b1F78e933e16DfD approved hash"
            ])
        // v 27 as eth-account's unsafe_sign_hash gives for key 11… over the mock's hash.
        #expect(tagged("A", in: r.out) == ["0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A true 65 27"])
        #expect(tagged("B", in: r.out) == ["0x9858EfFD232B4033E47d90003D41EC34EcaEda94 true kc"])
        #expect(tagged("C", in: r.out) == ["true"])
        #expect(tagged("J", in: r.out).first?.hasPrefix(#"{"signature": "0x"#) == true)
        #expect(tagged("N", in: r.out) == ["4 260"])
        // A signature claimed for one owner that recovers to another is not that owner's confirmation.
        #expect(tagged("X", in: r.out) == ["eth.safe.notForThisHash"])
        // Ascending by owner as 160-bit numbers: 0x1563… (key 22…), 0x19E7… (key 11…), 0x9858… (card), 0xc6b8….
        #expect(
            tagged("O", in: r.out) == [
                "0x1563915e194D8CfBA1943570603F7606A3115508 EOA (eth_sign)",
                "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A EOA (EIP-712)",
                "0x9858EfFD232B4033E47d90003D41EC34EcaEda94 EOA (EIP-712)",
                "0xc6b82bA149CFA113f8f48d5E3b1F78e933e16DfD approved hash",
            ])
        // safe-eth-py reads the packed signatures — the software key's, the card's, the eth_sign one and
        // the service's approved hash — as the same owners and kinds.
        let packed = try #require(tagged("PACKED", in: r.out).first)
        let p = Process()
        p.executableURL = TestPaths.root.appendingPathComponent(".build/safe-venv/bin/python")
        p.arguments = [
            "-c",
            """
            import sys
            from hexbytes import HexBytes
            from safe_eth.safe.safe_signature import SafeSignature
            for s in SafeSignature.parse_signature(HexBytes(sys.argv[1]), HexBytes(sys.argv[2])):
                print(s.owner, s.signature_type.name)
            """, packed, mockHash,
        ]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let parsed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(
            parsed.split(separator: "\n").map(String.init) == [
                "0x1563915e194D8CfBA1943570603F7606A3115508 ETH_SIGN",
                "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A EOA",
                "0x9858EfFD232B4033E47d90003D41EC34EcaEda94 EOA",
                "0xc6b82bA149CFA113f8f48d5E3b1F78e933e16DfD APPROVED_HASH",
            ], "\(parsed)")
        // The same JSON on another chain does not hash to its safeTxHash: refused, nothing signed.
        let wrong = try home.run("sign safe \"\(file)\" --chain 1 --key owner1", name: "wrong.kcs")
        #expect(wrong.code != 0)
        #expect(
            wrong.err.contains(
                "the safeTxHash in \(file) is \(mockHash), but its fields hash to 0xf681258a"), "\(wrong.err)")
        #expect(wrong.err.contains("nothing was signed"))
    }

    /// At a terminal: `sign safe --dry-run` of a delegatecall shows the warning first and last, the
    /// inner call decoded, and the digests by their ERC-8213 names; a Permit2 with an unlimited
    /// amount is flagged the same way.
    @Test func terminal_delegatecallAndPermit2Reviews() throws {
        let home = try BatchHome()
        defer { home.remove() }
        // A Permit2 PermitSingle of 2^160 − 1 USDC: unlimited.
        let permit2 = TestPaths.root.appendingPathComponent("Tests/TranscriptTests/Scripts/eth/permit2-unlimited.json")
            .path
        let t = try TerminalSession(environment: home.environment, folder: home.folder)
        try t.answer(
            "kcs> ",
            with:
                #"print (sign safe {"to": "0x7b79995e5f793A07Bc00c21412e50Ecae098E7f9", "operation": 1, "nonce": 6, "data": "0x095ea7b3000000000000000000000000fe2f653f6579de62aaf8b186e618887d03fa3126ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"} --safe 0x86D46EcD553d25da0E3b96A9a1B442ac72fa9e9F --chain 11155111 --dry-run).review"#
        )
        try t.expect("EIP-712 Digest (safeTxHash)")
        try t.answer("kcs> ", with: "print (sign typed \"\(permit2)\" --dry-run).review")
        try t.expect("! unlimited permit")
        let text = try t.quit()
        for shown in [
            "Safe transaction (SafeTx, EIP-712)", "! DELEGATECALL: the Safe runs the code of `to` as itself",
            "inner call", "by DELEGATECALL", "approve(address,uint256)", "! unlimited approval",
            "Domain Hash", "Message Hash", "Calldata Digest",
            "PermitSingle: 0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD may take tokens", "(unlimited)",
            "! unlimited permit: 0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD may take every token",
        ] {
            #expect(text.contains(shown), "missing \(shown): \(text)")
        }
    }
}
