// EIP-7702 on a real EVM (docs/eth-signing.md): kcs signs an authorization and the set-code
// transaction that carries it — a software key and the simulated card — and py-evm's Prague
// rules (tools/evm-node/evm_node.py) are the judge: the authority's code becomes
// 0xef0100 ‖ delegate, the delegate's code runs in the account, a revocation clears it, and a
// self-sponsored tuple with the wrong nonce is caught by kcs before anything is sent.
import EthRPC
import Foundation
import KCSTestSupport
import Testing

/// m/44'/60'/0'/0/0 and /1 of `testMnemonic`.
private let account0 = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
private let account1 = "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0"
private let zero = "0x0000000000000000000000000000000000000000"

/// Deploys the delegate the spec's snippet uses: runtime code `SSTORE(0, 1)` (0x6001600055),
/// created by `PUSH5 code, PUSH1 0, MSTORE, PUSH1 5, PUSH1 27, RETURN`. Its address.
private func deployDelegate(_ chain: EVMChain) throws -> String {
    let accounts = try chain.rpc.call("eth_accounts") as! [String]
    let hash = try #require(
        chain.rpc.call(
            "eth_sendTransaction",
            [["from": accounts[0], "data": "0x6460016000556000526005601bf3", "gas": "0x186a0"]]) as? String)
    let receipt = try #require(try chain.receipt(hash))
    return try #require(receipt["contractAddress"] as? String)
}

