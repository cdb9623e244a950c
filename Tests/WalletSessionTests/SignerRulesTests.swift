// The local signer's rules file (docs/signer.md, "Rules"): what it approves, what it leaves to
// the console or denies, what it never approves whatever it says, and the refusals of a file
// that cannot be read right (its line and field named).
import Foundation
import Testing
import WalletCore
import WalletSession

@Suite("kcs signer serve's rules")
struct SignerRulesTests {
    static let account = try! EthereumAddress("0xdB00079cad3e665853Bf766eFe26F4C38cdbdCDA")
    static let beef = try! EthereumAddress("0x000000000000000000000000000000000000bEEF")
    static let usdc = try! EthereumAddress("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48")
    static let chain: UInt64 = 131_277_322_940_537

    static let text = """
        {
          "kcsRules": 1,
          "chains": [131277322940537],
          "accounts": ["0xdB00079cad3e665853Bf766eFe26F4C38cdbdCDA"],
          "callers": {"socket": true, "token": true, "origins": ["http://localhost:5173"]},
          "transactions": {
            "allow": [
              {"to": "0x000000000000000000000000000000000000bEEF", "maxValue": "0.01 ether"},
              {"to": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "selectors": ["0xa9059cbb"], "maxValue": "0", "maxGas": 120000}
            ],
            "maxValuePerTx": "0.05 ether",
            "maxValuePer24h": "0.02 ether",
            "maxTxPer24h": 3,
            "maxFeePerGas": "200 gwei",
            "maxTotalFee": "0.01 ether"
          },
          "typedData": {"allow": [{"name": "Ether Mail", "version": "1", "chainId": 131277322940537,
                                   "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC", "primaryType": "Mail"}]},
          "messages": {"allow": [{"textPrefix": "Sign in to localhost:5173"}]},
          "otherwise": "deny",
          "overLimit": "ask"
        }
        """

    static func rules() throws -> SignerRules { try SignerRules(json: Array(text.utf8), file: "rules.json") }

    static func tx(
        to: EthereumAddress?, value: String = "0", data: [UInt8] = [], gas: UInt64 = 21000, fee: String = "3 gwei"
    ) throws -> EthereumTransaction {
        var t = try EthereumTransaction(fields: [
            "chainId": "\(chain)", "maxFeePerGas": fee, "maxPriorityFeePerGas": "1 gwei", "gas": "\(gas)",
            "value": value,
        ])
        t.to = to
        t.data = data
        return t
    }

    static func decide(
        _ kind: RuleSubject.Kind, caller: RuleSubject.CallerKind = .token, chain: UInt64 = chain,
        account: EthereumAddress = account, window: RuleWindow = RuleWindow()
    ) throws -> RuleOutcome {
        try rules().decide(RuleSubject(kind: kind, chainID: chain, account: account, caller: caller)) { window }
    }

