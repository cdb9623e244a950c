// Issue 7 §2 and §4 on a real EVM: kcs signs and sends transactions of all three types to a
// local JSON-RPC node backed by py-evm (tools/evm-node/evm_node.py, started and stopped by
// the tests), from a software HD child and from the simulated card; the node's own answers
// (eth_getTransactionByHash, receipts, balances) are the proof. Failures of the node and the
// network are clear errors, and a send is never repeated.
import EthRPC
import Foundation
import KCSTestSupport
import Testing

/// m/44'/60'/0'/0/0 and /1 of `testMnemonic` (MetaMask's first two accounts).
private let account0 = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
private let account1 = "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0"
private let payee = "0x3535353535353535353535353535353535353535"
private let ether = "1000000000000000000"

/// EIP-155's example transaction (nonce 9, 1 ether to 0x3535…), signed by a key no one funds.
private let eip155Example =
    "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83"

/// A started node and a JSON-RPC client on it, for checking what kcs did.
struct EVMChain {
    let node: EVMNode
    let rpc: JSONRPCClient

    init() throws {
        node = try EVMNode()
        rpc = JSONRPCClient(url: URL(string: node.url)!, timeout: 10)
    }

    /// Sends `wei` (decimal) from the node's first funded account to `address`.
    func fund(_ address: String, wei: String) throws {
        let accounts = try rpc.call("eth_accounts") as! [String]
        let value = "0x" + String(UInt64(wei.dropLast(9))! * 1_000_000_000, radix: 16)
        _ = try rpc.call(
            "eth_sendTransaction", [["from": accounts[0], "to": address, "value": value, "gas": "0x5208"]])
    }

    /// The mined transaction's fields as the node reports them.
    func transaction(_ hash: String) throws -> [String: Any] {
        try #require(rpc.call("eth_getTransactionByHash", [hash]) as? [String: Any])
    }

    func receipt(_ hash: String) throws -> [String: Any]? {
        try rpc.call("eth_getTransactionReceipt", [hash]) as? [String: Any]
    }

    func quantity(_ method: String, _ params: [Any]) throws -> UInt64 {
        let text = try #require(rpc.call(method, params) as? String)
        return try #require(UInt64(text.dropFirst(2), radix: 16))
    }

    /// Transaction i of `hashes` was mined successfully from `from` with nonce i, type i and
    /// value (i + 1) × `valueStep` wei, by the node's own account of it.
    func expectMinedInOrder(
        _ hashes: [String], from: String, valueStep: UInt64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (i, hash) in hashes.enumerated() {
            let tx = try transaction(hash)
            #expect((tx["from"] as? String)?.lowercased() == from.lowercased(), sourceLocation: sourceLocation)
            #expect(tx["nonce"] as? String == "0x\(i)", sourceLocation: sourceLocation)
            #expect(tx["type"] as? String == "0x\(i)", sourceLocation: sourceLocation)
            #expect(
                tx["value"] as? String == "0x" + String(UInt64(i + 1) * valueStep, radix: 16),
                sourceLocation: sourceLocation)
            #expect(try receipt(hash)?["status"] as? String == "0x1", sourceLocation: sourceLocation)
        }
    }

    /// Methods the node received, in order (GET /requests).
    func requests() throws -> [String] {
        let (_, data) = try CurlTransport().get(
            URL(string: node.url + "/requests")!, timeout: 10, method: "GET /requests")
        return try JSONSerialization.jsonObject(with: data) as! [String]
    }

    /// The methods received once `done` holds for them, or after 10 s whatever came: a request
    /// kcs gave up on may still be on its way to the node's handler.
    func requests(until done: ([String]) -> Bool) throws -> [String] {
        let deadline = Date().addingTimeInterval(10)
        var seen = try requests()
        while !done(seen) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            seen = try requests()
        }
        return seen
    }

    /// A kcs home whose runs use this node (KCS_RPC_URL).
    func home() throws -> BatchHome {
        var home = try BatchHome()
        home.environment["KCS_RPC_URL"] = node.url
        return home
    }
}