/// A home with `delegate` on the user's allowlist for the eth-tester chain.
private func homeAllowing(_ delegate: String, _ chain: EVMChain) throws -> BatchHome {
    let home = try chain.home()
    let dir = home.folder.appendingPathComponent("home")
    try FileManager.default.createDirectory(
        at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let list = #"[{"chainId": 131277322940537, "address": "\#(delegate)", "name": "test delegate SSTORE(0,1)"}]"#
    try list.write(to: dir.appendingPathComponent("delegates.json"), atomically: true, encoding: .utf8)
    return home
}

@Suite("EIP-7702 authorizations from kcs on a py-evm node (Prague)")
struct EIP7702EVMTests {
    /// A software key delegates its own account (self-sponsored: the tuple's nonce is the
    /// node's + 1), the delegate's code runs in it, a wrong nonce is refused before sending, and
    /// a revocation clears the code.
    @Test func softwareKey_delegatesItsAccount_thenRevokes() throws {
        let chain = try EVMChain()
        defer { chain.node.stop() }
        try chain.fund(account0, wei: "1000000000000000000")
        let delegate = try deployDelegate(chain)
        let home = try homeAllowing(delegate, chain)
        defer { home.remove() }
        let r = try home.run(
            """
            import mnemonic "\(testMnemonic)" --name demo
            use key demo-0
            let a = sign auth --delegate "\(delegate)" --self-sponsored
            print "A", a.nonce, a.chainId == eth.chainId(), a.authority, a.verified
            let t = sign tx {"type": 4, "to": "\(account0)", "gas": 200000, "authorizationList": [a.authorization]}
            let s = eth.send $t.raw --wait
            print "S", s.receipt.status, hex(s.hash) == hex(t.hash)
            print "H", len((history --kind authorization))
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("A", in: r.out) == ["1 true \(account0) true"])
        #expect(tagged("S", in: r.out) == ["success true"])
        #expect(tagged("H", in: r.out) == ["1"])
        let code = try #require(chain.rpc.call("eth_getCode", [account0, "latest"]) as? String)
        #expect(code == "0xef0100" + delegate.dropFirst(2).lowercased())
        let slot = try #require(chain.rpc.call("eth_getStorageAt", [account0, "0x0", "latest"]) as? String)
        #expect(slot == "0x" + String(repeating: "0", count: 63) + "1")

        // The tuple with the account's current nonce (no + 1) would be skipped silently: refused.
        let wrong = try home.run(
            """
            use key demo-0
            let n = eth.nonce()
            let a = sign auth --delegate "\(zero)" --nonce $n
            sign tx {"type": 4, "to": "\(account0)", "gas": 200000, "authorizationList": [a.authorization]}
            """, name: "wrong-nonce.kcs")
        #expect(wrong.code != 0)
        #expect(wrong.err.contains("its nonce must be the transaction's nonce + 1 = 3"), "\(wrong.err)")
        #expect(wrong.err.contains("nothing was signed"))
        #expect(try chain.quantity("eth_getTransactionCount", [account0, "latest"]) == 2)

        // Another authority's tuple (key aa…, nonce 0 at the node) with nonce 5, and a tuple whose s is
        // high (eth-account's docstring tuple with s → n − s): the node would skip both; refused.
        let aa = "0x" + String(repeating: "aa", count: 32)
        let others = try home.run(
            """
            use key demo-0
            let a = sign auth --delegate "\(delegate)" --nonce 5 --key \(aa)
            try { sign tx {"type": 4, "to": "\(account0)", "gas": 200000, "authorizationList": [a.authorization]} } catch e { print "E1", e.kind, e.message }
            let b = sign auth --delegate "\(delegate)" --key \(aa)
            print "B", b.nonce, len((sign tx {"type": 4, "to": "\(account0)", "gas": 200000, "authorizationList": [b.authorization]}).raw) > 0
            let high = {"chainId": 1337, "address": "0x5ce9454909639D2D17A3F753ce7d93fa0b9aB12E", "nonce": 1, "yParity": 0, "r": "0x735375048fc96b87390b5a11c411fc57245d8e55038bf49e659d048a0d1a3f87", "s": "0x80b4c24bb77ba34de87ed0dc394cba151b81bb22608791a816e2250b8eceffd0"}
            try { sign tx {"type": 4, "chainId": 1337, "to": "\(account0)", "gas": 200000, "authorizationList": [high]} --offline } catch e { print "E2", e.kind }
            """, name: "others.kcs")
        #expect(others.code == 0, "\(others.err)")
        #expect(
            tagged("E1", in: others.out).first?.hasPrefix(
                "eth.auth.sponsoredNonce sign.tx: authorizationList[0]'s authority 0x8fd379246834eac74B8419FfdA202CF8051F7A03 has nonce 0 at the node, not 5"
            ) == true, "\(others.out)")
        #expect(tagged("B", in: others.out) == ["0 true"])
        #expect(tagged("E2", in: others.out) == ["eth.auth.noAuthority"])
        #expect(try chain.quantity("eth_getTransactionCount", [account0, "latest"]) == 2)

        let revoke = try home.run(
            """
            use key demo-0
            let a = sign auth --delegate "\(zero)" --self-sponsored
            let d = sign auth --delegate "\(zero)" --self-sponsored --dry-run
            print d.review
            let t = sign tx {"type": 4, "to": "\(account0)", "gas": 200000, "authorizationList": [a.authorization]}
            let s = eth.send $t.raw --wait
            print "S", s.receipt.status
            """, name: "revoke.kcs")
        #expect(revoke.code == 0, "\(revoke.err)")
        #expect(revoke.out.contains("EIP-7702 authorization: revoke the account's delegation"))
        #expect(revoke.out.lowercased().contains("delegated now to \(delegate.lowercased())"), "\(revoke.out)")
        #expect(tagged("S", in: revoke.out) == ["success"])
        #expect(try chain.rpc.call("eth_getCode", [account0, "latest"]) as? String == "0x")
    }

    /// The simulated card signs both the tuple and the transaction (two SIGNs); an unknown
    /// delegate is refused in batch unless --allow-unknown-delegate.
    @Test func simulatedCard_signsTupleAndTransaction() throws {
        let chain = try EVMChain()
        defer { chain.node.stop() }
        try chain.fund(account1, wei: "1000000000000000000")
        let delegate = try deployDelegate(chain)
        let home = try chain.home()
        defer { home.remove() }
        let r = try home.run(
            """
            card.connect
            card.init --pin "123456" --puk "987654321098" --pairing "evm pairing"
            card.login "123456" --password "evm pairing"
            card.load mnemonic "\(testMnemonic)" --name kc
            use card
            derive "m/44'/60'/0'/0/1"
            try { sign auth --delegate "\(delegate)" --self-sponsored } catch e { print "R", e.kind }
            let a = sign auth --delegate "\(delegate)" --self-sponsored --allow-unknown-delegate
            print "A", a.authority, a.verified, a.key
            let t = sign tx {"type": 4, "to": "\(account1)", "gas": 200000, "authorizationList": [a.authorization]}
            let s = eth.send $t.raw --wait
            print "S", s.receipt.status, s.sender
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("R", in: r.out) == ["eth.auth.unknownDelegate"])
        #expect(tagged("A", in: r.out) == ["\(account1) true kc"])
        #expect(tagged("S", in: r.out) == ["success \(account1)"])
        let code = try #require(chain.rpc.call("eth_getCode", [account1, "latest"]) as? String)
        #expect(code == "0xef0100" + delegate.dropFirst(2).lowercased())
    }
}
