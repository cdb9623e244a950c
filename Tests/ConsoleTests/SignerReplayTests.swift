// The call sequences of the clients that cannot be installed here (docs/signer.md, "Clients"),
// replayed as their exact JSON bodies: Foundry's `cast send --unlocked` (every field filled,
// `input` and `data` both set, `type` 0x2) and `forge script --unlocked` (many transactions at
// once, each with its own nonce), ethers v6 (a batch, lower-case addresses, typed data as a
// string) and geth `--signer` (clef's account_* methods, the `tx` JSON geth decodes). Each is
// answered as that client expects; what was signed equals docs/signer.md's vectors.
import EthRPC
import Foundation
import KCSTestSupport
import Synchronization
import Testing
import WalletCore

@Suite("kcs signer serve: Foundry, ethers and geth replayed", .serialized)
struct SignerReplayTests {
    typealias E = SignerEndpointTests

    static func start(_ node: EVMNode) throws -> (BatchHome, SignerServer) {
        let (home, rules) = try E.home()
        let server = try home.startSigner(node: node.url, ["--key", "test", "--rules", rules])
        // Funds kcs's account from the node's own unlocked account, on the node; a failure
        // stops the server it started (no kcs is left running after the test).
        do {
            let client = JSONRPCClient(url: URL(string: node.url)!, timeout: 30)
            let accounts = try client.call("eth_accounts") as? [String] ?? []
            _ = try client.call(
                "eth_sendTransaction",
                [["from": accounts[0], "to": E.address, "value": "0xde0b6b3a7640000", "gas": "0x5208"]])
        } catch {
            server.stop()
            home.remove()
            throw error
        }
        return (home, server)
    }