@Suite("Transactions from kcs on a py-evm node")
struct EVMTests {
    /// Signs a legacy, an EIP-2930 and an EIP-1559 transaction with the HD child demo-0, the
    /// node filling chain id, nonce, gas and fees; each is mined with the right sender,
    /// nonce, value and type. A copy with a tampered signature is refused by the EVM.
    @Test func softwareKey_allThreeTypes_minedWithRightSenderNonceAndValue() throws {
        let chain = try EVMChain()
        defer { chain.node.stop() }
        try chain.fund(account0, wei: "5" + ether.dropFirst())
        var home = try chain.home()
        defer { home.remove() }
        let r = try home.run(
            """
            import mnemonic "\(testMnemonic)" --name demo
            use key demo-0
            print "BAL", (eth.balance).wei, eth.nonce()
            let t0 = sign tx {"type": 0, "to": "\(payee)", "value": "0.01 ether"}
            print "F0", t0.type, t0.filled.chainId == eth.chainId(), t0.filled.nonce, t0.filled.gas, t0.filled.gasPrice > 0
            let s0 = eth.send $t0.raw --wait
            print "S0", hex(s0.hash), s0.sender, s0.nonce, s0.receipt.status, hex(s0.hash) == hex(t0.hash)
            let t1 = sign tx {"type": 1, "to": "\(payee)", "value": "0.02 ether", "accessList": [{"address": "\(payee)", "storageKeys": ["0x0000000000000000000000000000000000000000000000000000000000000001"]}]}
            print "F1", t1.type, t1.filled.nonce, t1.filled.gas
            let s1 = eth.send $t1.raw --wait
            print "S1", hex(s1.hash), s1.receipt.status
            let t2 = sign tx {"to": "\(payee)", "value": "0.03 ether", "gas": 21000}
            print "F2", t2.type, t2.filled.nonce, t2.filled.maxFeePerGas > t2.filled.maxPriorityFeePerGas
            let s2 = eth.send $t2.raw
            print "S2", hex(s2.hash), (eth.receipt $s2.hash).mined
            let t3 = sign tx {"to": "\(payee)", "value": "0.04 ether"}
            print "T3", hex(t3.raw), hex(t3.hash)
            print "N", eth.nonce(), (eth.balance "\(payee)").ether
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("BAL", in: r.out) == ["5\(ether.dropFirst()) 0"])
        #expect(tagged("F0", in: r.out) == ["legacy true 0 21000 true"])
        #expect(tagged("F1", in: r.out) == ["EIP-2930 1 \(21000 + 2400 + 1900)"])  // one address, one slot
        #expect(tagged("F2", in: r.out) == ["EIP-1559 2 true"])
        #expect(tagged("N", in: r.out) == ["3 0.06"])
        let sent = [tagged("S0", in: r.out).first, tagged("S1", in: r.out).first, tagged("S2", in: r.out).first]
            .map { $0?.split(separator: " ").first.map(String.init) ?? "" }
        #expect(tagged("S0", in: r.out).first?.hasSuffix(" \(account0) 0 success true") == true)
        #expect(tagged("S1", in: r.out).first?.hasSuffix(" success") == true)
        #expect(tagged("S2", in: r.out).first?.hasSuffix(" true") == true)
        try chain.expectMinedInOrder(sent, from: account0, valueStep: 10_000_000_000_000_000)

        // t3 signed but not sent: one flipped byte of s, and the EVM refuses it.
        let t3 = try #require(tagged("T3", in: r.out).first).split(separator: " ").map(String.init)
        var tampered = t3[0]
        let last = tampered.removeLast()
        tampered.append(last == "0" ? "1" : "0")
        #expect(throws: RPCError.self) { try chain.rpc.call("eth_sendRawTransaction", [tampered], retries: 0) }
        // The untampered one is still good: the refusal was the signature's doing.
        #expect(try chain.quantity("eth_getTransactionCount", [account0, "latest"]) == 3)
        let sentHash = try #require(chain.rpc.call("eth_sendRawTransaction", [t3[0]], retries: 0) as? String)
        #expect(sentHash == t3[1])
        #expect(try chain.quantity("eth_getTransactionCount", [account0, "latest"]) == 4)

        // The same tampered bytes through kcs: decoded (to another sender), sent once, refused.
        let bad = try home.run("eth.send \(tampered)", name: "tampered.kcs")
        #expect(bad.code == 70)
        #expect(bad.err.contains("rpc: the node refused eth_sendRawTransaction"), "\(bad.err)")

        // A node that never shows a receipt: --wait gives up after 3 × the time-out, and says
        // the transaction was sent (the node has it: the nonce moved), once.
        home.environment["KCS_RPC_URL"] = chain.node.url + "/unmined"
        home.environment["KCS_RPC_TIMEOUT"] = "1"
        let pending = try home.run(
            """
            use key demo-0
            let t = sign tx {"to": "\(payee)", "value": "0.05 ether"}
            print "P", hex(t.hash)
            eth.send $t.raw --wait
            """, name: "unmined.kcs")
        #expect(pending.code == 70, "\(pending.err)")
        let pendingHash = try #require(tagged("P", in: pending.out).first)
        #expect(
            pending.err.contains(
                "eth.send: transaction \(pendingHash) was sent but not mined within 3 s; "
                    + "check eth.receipt \(pendingHash) later"), "\(pending.err)")
        #expect(try chain.quantity("eth_getTransactionCount", [account0, "latest"]) == 5)
    }

    /// Ctrl-C while `eth.send --wait` waits for a receipt that does not come: the waiting stops
    /// with the hash to check later, the transaction stays sent (once), and the session goes on.
    @Test func sendWait_ctrlCStopsWaiting_theTransactionStaysSent() throws {
        let chain = try EVMChain()
        defer { chain.node.stop() }
        try chain.fund(account0, wei: ether)
        var home = try chain.home()
        defer { home.remove() }
        home.environment["KCS_RPC_URL"] = chain.node.url + "/unmined"
        let t = try TerminalSession(environment: home.environment, folder: home.folder)
        try t.answer("kcs> ", with: "import mnemonic \"\(testMnemonic)\" --name demo")
        try t.newVault("vault-pw-1")
        try t.answer("kcs> ", with: "use key demo-0")
        try t.answer("]> ", with: "eth.send (sign tx {\"to\": \"\(payee)\", \"value\": \"0.5 ether\"}) --wait")
        // Ctrl-C once kcs is polling for the receipt (the default time-out would wait 30 s).
        let polled = try chain.requests { $0.contains("eth_getTransactionReceipt") }
        #expect(polled.filter { $0 == "eth_sendRawTransaction" }.count == 1, "\(polled)")
        t.type("\u{03}")
        try t.expect("stopped waiting")
        try t.answer("]> ", with: "print \"NONCE\", eth.nonce()")
        try t.expect("NONCE 1")
        try t.answer("]> ", with: ".quit")
        let (text, status) = t.finish()
        #expect(
            text.range(
                of: #"eth\.send: stopped waiting; transaction (0x[0-9a-f]{64}) was sent — check eth\.receipt \1 later"#,
                options: .regularExpression) != nil, "\(text)")
        #expect(status == 0)
        #expect(try chain.requests().filter { $0 == "eth_sendRawTransaction" }.count == 1)
        #expect(try chain.quantity("eth_getTransactionCount", [account0, "latest"]) == 1)
    }

    /// The same three types signed on the simulated card (its current key m/44'/60'/0'/0/1).
    @Test func simulatedCard_allThreeTypes_minedFromTheCardsAddress() throws {
        let chain = try EVMChain()
        defer { chain.node.stop() }
        try chain.fund(account1, wei: "2" + ether.dropFirst())
        let home = try chain.home()
        defer { home.remove() }
        let r = try home.run(
            """
            card.connect
            card.init --pin "123456" --puk "987654321098" --pairing "evm pairing"
            card.login "123456" --password "evm pairing"
            card.load mnemonic "\(testMnemonic)" --name kc
            use card
            print "A", (derive "m/44'/60'/0'/0/1").address
            print "BAL", (eth.balance).address, (eth.balance).ether
            let t0 = sign tx {"type": 0, "to": "\(payee)", "value": "0.1 ether"}
            let s0 = eth.send $t0.raw --wait
            let t1 = sign tx {"type": 1, "to": "\(payee)", "value": "0.2 ether", "accessList": []}
            let s1 = eth.send $t1.raw --wait
            let t2 = sign tx {"to": "\(payee)", "value": "0.3 ether"}
            let s2 = eth.send $t2.raw --wait
            print "S", hex(s0.hash), hex(s1.hash), hex(s2.hash)
            print "K", t0.key, t0.verified, t1.verified, t2.verified, t2.type
            print "H", len((history --kind transaction))
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("A", in: r.out) == [account1])
        // The card's current key, not the master key the card's store entry was recorded with.
        #expect(tagged("BAL", in: r.out) == ["\(account1) 2"])
        #expect(tagged("K", in: r.out) == ["kc true true true EIP-1559"])
        #expect(tagged("H", in: r.out) == ["3"])
        let hashes = try #require(tagged("S", in: r.out).first).split(separator: " ").map(String.init)
        #expect(hashes.count == 3)
        try chain.expectMinedInOrder(hashes, from: account1, valueStep: 100_000_000_000_000_000)
        #expect(try chain.quantity("eth_getBalance", [payee, "latest"]) == 600_000_000_000_000_000)
    }