    @Test func approves_whatAnEntryAllows_andEveryCapHolds() throws {
        #expect(
            try Self.decide(.transaction(Self.tx(to: Self.beef, value: "0.005 ether"), sends: true))
                == .approve(rule: "transactions.allow[0]"))
        let transfer = [0xa9, 0x05, 0x9c, 0xbb] + [UInt8](repeating: 0, count: 64)
        #expect(
            try Self.decide(.transaction(Self.tx(to: Self.usdc, data: transfer, gas: 60000), sends: true))
                == .approve(rule: "transactions.allow[1]"))
        #expect(
            try Self.decide(.message(Array("Sign in to localhost:5173 at 10:00".utf8)))
                == .approve(rule: "messages.allow[0]"))
        #expect(
            try Self.decide(.transaction(Self.tx(to: Self.beef), sends: true), caller: .origin("http://localhost:5173"))
                == .approve(rule: "transactions.allow[0]"))
    }

    @Test func caps_giveOverLimit() throws {
        // A value above the entry's maxValue, gas above maxGas, a fee above maxFeePerGas.
        #expect(
            try Self.decide(.transaction(Self.tx(to: Self.beef, value: "0.02 ether"), sends: true))
                == .ask(reason: "transactions.allow[0]: value above its maxValue"))
        let transfer = [0xa9, 0x05, 0x9c, 0xbb] + [UInt8](repeating: 0, count: 64)
        #expect(
            try Self.decide(.transaction(Self.tx(to: Self.usdc, data: transfer, gas: 200000), sends: true))
                == .ask(reason: "transactions.allow[1]: gas above its maxGas"))
        #expect(
            try Self.decide(.transaction(Self.tx(to: Self.beef, fee: "300 gwei"), sends: true))
                == .ask(reason: "fee per gas above maxFeePerGas"))
        // The 24-hour windows: value and count, from what was approved before.
        let spent = RuleWindow(valueWei: try EthereumUnits.parse("0.018 ether"), transactions: 1)
        #expect(
            try Self.decide(.transaction(Self.tx(to: Self.beef, value: "0.005 ether"), sends: true), window: spent)
                == .ask(reason: "the last 24 hours' value would pass maxValuePer24h"))
        #expect(
            try Self.decide(.transaction(Self.tx(to: Self.beef), sends: true), window: RuleWindow(transactions: 3))
                == .ask(reason: "the last 24 hours' transactions would pass maxTxPer24h"))
    }

    @Test func neverApproved_whateverTheFileSays_andUnlisted_givesOtherwise() throws {
        let deny = { (outcome: RuleOutcome) -> Bool in if case .deny = outcome { true } else { false } }
        #expect(deny(try Self.decide(.transaction(Self.tx(to: nil, data: [0x60]), sends: true))))  // creation
        #expect(deny(try Self.decide(.transaction(Self.tx(to: Self.beef), sends: false))))  // signed, not sent
        #expect(deny(try Self.decide(.message([UInt8](repeating: 0x41, count: 32)))))  // 32 bytes
        #expect(deny(try Self.decide(.message(Array("Sign in to elsewhere".utf8)))))
        let unbound = try TypedData(
            json: Array(
                #"{"types":{"M":[{"name":"a","type":"uint256"}]},"primaryType":"M","domain":{"name":"Ether Mail"},"message":{"a":1}}"#
                    .utf8))
        #expect(
            try Self.decide(.typed(unbound))
                == .deny(reason: "typed data without a verifyingContract is never approved by a rule"))
        #expect(deny(try Self.decide(.transaction(Self.tx(to: Self.beef), sends: true), chain: 1)))
        #expect(deny(try Self.decide(.transaction(Self.tx(to: Self.beef), sends: true), account: Self.beef)))
        #expect(
            deny(
                try Self.decide(
                    .transaction(Self.tx(to: Self.beef), sends: true), caller: .origin("https://evil.example"))))
        // An entry with selectors matches only calls with one of them; plain transfers to it do not.
        #expect(deny(try Self.decide(.transaction(Self.tx(to: Self.usdc), sends: true))))
    }

    @Test func invalidFiles_nameTheLineAndField() throws {
        func refusal(_ text: String) -> SignerRulesError? {
            do {
                _ = try SignerRules(json: Array(text.utf8), file: "r.json")
                return nil
            } catch { return error }
        }
        let unknown = refusal("{\n  \"kcsRules\": 1,\n  \"transaction\": {}\n}")
        #expect(unknown?.line == 3 && unknown?.field == "transaction")
        let address = refusal(
            "{\"kcsRules\": 1,\n\"transactions\": {\"allow\": [\n {\"to\": \"0xBEEF\"}]}}")
        #expect(address?.line == 3 && address?.field == "transactions.allow[0].to")
        let selector = refusal(
            "{\"kcsRules\": 1, \"transactions\": {\"allow\": [{\"to\": \"0x000000000000000000000000000000000000bEEF\", \"selectors\": [\"0xa9\"]}]}}"
        )
        #expect(selector?.reason.hasPrefix("must be 4 bytes of hex") == true)
        #expect(refusal("{\"kcsRules\": 2}")?.field == "kcsRules")
        #expect(
            refusal("{\"kcsRules\": 1, \"otherwise\": \"approve\"}")?.reason
                == "must be \"ask\" or \"deny\", got approve")
        let contract = refusal("{\"kcsRules\": 1, \"typedData\": {\"allow\": [{\"name\": \"x\"}]}}")
        #expect(contract?.field == "typedData.allow[0].verifyingContract")
        #expect(refusal("[1]")?.reason == "expected a JSON object at the top")
        #expect(refusal("{\"kcsRules\": 1, \"chains\": [1.5]}")?.field == "chains[0]")
        // The file's hash, as printed and as --rules-hash pins it.
        #expect(try Self.rules().sha256 == Hex.encode(Hash.sha256(Array(Self.text.utf8))))
    }
}
