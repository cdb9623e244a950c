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

    static func requests(_ node: EVMNode) throws -> [String] {
        let data = try Data(contentsOf: URL(string: node.url + "/requests")!)
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
        #expect(lstat((server.socket as NSString).deletingLastPathComponent, &info) == 0 && info.st_mode & 0o777 == 0o700)
        let ipc = try SignerClient.run(["ipc", server.socket])
        #expect(ipc["accounts"] as? [String] == [Self.address])
        #expect(ipc["personal"] as? String == Self.personal)

        // 0.003 ether approved in the last 24 hours; 0.002 more passes maxValuePer24h (0.004): denied by rule.
        let over = try Self.call(
            server, "eth_sendTransaction", #"[{"from":"\#(Self.address)","to":"\#(Self.beef)","value":"0x71afd498d0000"}]"#)
        #expect(over.status == 200 && over.code == 4001)
        #expect(over.message?.hasPrefix("User denied by rule: the last 24 hours' value") == true, "\(over.message ?? "")")
        #expect(server.stop() == 0)
        #expect(server.shown.contains("kcs signer: stopped"))

        // The window is summed from the log, so a restart does not reset it.
        let again = try home.startSigner(node: node.url, ["--key", "test", "--rules", rules], name: "again")
        defer { again.stop() }
        let still = try Self.call(
            again, "eth_sendTransaction", #"[{"from":"\#(Self.address)","to":"\#(Self.beef)","value":"0x71afd498d0000"}]"#)
        #expect(still.code == 4001)
        again.stop()
        let log = try home.run("print (history --kind signer --json)")
        let rows = try #require(
            try JSONSerialization.jsonObject(with: Data(log.out.utf8)) as? [[String: Any]], "\(log.out) \(log.err)")
        let approved = rows.filter { $0["outcome"] as? String == "approved" }
        #expect(approved.count == 6, "\(rows)")  // 2 sends, 3 signatures over HTTP, 1 over the socket
        #expect(rows.filter { $0["outcome"] as? String == "denied" }.count == 2)
        #expect(Set(approved.compactMap { $0["decidedBy"] as? String }).isSuperset(of: [
            "rule transactions.allow[0]", "rule messages.allow[0]", "rule typedData.allow[0]",
        ]))
        #expect(approved.contains { $0["method"] as? String == "eth_sendTransaction" && $0["sent"] as? Bool == true })
    }
}