    /// HTTP errors, time-outs, refused connections, JSON-RPC errors and a missing node are
    /// named; reads are retried, a send is not; the URL's path (an API key) is never echoed.
    @Test func nodeFailures_areClearErrors_andASendIsNeverRepeated() throws {
        let chain = try EVMChain()
        defer { chain.node.stop() }
        var home = try BatchHome()
        defer { home.remove() }
        let port = String(chain.node.url.split(separator: ":").last!)

        home.environment["KCS_RPC_URL"] = chain.node.url + "/status/502?apikey=SECRETAPIKEY"
        let http = try home.run("eth.chainId", name: "http.kcs")
        #expect(http.code == 69)
        #expect(http.err.contains("rpc: eth_chainId to http://127.0.0.1:\(port)/… failed with HTTP 502"), "\(http.err)")
        #expect(!http.err.contains("SECRETAPIKEY"))

        // A 200 whose body is not JSON (a proxy's error page): named, shown, and not asked again.
        home.environment["KCS_RPC_URL"] = chain.node.url + "/garbage"
        let garbage = try home.run("eth.chainId", name: "garbage.kcs")
        #expect(garbage.code == 70)
        #expect(
            garbage.err.contains(
                "rpc: eth_chainId answered something unexpected: the body is not JSON: "
                    + "<html><body>502 Bad Gateway</body></html>"), "\(garbage.err)")
        #expect(try chain.requests().filter { $0 == "garbage" }.count == 1)

