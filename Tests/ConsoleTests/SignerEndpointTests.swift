import EthRPC
// `kcs signer serve` judged by clients kcs did not write (docs/signer.md): web3.py 8.0.0's own
// HTTPProvider and IPCProvider against the project's py-evm node — a minimal EIP-1559
// send_transaction filled by kcs, signed, sent only as raw bytes and mined with kcs's address as
// its sender; personal_sign and eth_signTypedData_v4 equal to the spec's fixed vectors (computed
// by eth-account) and recovered by eth-account — with a stored key and with the simulated card.
// Then the gate's refusals, each asserting the HTTP status, the JSON-RPC code and that the node
// saw nothing new.
import Foundation
import KCSTestSupport
import Testing
import WalletCore

@Suite("kcs signer serve: web3.py, the socket, the gate", .serialized)
struct SignerEndpointTests {
    static let address = "0xdB00079cad3e665853Bf766eFe26F4C38cdbdCDA"
    static let key = "0x" + String(repeating: "4c", count: 32)
    static let beef = "0x000000000000000000000000000000000000bEEF"
    /// docs/signer.md's vectors (eth-account: RFC 6979, low S), for the key 0x4c…4c.
    static let personal =
        "0x48f4a26bc564bc7fb6dd5b32ac7a4375deb730bdfe95ead7713de94657bf09f77c923847603c947b50a37dea91691bcaad217d18bffdcfda5a5522a65e42739d1c"
    static let typed =
        "0xb635084010bcb95c60c7c0b65de0a0d1ce00c1168f311aedd4bdf2c96143839140665eb202d285d1a53364c4c62d900b3b5912cb7db062b3d41373b2fe6c61f91b"
    static let vectorHash = "0xd2e78f64568e8a91168d0478265e637781fa3c8915b9adcd01e48c0659260c5b"
    static let vectorRaw =
        "0x02f8778677656233707901843b9aca0084b2d05e0082520894000000000000000000000000000000000000beef87071afd498d000080c001a0e375cceb91d68f53239e9026c89d47c71366bf625ed30e264fdbcd9ffda552d9a03cfef10fef58af0fd64992c1b9b7db5f088b661b2d7d7c14a01d74110fd56829"
    /// web3.py's measured minimal send (docs/signer.md): nonce 0, tip 1 gwei, max fee 2.75 gwei, gas 121 000.
    static let minimalHash = "0xc630dc84cb1125777f492ac0c18df57f7c06c433227aae24e8999c609ffaeb05"

    static let rules = """
        {
          "kcsRules": 1,
          "chains": [131277322940537],
          "transactions": {
            "allow": [{"to": "0x000000000000000000000000000000000000bEEF", "maxValue": "0.01 ether"}],
            "maxValuePerTx": "0.05 ether",
            "maxValuePer24h": "0.004 ether",
            "maxFeePerGas": "200 gwei"
          },
          "typedData": {"allow": [{"name": "Ether Mail", "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC", "primaryType": "Mail"}]},
          "messages": {"allow": [{"textPrefix": "hello from"}]},
          "otherwise": "ask",
          "overLimit": "deny"
        }
        """

    static func home(rules text: String = rules) throws -> (BatchHome, String) {
        let home = try BatchHome()
        let r = try home.run("import privkey \(key) --name test")
        #expect(r.code == 0, "\(r.err)")
        let file = try home.write(text, to: "rules.json")
        chmod(file, 0o600)
        return (home, file)
    }

    /// A simulated 4.0 card `sim` in `home`, PIN 123456, with the test mnemonic loaded.
    static func loadCard(_ home: BatchHome, sim: String) throws {
        let setup = try home.run(
            """
            card.connect --sim \(sim) --profile 4.0
            card.init --pin "123456" --puk "987654321098" --duress "654321"
            card.login "123456"
            card.load mnemonic "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about" --name kc
            """)
        #expect(setup.code == 0, "\(setup.err)")
    }

    static func requests(_ node: EVMNode) throws -> [String] {
        let (_, data) = try CurlTransport().get(
            URL(string: node.url + "/requests")!, timeout: 30, method: "GET /requests")
        return try JSONSerialization.jsonObject(with: data) as? [String] ?? []
    }