    @Test func foundryCast_andForgeScript() throws {
        let node = try EVMNode()
        defer { node.stop() }
        let (home, server) = try Self.start(node)
        defer { home.remove() }
        defer { server.stop() }
        // cast send --unlocked --from A BEEF --value 0.002ether: its reads, then every field filled.
        #expect(try E.call(server, "eth_chainId", "[]").result as? String == "0x776562337079")
        #expect(
            try E.call(server, "eth_getTransactionCount", #"["\#(E.address)","latest"]"#).result as? String == "0x0")
        let history = try E.call(server, "eth_feeHistory", #"["0xa","latest",[20.0]]"#)
        #expect(history.code == nil && (history.result as? [String: Any])?["baseFeePerGas"] != nil)
        let tx =
            #"{"from":"\#(E.address.lowercased())","to":"0x000000000000000000000000000000000000beef","gas":"0x5208","maxFeePerGas":"0xb2d05e00","maxPriorityFeePerGas":"0x3b9aca00","value":"0x71afd498d0000","input":"0x","data":"0x","nonce":"0x0","chainId":"0x776562337079","type":"0x2"}"#
        #expect(try E.call(server, "eth_estimateGas", "[\(tx)]").result as? String == "0x5208")
        let sent = try E.call(server, "eth_sendTransaction", "[\(tx)]")
        let hash = try #require(sent.result as? String, "\(sent.message ?? "")")
        let receipt = try E.call(server, "eth_getTransactionReceipt", #"["\#(hash)"]"#)
        #expect((receipt.result as? [String: Any])?["status"] as? String == "0x1")
        // input and data that differ are refused.
        let differ = tx.replacingOccurrences(of: #""data":"0x""#, with: #""data":"0xabcd""#)
        #expect(try E.call(server, "eth_sendTransaction", "[\(differ)]").code == -32602)

        // forge script --broadcast: five transactions at once, nonces 1…5, each approved by the
        // rule in turn (one at a time at the console's thread) and all mined.
        let hashes = Mutex<[String?]>(Array(repeating: nil, count: 5))
        let url = server.url, token = server.token
        DispatchQueue.concurrentPerform(iterations: 5) { i in
            let one = tx.replacingOccurrences(of: #""nonce":"0x0""#, with: #""nonce":"0x\#(i + 1)""#)
                .replacingOccurrences(of: #""value":"0x71afd498d0000""#, with: #""value":"0x1""#)
            let answer = try? RawHTTP.send(
                url, path: "/" + token,
                body: #"{"jsonrpc":"2.0","id":\#(100 + i),"method":"eth_sendTransaction","params":[\#(one)]}"#)
            hashes.withLock { $0[i] = answer?.result as? String }
        }
        let sentHashes = hashes.withLock { $0 }
        #expect(sentHashes.allSatisfy { $0 != nil }, "\(sentHashes)")
        #expect(
            try E.call(server, "eth_getTransactionCount", #"["\#(E.address)","latest"]"#).result as? String == "0x6")
        // cast --sync and a subscription are not served.
        #expect(try E.call(server, "eth_sendTransactionSync", "[\(tx)]").code == 4200)
        #expect(try E.call(server, "eth_subscribe", #"["newHeads"]"#).code == 4200)
    }

    @Test func ethers_batchedLowerCase_typedDataAsAString() throws {
        let node = try EVMNode()
        defer { node.stop() }
        let (home, server) = try Self.start(node)
        defer { home.remove() }
        defer { server.stop() }
        let lower = E.address.lowercased()
        let batch = try RawHTTP.send(
            server.url, path: "/" + server.token,
            body:
                #"[{"method":"eth_chainId","params":[],"id":1,"jsonrpc":"2.0"},{"method":"eth_accounts","params":[],"id":2,"jsonrpc":"2.0"},{"method":"eth_blockNumber","params":[],"id":3,"jsonrpc":"2.0"}]"#
        )
        let answers = try #require(batch.json as? [[String: Any]])
        #expect(answers.map { $0["id"] as? Int } == [1, 2, 3])
        #expect(answers[1]["result"] as? [String] == [E.address])
        // signer.sendTransaction({to, value}): lower-case, gas from its estimate, nothing else.
        let sent = try E.call(
            server, "eth_sendTransaction",
            #"[{"from":"\#(lower)","to":"0x000000000000000000000000000000000000beef","value":"0x38d7ea4c68000","gas":"0x1d8a8"}]"#
        )
        #expect(sent.result as? String == E.minimalHash, "\(sent.message ?? "")")
        #expect(try E.call(server, "eth_getTransactionByHash", #"["\#(E.minimalHash)"]"#).code == nil)
        let message = try E.call(server, "personal_sign", #"["0x68656c6c6f2066726f6d20776562332e7079","\#(lower)"]"#)
        #expect(message.result as? String == E.personal)
        // Reversed parameters, as some dapps send them: read as [data, address], and said so.
        let reversed = try E.call(server, "personal_sign", #"["\#(E.address)","hello from web3.py"]"#)
        #expect(reversed.result as? String == E.personal)
        let typed = try JSONSerialization.data(
            withJSONObject: [
                lower, String(decoding: try JSONSerialization.data(withJSONObject: Self.etherMail), as: UTF8.self),
            ])
        let signed = try E.call(server, "eth_signTypedData_v4", String(decoding: typed, as: UTF8.self))
        #expect(signed.result as? String == E.typed, "\(signed.message ?? "")")
        // A node error to the send is passed through with its code and words (ethers reads them).
        let broke = try E.call(
            server, "eth_sendTransaction",
            #"[{"from":"\#(lower)","to":"0x000000000000000000000000000000000000beef","value":"0x1","gas":"0x5208","nonce":"0x0","maxFeePerGas":"0xb2d05e00","maxPriorityFeePerGas":"0x3b9aca00"}]"#
        )
        #expect(broke.code != nil && broke.code != 4001 && broke.code != -32005, "\(broke.json ?? "")")
    }

    @Test func gethSigner_accountMethods_andTheTxGethDecodes() throws {
        let node = try EVMNode()
        defer { node.stop() }
        let (home, server) = try Self.start(node)
        defer { home.remove() }
        defer { server.stop() }
        #expect(try E.call(server, "account_version", "[]").result as? String == "6.1.0")
        #expect(try E.call(server, "account_list", "[]").result as? [String] == [E.address])
        // geth's SendTxArgs, filled by geth (the docs/signer.md vector): kcs fills nothing.
        let args =
            #"{"from":"\#(E.address)","to":"0x000000000000000000000000000000000000bEEF","gas":"0x5208","maxFeePerGas":"0xb2d05e00","maxPriorityFeePerGas":"0x3b9aca00","value":"0x71afd498d0000","nonce":"0x1","input":"0x","chainId":"0x776562337079","accessList":[]}"#
        let signed = try E.call(server, "account_signTransaction", "[\(args)]")
        let result = try #require(signed.result as? [String: Any], "\(signed.message ?? "")")
        #expect(result["raw"] as? String == E.vectorRaw)
        let tx = try #require(result["tx"] as? [String: Any])
        for field in [
            "chainId", "nonce", "gas", "maxPriorityFeePerGas", "maxFeePerGas", "value", "input", "r", "s", "v",
            "yParity", "hash",
        ] {
            #expect(tx[field] is String, "tx has no \(field)")
        }
        #expect(tx["type"] as? String == "0x2")
        #expect(tx["hash"] as? String == E.vectorHash)
        #expect(tx["yParity"] as? String == "0x1")
        #expect(tx["r"] as? String == "0xe375cceb91d68f53239e9026c89d47c71366bf625ed30e264fdbcd9ffda552d9")
        // A transaction without its nonce is not what geth sends: refused, not filled.
        let incomplete = args.replacingOccurrences(of: #""nonce":"0x1","#, with: "")
        #expect(try E.call(server, "account_signTransaction", "[\(incomplete)]").code == -32602)
        let data = try E.call(
            server, "account_signData", #"["text/plain","\#(E.address)","0x68656c6c6f2066726f6d20776562332e7079"]"#)
        #expect(data.result as? String == E.personal)
        #expect(
            try E.call(server, "account_signData", #"["application/x-clique-header","\#(E.address)","0x00"]"#).code
                == 4200)
        // Nothing geth asked was sent by kcs.
        #expect(!(try E.requests(node)).contains("eth_sendRawTransaction"))
    }

    static var etherMail: [String: Any] {
        [
            "types": [
                "EIP712Domain": [
                    ["name": "name", "type": "string"], ["name": "version", "type": "string"],
                    ["name": "chainId", "type": "uint256"], ["name": "verifyingContract", "type": "address"],
                ],
                "Person": [["name": "name", "type": "string"], ["name": "wallet", "type": "address"]],
                "Mail": [
                    ["name": "from", "type": "Person"], ["name": "to", "type": "Person"],
                    ["name": "contents", "type": "string"],
                ],
            ],
            "primaryType": "Mail",
            "domain": [
                "name": "Ether Mail", "version": "1", "chainId": 131_277_322_940_537,
                "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
            ],
            "message": [
                "from": ["name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"],
                "to": ["name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"],
                "contents": "Hello, Bob!",
            ],
        ]
    }
}