        home.environment["KCS_RPC_URL"] = chain.node.url + "/hang"
        home.environment["KCS_RPC_TIMEOUT"] = "1"
        let slow = try home.run("eth.chainId", name: "slow.kcs")
        #expect(slow.code == 69)
        #expect(
            slow.err.contains("rpc: eth_chainId to http://127.0.0.1:\(port)/… got no answer within 1 s"), "\(slow.err)")
        let send = try home.run("eth.send \(eip155Example)", name: "send.kcs")
        #expect(send.code == 69)
        #expect(
            send.err.contains(
                "eth.send: not known whether the node took transaction 0x33469b22e9f636356c4160a87eb19df52b7412e8eac32a4a55ffe88ea8350788"
            ), "\(send.err)")
        let seen = try chain.requests { seen in
            seen.filter { $0 == "hang:eth_chainId" }.count >= 3 && seen.contains("hang:eth_sendRawTransaction")
        }
        #expect(seen.filter { $0 == "hang:eth_chainId" }.count == 3)  // the first try and two retries
        #expect(seen.filter { $0 == "hang:eth_sendRawTransaction" }.count == 1)  // once, never again
        // eth.node --timeout without a URL applies to the node in use, checked with that time-out.
        let retimed = try home.run(
            "try { eth.node --timeout 2 } catch e { print \"H\", e.message }", name: "retime.kcs")
        #expect(
            tagged("H", in: retimed.out) == ["rpc: eth_chainId to http://127.0.0.1:\(port)/… got no answer within 2 s"],
            "\(retimed.out) \(retimed.err)")
        home.environment["KCS_RPC_TIMEOUT"] = nil

        home.environment["KCS_RPC_URL"] = "http://127.0.0.1:1"
        let refused = try home.run("eth.gasPrice", name: "refused.kcs")
        #expect(refused.code == 69)
        #expect(
            refused.err.contains(
                "rpc: eth_gasPrice could not connect to http://127.0.0.1:1: connection refused; nothing was sent"),
            "\(refused.err)")
        // A send that never left is said to be unsent, not "not known whether the node took it".
        let unsent = try home.run("eth.send \(eip155Example)", name: "unsent.kcs")
        #expect(unsent.code == 69)
        #expect(
            unsent.err.contains(
                "rpc: eth_sendRawTransaction could not connect to http://127.0.0.1:1: connection refused; "
                    + "nothing was sent"), "\(unsent.err)")
        #expect(!unsent.err.contains("not known whether"), "\(unsent.err)")

        home.environment["KCS_RPC_URL"] = chain.node.url
        let rpcError = try home.run(
            """
            try { eth.send \(eip155Example) } catch e { print "E", e.kind }
            try { eth.node "ftp://example.com/key" } catch e { print "U", e.message }
            print "C", eth.chainId() == (eth.node).chainId
            try { eth.node --clear --timeout 5 } catch e { print "TC", e.message }
            print "T", (eth.node --timeout 5).chainId == eth.chainId()
            import privkey \(testPrivateKey) --name raw
            use key raw
            try { sign tx {"chainId": 1, "to": "\(payee)"} } catch e { print "M", e.kind }
            print "O", (sign tx {"chainId": 1, "to": "\(payee)", "gas": 21000} --offline --dry-run).type
            eth.send \(eip155Example)
            """, name: "nodeerror.kcs")
        #expect(rpcError.code == 70)
        #expect(tagged("E", in: rpcError.out) == ["rpc.nodeError"])
        #expect(
            tagged("U", in: rpcError.out) == [
                "rpc: expected an http:// or https:// node URL with a host, got \"ftp://example.com/…\""
            ])
        #expect(tagged("C", in: rpcError.out) == ["true"])
        #expect(
            tagged("TC", in: rpcError.out) == [
                "eth.node: --clear does not apply here: it forgets the node; drop --timeout"
            ])
        #expect(tagged("T", in: rpcError.out) == ["true"])
        #expect(tagged("M", in: rpcError.out) == ["eth.command.chainMismatch"])
        #expect(tagged("O", in: rpcError.out) == ["legacy"])
        #expect(
            rpcError.err.contains("rpc: the node refused eth_sendRawTransaction: ValidationError"), "\(rpcError.err)")
        #expect(rpcError.err.contains("cannot afford txn gas"), "\(rpcError.err)")

        home.environment["KCS_RPC_URL"] = nil
        let none = try home.run(
            "try { eth.node --timeout 5 } catch e { print \"TN\", e.message }\neth.chainId", name: "none.kcs")
        #expect(
            tagged("TN", in: none.out) == [
                "eth.node: expected a node, got none (give --rpc URL, set KCS_RPC_URL, or run eth.node URL)"
            ])
        #expect(none.code == 70)
        #expect(
            none.err.contains(
                "eth.chainId: expected a node, got none (give --rpc URL, set KCS_RPC_URL, or run eth.node URL)"),
            "\(none.err)")
    }
}