    static func call(
        _ server: SignerServer, _ method: String, _ params: String, id: Int = 1
    ) throws -> RawHTTP.Answer {
        try RawHTTP.send(
            server.url, path: "/" + server.token,
            body: #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#)
    }

    @Test func web3py_softwareKey_sendsFilledTransactions_signsTheVectors_andTheNodeSeesOnlyRawBytes() throws {
        let node = try EVMNode()
        defer { node.stop() }
        let (home, rules) = try Self.home()
        defer { home.remove() }
        let server = try home.startSigner(node: node.url, ["--key", "test", "--rules", rules])
        defer { server.stop() }
        #expect(server.account == Self.address)
        let r = try SignerClient.run(["scenario", server.url, server.token, node.url])
        #expect(r["accounts"] as? [String] == [Self.address])
        #expect(r["chainId"] as? Int == 131_277_322_940_537)
        let minimal = try #require(r["minimal"] as? [String: Any])
        #expect(minimal["status"] as? Int == 1)
        #expect(minimal["type"] as? Int == 2)
        #expect(minimal["from"] as? String == Self.address)
        #expect(minimal["hash"] as? String == Self.minimalHash)
        #expect((r["vector"] as? [String: Any])?["hash"] as? String == Self.vectorHash)
        let personal = try #require(r["personal"] as? [String: Any])
        #expect(personal["signature"] as? String == Self.personal)
        #expect(personal["recovered"] as? String == Self.address)
        let typed = try #require(r["typed"] as? [String: Any])
        #expect(typed["object"] as? String == Self.typed)
        #expect(typed["string"] as? String == Self.typed)
        #expect(typed["recovered"] as? String == Self.address)
        // What reached the node after the funding: raw transactions, never a signing method.
        let saw = try #require(r["nodeSaw"] as? [String])
        #expect(saw.filter { $0 == "eth_sendRawTransaction" }.count == 2)
        for never in ["eth_sendTransaction", "eth_sign", "personal_sign", "eth_accounts", "eth_signTypedData_v4"] {
            #expect(!saw.contains(never), "the node saw \(never)")
        }
        // The socket: 0600 in a 0700 folder, and web3.py's IPCProvider.
        var info = stat()
        #expect(lstat(server.socket, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(
            lstat((server.socket as NSString).deletingLastPathComponent, &info) == 0 && info.st_mode & 0o777 == 0o700)
        let ipc = try SignerClient.run(["ipc", server.socket])
        #expect(ipc["accounts"] as? [String] == [Self.address])
        #expect(ipc["personal"] as? String == Self.personal)

        // 0.003 ether approved in the last 24 hours; 0.002 more passes maxValuePer24h (0.004): denied by rule.
        let over = try Self.call(
            server, "eth_sendTransaction",
            #"[{"from":"\#(Self.address)","to":"\#(Self.beef)","value":"0x71afd498d0000"}]"#)
        #expect(over.status == 200 && over.code == 4001)
        #expect(
            over.message?.hasPrefix("User denied by rule: the last 24 hours' value") == true, "\(over.message ?? "")")
        #expect(server.stop() == 0)
        #expect(server.shown.contains("kcs signer: stopped"))

        // The window is summed from the log, so a restart does not reset it.
        let again = try home.startSigner(node: node.url, ["--key", "test", "--rules", rules], name: "again")
        defer { again.stop() }
        let still = try Self.call(
            again, "eth_sendTransaction",
            #"[{"from":"\#(Self.address)","to":"\#(Self.beef)","value":"0x71afd498d0000"}]"#)
        #expect(still.code == 4001)
        again.stop()
        let log = try home.run("print (history --kind signer --json)")
        let rows = try #require(
            try JSONSerialization.jsonObject(with: Data(log.out.utf8)) as? [[String: Any]], "\(log.out) \(log.err)")
        let approved = rows.filter { $0["outcome"] as? String == "approved" }
        #expect(approved.count == 6, "\(rows)")  // 2 sends, 3 signatures over HTTP, 1 over the socket
        #expect(rows.filter { $0["outcome"] as? String == "denied" }.count == 2)
        #expect(
            Set(approved.compactMap { $0["decidedBy"] as? String }).isSuperset(of: [
                "rule transactions.allow[0]", "rule messages.allow[0]", "rule typedData.allow[0]",
            ]))
        #expect(approved.contains { $0["method"] as? String == "eth_sendTransaction" && $0["sent"] as? Bool == true })
    }

    @Test func web3py_simulatedCard_sendsAndSigns_withTheCardsAddress() throws {
        let node = try EVMNode()
        defer { node.stop() }
        let (home, rules) = try Self.home()
        defer { home.remove() }
        try Self.loadCard(home, sim: "signer")
        let pin = try home.write("123456\n", to: "pin")
        chmod(pin, 0o600)
        let server = try home.startSigner(
            node: node.url, ["--card", "sim:signer", "--pin-file", pin, "--rules", rules])
        defer { server.stop() }
        // The card's key at m/44'/60'/0'/0/0 of the test mnemonic.
        let card = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
        #expect(server.account == card)
        let r = try SignerClient.run(["scenario", server.url, server.token, node.url])
        #expect(r["accounts"] as? [String] == [card])
        let minimal = try #require(r["minimal"] as? [String: Any])
        #expect(minimal["status"] as? Int == 1)
        #expect(minimal["from"] as? String == card)
        #expect((r["personal"] as? [String: Any])?["recovered"] as? String == card)
        #expect((r["typed"] as? [String: Any])?["recovered"] as? String == card)
        #expect((r["typed"] as? [String: Any])?["recoveredString"] as? String == card)
        let saw = try #require(r["nodeSaw"] as? [String])
        #expect(saw.filter { $0 == "eth_sendRawTransaction" }.count == 2)
        #expect(!saw.contains("eth_sendTransaction"))
        #expect(server.shown.contains("signed by") && server.shown.contains("the Keycard"))
    }

    /// The gate and the method table: each refusal with its HTTP status and JSON-RPC code, and
    /// the node's request log unchanged by every one of them.
    @Test func refusals_statusesAndCodes_andTheNodeSeesNothing() throws {
        let node = try EVMNode()
        defer { node.stop() }
        let (home, rules) = try Self.home()
        defer { home.remove() }
        let server = try home.startSigner(
            node: node.url, ["--key", "test", "--rules", rules, "--allow-origin", "http://localhost:5173"])
        defer { server.stop() }
        let port = server.url.split(separator: ":").last!
        let chainId = #"{"jsonrpc":"2.0","id":7,"method":"eth_chainId","params":[]}"#
        let before = try Self.requests(node)

        let noToken = try RawHTTP.send(server.url, path: "/", body: chainId)
        #expect(noToken.status == 401 && noToken.code == 4100)
        let wrongToken = try RawHTTP.send(server.url, path: "/" + String(server.token.reversed()), body: chainId)
        #expect(wrongToken.status == 401 && wrongToken.code == 4100)
        let wrongBearer = try RawHTTP.send(
            server.url, path: "/", headers: [("Authorization", "Bearer nope")], body: chainId)
        #expect(wrongBearer.status == 401)
        let bearer = try RawHTTP.send(
            server.url, path: "/", headers: [("Authorization", "Bearer " + server.token)], body: chainId)
        #expect(bearer.status == 200 && bearer.result as? String == "0x776562337079")
        let evil = try RawHTTP.send(
            server.url, path: "/" + server.token, headers: [("Origin", "https://evil.example")], body: chainId)
        #expect(evil.status == 403 && evil.code == 4100 && evil.headers["access-control-allow-origin"] == nil)
        let nullOrigin = try RawHTTP.send(
            server.url, path: "/" + server.token, headers: [("Origin", "null")], body: chainId)
        #expect(nullOrigin.status == 403)
        let rebind = try RawHTTP.send(
            server.url, path: "/" + server.token, headers: [("Host", "rebind.evil.example:\(port)")], body: chainId)
        #expect(rebind.status == 403 && rebind.code == 4100)
        let preflight = try RawHTTP.send(
            server.url, method: "OPTIONS", path: "/" + server.token,
            headers: [("Origin", "http://localhost:5173"), ("Access-Control-Request-Private-Network", "true")])
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-origin"] == "http://localhost:5173")
        #expect(preflight.headers["vary"] == "Origin")
        #expect(preflight.headers["access-control-allow-private-network"] == "true")
        let get = try RawHTTP.send(server.url, method: "GET", path: "/" + server.token)
        #expect(get.status == 405)
        let form = try RawHTTP.send(
            server.url, path: "/" + server.token, headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: "a=1")
        #expect(form.status == 415)
        let plain = try RawHTTP.send(
            server.url, path: "/" + server.token, headers: [("Content-Type", "text/plain")], body: chainId)
        #expect(plain.status == 415)
        let big = try RawHTTP.send(server.url, path: "/" + server.token, body: String(repeating: " ", count: 3 << 20))
        #expect(big.status == 413)
        let deep = try RawHTTP.send(
            server.url, path: "/" + server.token,
            body: String(repeating: "[", count: 100) + String(repeating: "]", count: 100))
        #expect(deep.status == 200 && deep.code == -32600)

        // An allowed browser origin gets no account until it is connected, and cannot sign.
        let browser = try RawHTTP.send(
            server.url, path: "/" + server.token, headers: [("Origin", "http://localhost:5173")],
            body: #"{"jsonrpc":"2.0","id":1,"method":"eth_accounts","params":[]}"#)
        #expect(browser.status == 200 && (browser.result as? [Any])?.isEmpty == true)
        #expect(browser.headers["access-control-allow-origin"] == "http://localhost:5173")

        let ethSign = try Self.call(
            server, "eth_sign", #"["\#(Self.address)","0x\#(String(repeating: "ab", count: 32))"]"#)
        #expect(ethSign.status == 200 && ethSign.code == 4200)
        let v3 = try Self.call(server, "eth_signTypedData_v3", #"["\#(Self.address)","{}"]"#)
        #expect(v3.code == 4200)
        let admin = try Self.call(server, "admin_peers", "[]")
        #expect(admin.status == 200 && admin.code == -32601)
        let personalUnlock = try Self.call(server, "personal_unlockAccount", #"["\#(Self.address)","",0]"#)
        #expect(personalUnlock.code == -32601)
        // The node's own unlocked account: kcs does not expose it, and never forwards the call.
        let nodeAccount = "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"
        let foreign = try Self.call(
            server, "eth_sendTransaction", #"[{"from":"\#(nodeAccount)","to":"\#(Self.beef)","value":"0x1"}]"#)
        #expect(foreign.status == 200 && foreign.code == 4100)
        let otherChain = try Self.call(
            server, "eth_sendTransaction", #"[{"from":"\#(Self.address)","to":"\#(Self.beef)","chainId":"0x1"}]"#)
        #expect(otherChain.code == -32602)
        let typed =
            #"{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"}],"M":[{"name":"a","type":"uint256"}]},"primaryType":"M","domain":{"name":"x","chainId":1},"message":{"a":1}}"#
        let typedOtherChain = try Self.call(server, "eth_signTypedData_v4", "[\"\(Self.address)\", \(typed)]")
        #expect(typedOtherChain.code == -32602)
        let blob = try Self.call(
            server, "eth_sendTransaction",
            #"[{"from":"\#(Self.address)","to":"\#(Self.beef)","authorizationList":[]}]"#)
        #expect(blob.code == 4200)
        let switchOther = try Self.call(server, "wallet_switchEthereumChain", #"[{"chainId":"0x1"}]"#)
        #expect(switchOther.code == 4902)
        let switchSame = try Self.call(server, "wallet_switchEthereumChain", #"[{"chainId":"0x776562337079"}]"#)
        #expect(switchSame.code == nil && switchSame.result is NSNull)
        let add = try Self.call(server, "wallet_addEthereumChain", #"[{"chainId":"0x1"}]"#)
        #expect(add.code == 4200)
        // Over the rule and no one at a console: denied, with the text ethers reads.
        let over = try Self.call(
            server, "eth_sendTransaction",
            #"[{"from":"\#(Self.address)","to":"\#(Self.beef)","value":"0xde0b6b3a7640000","gas":"0x5208"}]"#)
        #expect(over.status == 200 && over.code == 4001 && over.message?.hasPrefix("User denied") == true)
        let unnamed = try Self.call(
            server, "personal_sign", #"["0x\#(String(repeating: "ab", count: 32))","\#(Self.address)"]"#)
        #expect(unnamed.code == 4001)  // 32 bytes: never approved by a rule, and nobody to ask
        let nodeSawRefused = try Self.requests(node)
        #expect(
            nodeSawRefused.count - before.count == 0
                || !nodeSawRefused.dropFirst(before.count).contains {
                    [
                        "eth_sendTransaction", "eth_sign", "admin_peers", "personal_unlockAccount",
                        "eth_sendRawTransaction",
                    ].contains($0)
                }, "\(nodeSawRefused.dropFirst(before.count))")

        // A batch is answered in order; a notification gets no answer; reads are forwarded.
        let batch = try RawHTTP.send(
            server.url, path: "/" + server.token,
            body:
                #"[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":2,"method":"eth_accounts","params":[]},{"jsonrpc":"2.0","method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":3,"method":"eth_blockNumber","params":[]}]"#
        )
        let answers = try #require(batch.json as? [[String: Any]])
        #expect(answers.map { $0["id"] as? Int } == [1, 2, 3])
        #expect(answers[0]["result"] as? String == "0x776562337079")
        #expect(answers[1]["result"] as? [String] == [Self.address])
        #expect((answers[2]["result"] as? String)?.hasPrefix("0x") == true)
        #expect(try Self.requests(node).last == "eth_blockNumber")
        let empty = try RawHTTP.send(server.url, path: "/" + server.token, body: "[]")
        #expect(empty.code == -32600)
        let tooMany = try RawHTTP.send(
            server.url, path: "/" + server.token,
            body: "["
                + Array(repeating: #"{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}"#, count: 101).joined(
                    separator: ",") + "]")
        #expect(tooMany.code == -32600)
        let garbage = try RawHTTP.send(server.url, path: "/" + server.token, body: "{not json")
        #expect(garbage.status == 200 && garbage.code == -32700)
        #expect(
            try Self.requests(node).filter { $0 == "eth_sendRawTransaction" || $0 == "eth_sendTransaction" }.isEmpty)
    }

    /// A rules file that cannot be read right is refused at start, naming the line and field.
    @Test func invalidRulesFile_refusedAtStart_withLineAndField() throws {
        let node = try EVMNode()
        defer { node.stop() }
        let (home, rules) = try Self.home(
            rules: """
                {
                  "kcsRules": 1,
                  "transactions": {
                    "allow": [{"to": "0x000000000000000000000000000000000000bEEF", "maxValue": "lots"}]
                  }
                }
                """)
        defer { home.remove() }
        let r = try home.run(arguments: [
            "signer", "serve", "--rpc", node.url, "--listen", "127.0.0.1:0", "--key", "test", "--rules", rules,
        ])
        #expect(r.code != 0)
        #expect(r.err.contains("rules.json:4: transactions.allow[0].maxValue must be an amount"), "\(r.err)")
        chmod(rules, 0o666)
        let open = try home.run(arguments: [
            "signer", "serve", "--rpc", node.url, "--listen", "127.0.0.1:0", "--key", "test", "--rules", rules,
        ])
        #expect(open.err.contains("not writable by group or others"), "\(open.err)")
    }

    /// What stops the server before it listens, each named: a wrong PIN in --pin-file (the card
    /// keeps its tries for the right one), no node, a rules file whose hash is not the one pinned,
    /// a path that is not one.
    @Test func startRefusals_wrongPIN_noNode_rulesHash_badPath() throws {
        let node = try EVMNode()
        defer { node.stop() }
        let (home, rules) = try Self.home()
        defer { home.remove() }
        try Self.loadCard(home, sim: "pin")
        let wrong = try home.write("111111\n", to: "wrong-pin")
        let serve = ["signer", "serve", "--listen", "127.0.0.1:0"]
        let r = try home.run(arguments: serve + ["--rpc", node.url, "--card", "sim:pin", "--pin-file", wrong])
        #expect(r.code != 0)
        #expect(r.err.contains("kcs signer serve: error:") && r.err.lowercased().contains("pin"), "\(r.err)")
        let right = try home.run("card.connect --sim pin\ncard.login \"123456\"\nprint \"IN\"")
        #expect(right.code == 0 && right.out.contains("IN"), "\(right.err)")

        let noNode = try home.run(arguments: serve + ["--rpc", "http://127.0.0.1:9", "--key", "test"])
        #expect(noNode.code != 0 && noNode.err.contains("127.0.0.1:9"), "\(noNode.err)")
        let pinned = try home.run(
            arguments: serve + [
                "--rpc", node.url, "--key", "test", "--rules", rules, "--rules-hash", String(repeating: "0", count: 64),
            ])
        #expect(pinned.code != 0 && pinned.err.contains("not the 0000"), "\(pinned.err)")
        let path = try home.run(
            arguments: serve + ["--rpc", node.url, "--card", "sim:pin", "--pin-file", wrong, "--path", "m/x"])
        #expect(path.code != 0 && path.err.contains("--path must be a derivation path"), "\(path.err)")
        let chain = try home.run(arguments: serve + ["--rpc", node.url, "--key", "test", "--chain-id", "1"])
        #expect(chain.code != 0 && chain.err.contains("not the --chain-id 1 given"), "\(chain.err)")
    }
}