/// Issue 8 §1 on the py-evm node: history at indexes 0, 1, 5 and 27 of account 0 and index 0
/// of account 1 (each funded with 1 gwei, so each has a balance). Gap 20 finds {0, 1, 5} and
/// then account 1; gap 25 also finds 27. The same through the simulated card, whose accounts
/// come from one EXPORT KEY (extended public) each.
@Suite("Account discovery against a py-evm node")
struct DiscoveryEVMTests {
    static let used = [(0, 0), (0, 1), (0, 5), (0, 27), (1, 0)]

    /// Starts a node and funds the used addresses (derived by kcs itself).
    fileprivate static func fundedChain(_ home: BatchHome) throws -> EVMChain {
        let chain = try EVMChain()
        let paths = used.map { "m/44'/60'/\($0.0)'/0/\($0.1)" }
        let r = try home.run(
            """
            let root = hd.master "\(testMnemonic)"
            \(paths.map { "print \"A\", (derive \"\($0)\" --from $root).address" }.joined(separator: "\n"))
            """, name: "addresses.kcs")
        let addresses = tagged("A", in: r.out)
        try #require(addresses.count == used.count, "\(r.err)")
        #expect(addresses.first == account0)
        for a in addresses { try chain.fund(a, wei: "1000000000") }
        return chain
    }

    @Test func softwareKey_gap20FindsThreeThenAccount1_gap25AlsoFinds27() throws {
        var home = try BatchHome()
        defer { home.remove() }
        let chain = try Self.fundedChain(home)
        defer { chain.node.stop() }
        home.environment["KCS_RPC_URL"] = chain.node.url
        let r = try home.run(
            """
            import mnemonic "\(testMnemonic)" --name demo
            use key demo-0
            for row in wallet.discover() { print "G20", row.account, row.index }
            for row in (wallet.discover --gap 25) { print "G25", row.account, row.index, row.path }
            print "N", len(accounts())
            let s = wallet.select "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0"
            print "SEL", s.path, s.signer
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("G20", in: r.out) == ["0 0", "0 1", "0 5", "1 0"])
        #expect(
            tagged("G25", in: r.out) == [
                "0 0 m/44'/60'/0'/0/0", "0 1 m/44'/60'/0'/0/1", "0 5 m/44'/60'/0'/0/5",
                "0 27 m/44'/60'/0'/0/27", "1 0 m/44'/60'/1'/0/0",
            ])
        #expect(tagged("N", in: r.out) == ["5"])  // the second discovery replaced the first
        #expect(tagged("SEL", in: r.out) == ["m/44'/60'/0'/0/1 software"])
        // Gap 20: account 0 checks 0…25 (20 after index 5), account 1 checks 0…20, account 2 checks 0…19.
        let balanceCalls = try chain.requests().filter { $0 == "eth_getBalance" }.count
        #expect(balanceCalls == 26 + 21 + 20 + (53 + 26 + 25))  // then gap 25: 0…52, 0…25, 0…24
    }

    /// The Etherscan-style source (the shim's txlist), as the Keycard app used: same answer;
    /// the API key goes in the query and never into an error message.
    @Test func explorer_txlist_findsTheSameAccounts() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let chain = try Self.fundedChain(home)
        defer { chain.node.stop() }
        let r = try home.run(
            """
            import mnemonic "\(testMnemonic)" --name demo
            for row in (wallet.discover --key demo --explorer "\(chain.node.url)/api" --api-key KEY123) { print "EX", row.account, row.index }
            try { wallet.discover --key demo --explorer "\(chain.node.url)/nothing" --api-key KEY123 } catch e { print "ERR", e.kind, e.message }
            for row in (wallet.discover --key demo --explorer "\(chain.node.url)/limited/api" --api-key KEY123) { print "LIM", row.account, row.index }
            try { wallet.discover --key demo --explorer "\(chain.node.url)/limited/api?every=1" --api-key KEY123 } catch e { print "ERR", e.kind, e.message }
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("EX", in: r.out) == ["0 0", "0 1", "0 5", "1 0"])
        let port = String(chain.node.url.split(separator: ":").last!)
        #expect(
            tagged("ERR", in: r.out) == [
                "rpc.http rpc: txlist to http://127.0.0.1:\(port)/… failed with HTTP 404: {\"error\": \"not found\"}",
                // Always rate-limited: given up after the first try and three retries, the answer named.
                "rpc.http rpc: txlist to http://127.0.0.1:\(port)/… failed with HTTP 429: "
                    + "Max rate limit reached, please use API Key for higher rate limit",
            ])
        #expect(!r.out.contains("KEY123"))
        // Every tenth request rate-limited: each retried after a pause, the same accounts found.
        #expect(tagged("LIM", in: r.out) == ["0 0", "0 1", "0 5", "1 0"])
        let asked = try chain.requests()
        // Gap 20: account 0 checks 0…25, account 1 0…20, account 2 0…19 — answered once per run.
        #expect(asked.filter { $0 == "txlist" }.count == 2 * (26 + 21 + 20))
        // 67 answers need 75 requests when the 1st, 11th, … 71st are refused (8), then the
        // always-limited run: 4 tries for each address in flight (1 or 2 of them).
        let limited = asked.filter { $0 == "txlist:limited" }.count
        #expect(limited == 8 + 4 || limited == 8 + 8, "\(limited)")
    }

    /// At a terminal (a real pseudo-terminal), discovery redraws one progress line in place —
    /// the bar, the account, addresses checked, and used addresses and accounts so far — clears it,
    /// and ends with a summary line. Offline (`--used`), so no node is needed.
    @Test func terminal_progressBarRedrawnInPlace_thenTheSummary() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let used = try home.write("\(account0)\n\(account1)\n", to: "used.txt")
        let t = try TerminalSession(environment: home.environment, folder: home.folder)
        try t.answer("kcs> ", with: "import mnemonic \"\(testMnemonic)\" --name demo")
        try t.newVault("vault-pw-1")
        try t.answer("kcs> ", with: "let found = wallet.discover --key demo --used \"\(used)\" --gap 3")
        try t.expect("addresses: ")
        try t.answer("kcs> ", with: "print \"FOUND\", len(found)")
        let text = try t.quit()
        // Gap 3 after index 1: account 0 checks 0…4, account 1 checks 0…2 and is unused.
        let redraw = "\r\u{1B}[K"
        let bars = text.components(separatedBy: redraw).dropFirst().map { $0.prefix { $0 != "\r" && $0 != "\n" } }
            .filter { $0.hasPrefix("discovering [") }
        #expect(bars.count >= 2, "a progress line redrawn in place: \(text.debugDescription)")
        #expect(
            bars.contains { $0.contains("] account 0, ") } && bars.contains { $0.contains("] account 1, ") },
            "\(bars)")
        #expect(
            bars.last.map { $0.hasSuffix("account 1, 8 addresses checked, 2 used in 1 account") } == true, "\(bars)")
        #expect(
            bars.allSatisfy {
                $0.range(
                    of: #"^discovering \[[#.]{20}\] account \d, \d+ address(es)? checked, \d used in \d accounts?$"#,
                    options: .regularExpression) != nil
            }, "\(bars)")
        #expect(
            text.contains(redraw + "checked 8 addresses: 2 used in 1 account\r\n"),
            "the bar is cleared before the summary: \(text.debugDescription)")
        #expect(text.contains("FOUND 2"), "\(text)")
    }

    /// Offline: --used FILE, one address per line, blank lines and # comments skipped; a bad
    /// line is named by file and line, a missing file by its path, and nothing is stored.
    @Test func usedFile_offline_andItsBadInput() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let good = try home.write("# used addresses\n\(account0)\n\n  \(account1.lowercased())  \n", to: "used.txt")
        let bad = try home.write("\(account0)\nnot-an-address\n", to: "bad.txt")
        let r = try home.run(
            """
            import mnemonic "\(testMnemonic)" --name demo
            for row in (wallet.discover --key demo --used "\(good)" --gap 3) { print "U", row.account, row.index }
            try { wallet.discover --key demo --used "\(bad)" } catch e { print "BAD", e.message }
            try { wallet.discover --key demo --used "\(home.path("missing.txt"))" } catch e { print "MISSING", e.message }
            for row in (wallet.discover --key demo --used "\(good)" --gap 3 --coin 60) { print "C60", row.path }
            try { wallet.discover --key demo } catch e { print "NONODE", e.message }
            try { wallet.discover --key demo --card --used "\(good)" } catch e { print "CARDKEY", e.kind }
            try { wallet.discover --key demo --api-key K --used "\(good)" } catch e { print "APIKEY", e.message }
            import address \(payee) --name watched
            try { wallet.discover --key watched --used "\(good)" } catch e { print "WATCH", e.kind }
            print "N", len(accounts())
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("C60", in: r.out) == ["m/44'/60'/0'/0/0", "m/44'/60'/0'/0/1"])  // a coin type as a number
        #expect(
            tagged("NONODE", in: r.out) == [
                "wallet.discover: expected a node, got none (give --rpc URL, set KCS_RPC_URL, "
                    + "or run eth.node URL; or --used LIST or --explorer URL)"
            ])
        #expect(tagged("CARDKEY", in: r.out) == ["builtin.optionNotApplicable"])
        #expect(
            tagged("APIKEY", in: r.out) == [
                "wallet.discover: --api-key does not apply here: it goes with --explorer URL"
            ])
        #expect(tagged("WATCH", in: r.out) == ["key.cannotSign"])
        #expect(tagged("U", in: r.out) == ["0 0", "0 1"])
        #expect(
            tagged("BAD", in: r.out) == ["wallet.discover: --used \(bad):2 must be an address, got \"not-an-address\""])
        #expect(
            tagged("MISSING", in: r.out) == [
                "wallet.discover: --used must be a list of addresses or a readable file, got \"\(home.path("missing.txt"))\""
            ])
        #expect(tagged("N", in: r.out) == ["2"])
    }

    @Test func simulatedCard_sameAccounts_oneExportPerAccount() throws {
        var home = try BatchHome()
        defer { home.remove() }
        let chain = try Self.fundedChain(home)
        defer { chain.node.stop() }
        home.environment["KCS_RPC_URL"] = chain.node.url
        let r = try home.run(
            """
            card.connect
            card.init --pin "123456" --puk "987654321098" --pairing "discovery pairing"
            card.login "123456" --password "discovery pairing"
            card.load mnemonic "\(testMnemonic)" --name kc
            use card
            let before = card.path()
            for row in wallet.discover() { print "G20", row.account, row.index }
            print "P", card.path() == before
            let s = wallet.select "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0"
            print "SEL", s.path, s.signer, card.path()
            print "SIG", (sign 0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8).signer
            """)
        #expect(r.code == 0, "\(r.err)")
        #expect(tagged("G20", in: r.out) == ["0 0", "0 1", "0 5", "1 0"])
        #expect(tagged("P", in: r.out) == ["true"])  // exports do not move the current path
        #expect(tagged("SEL", in: r.out) == ["m/44'/60'/0'/0/1 card m/44'/60'/0'/0/1"])
        #expect(tagged("SIG", in: r.out) == [account1])
    }
}
