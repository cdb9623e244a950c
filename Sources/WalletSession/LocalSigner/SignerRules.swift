import Foundation
import KCSErrors
import WalletCore
import WalletCrypto

// The local signer's rules file (docs/signer.md, "Rules"): declarative, read once at start, fail
// closed. A request is approved by a rule only when its caller, chain and account are listed, it
// matches an `allow` entry and every cap holds; a cap that fails gives `overLimit`, no match
// gives `otherwise`. Some requests are never approved by a rule, whatever the file says
// (`RuleSubject.neverAutomatic`). The 24-hour windows are summed from the request log.

/// What a rule decided.
public enum RuleOutcome: Sendable, Equatable {
    case approve(rule: String)
    case deny(reason: String)
    case ask(reason: String)
}

/// What a request is, as the rules see it.
public struct RuleSubject: Sendable {
    public enum Kind: Sendable {
        /// `sends`: false for eth_signTransaction (nothing goes to the node, nothing is counted).
        case transaction(EthereumTransaction, sends: Bool)
        case typed(TypedData)
        case message([UInt8])
    }

    public enum CallerKind: Sendable, Equatable {
        case socket, token
        case origin(String)
    }

    public var kind: Kind
    public var chainID: UInt64
    public var account: EthereumAddress
    public var caller: CallerKind

    public init(kind: Kind, chainID: UInt64, account: EthereumAddress, caller: CallerKind) {
        self.kind = kind
        self.chainID = chainID
        self.account = account
        self.caller = caller
    }
}

/// What was approved through the endpoint in the last 24 hours (from the request log).
public struct RuleWindow: Sendable, Equatable {
    public var valueWei: UInt256
    public var transactions: Int
    public init(valueWei: UInt256 = .zero, transactions: Int = 0) {
        self.valueWei = valueWei
        self.transactions = transactions
    }
}

public struct SignerRules: Sendable {
    struct TransactionRule: Sendable {
        var to: EthereumAddress
        var selectors: [[UInt8]]?
        var maxValue: UInt256?
        var maxGas: UInt256?
    }

    struct TypedRule: Sendable {
        var name: String?
        var version: String?
        var chainID: UInt64?
        var verifyingContract: EthereumAddress
        var primaryType: String?
    }

    var chains: [UInt64]?
    var accounts: [EthereumAddress]?
    var socket = true
    var token = true
    var origins: [String] = []
    var transactions: [TransactionRule] = []
    var maxValuePerTx: UInt256?
    var maxValuePer24h: UInt256?
    var maxTxPer24h: Int?
    var maxFeePerGas: UInt256?
    var maxTotalFee: UInt256?
    var typed: [TypedRule] = []
    var messagePrefixes: [String] = []
    var otherwiseDenies = false
    var overLimitDenies = false
    /// The SHA-256 of the file, printed at start (`--rules-hash` pins it).
    public let sha256: String

    init(sha256: String) { self.sha256 = sha256 }

    /// The sentence a decision is shown with.
    public static func describe(_ outcome: RuleOutcome) -> String {
        switch outcome {
        case .approve(let rule): "approved by rule \(rule)"
        case .deny(let reason): "denied by rule: \(reason)"
        case .ask(let reason): "\(reason) → ask"
        }
    }

    /// The outcome for `subject`; `window` (read from the request log) is asked only when a
    /// 24-hour cap has to be checked.
    public func decide(_ subject: RuleSubject, window: () -> RuleWindow) -> RuleOutcome {
        func otherwise(_ why: String) -> RuleOutcome {
            otherwiseDenies ? .deny(reason: why) : .ask(reason: why)
        }
        func overLimit(_ why: String) -> RuleOutcome {
            overLimitDenies ? .deny(reason: why) : .ask(reason: why)
        }
        switch subject.caller {
        case .socket where !socket: return otherwise("socket callers are not listed")
        case .token where !token: return otherwise("token callers are not listed")
        case .origin(let o) where !origins.contains(o): return otherwise("the origin \(o) is not listed")
        default: break
        }
        if let chains, !chains.contains(subject.chainID) { return otherwise("chain \(subject.chainID) is not listed") }
        if let accounts, !accounts.contains(subject.account) {
            return otherwise("account \(subject.account.checksummed) is not listed")
        }
        switch subject.kind {
        case .transaction(let tx, let sends):
            guard sends else { return otherwise("a transaction signed and not sent is never approved by a rule") }
            guard let to = tx.to else { return otherwise("a contract creation is never approved by a rule") }
            guard tx.type.rawValue <= 2 else {
                return otherwise("a type \(tx.type.rawValue) transaction is never approved by a rule")
            }
            let selector = tx.data.count >= 4 ? Array(tx.data[0..<4]) : nil
            guard
                let (index, rule) = transactions.enumerated().first(where: { _, r in
                    r.to == to
                        && (r.selectors.map { list in selector.map { list.contains($0) } ?? false } ?? tx.data.isEmpty)
                })
            else {
                return otherwise(
                    "no transactions.allow entry matches to \(to.checksummed)"
                        + (selector.map { " with selector 0x" + Hex.encode($0) } ?? ""))
            }
            let name = "transactions.allow[\(index)]"
            if let cap = rule.maxValue, tx.value > cap { return overLimit("\(name): value above its maxValue") }
            if let cap = rule.maxGas, tx.gasLimit > cap { return overLimit("\(name): gas above its maxGas") }
            if let cap = maxValuePerTx, tx.value > cap { return overLimit("value above maxValuePerTx") }
            let perGas = tx.maxFeePerGas ?? tx.gasPrice ?? .zero
            if let cap = maxFeePerGas, perGas > cap { return overLimit("fee per gas above maxFeePerGas") }
            let (fee, overflow) = perGas.multipliedReportingOverflow(by: tx.gasLimit.uint64 ?? .max)
            if let cap = maxTotalFee, overflow || fee > cap { return overLimit("worst-case fee above maxTotalFee") }
            let past = maxValuePer24h != nil || maxTxPer24h != nil ? window() : RuleWindow()
            if let cap = maxValuePer24h {
                let (sum, o) = past.valueWei.addingReportingOverflow(tx.value)
                if o || sum > cap { return overLimit("the last 24 hours' value would pass maxValuePer24h") }
            }
            if let cap = maxTxPer24h, past.transactions + 1 > cap {
                return overLimit("the last 24 hours' transactions would pass maxTxPer24h")
            }
            return .approve(rule: name)
        case .typed(let data):
            guard case .string(let contractText)? = data.domain["verifyingContract"],
                let contract = try? EthereumAddress(contractText)
            else { return otherwise("typed data without a verifyingContract is never approved by a rule") }
            for (index, rule) in typed.enumerated() where rule.verifyingContract == contract {
                if let n = rule.name, data.domain["name"] != .string(n) { continue }
                if let v = rule.version, data.domain["version"] != .string(v) { continue }
                if let c = rule.chainID, SignerRules.integer(data.domain["chainId"]) != c { continue }
                if let p = rule.primaryType, data.primaryType != p { continue }
                return .approve(rule: "typedData.allow[\(index)]")
            }
            return otherwise("no typedData.allow entry matches the domain of \(contract.checksummed)")
        case .message(let bytes):
            guard bytes.count != 32 else { return otherwise("a 32-byte message is never approved by a rule") }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return otherwise("a message that is not UTF-8 text is never approved by a rule")
            }
            if let index = messagePrefixes.firstIndex(where: { text.hasPrefix($0) }) {
                return .approve(rule: "messages.allow[\(index)]")
            }
            return otherwise("no messages.allow entry matches the text")
        }
    }

    static func integer(_ value: TypedDataValue?) -> UInt64? {
        switch value {
        case .integer(let s)?: UInt64(s)
        case .string(let s)?: (try? EthereumUnits.parse(s))?.uint64
        default: nil
        }
    }
}

// MARK: - Reading the file

/// Why a rules file was refused: the line, the field and what was expected.
public struct SignerRulesError: WalletError, Equatable {
    public let file: String
    public let line: Int?
    public let field: String
    public let reason: String

    public var id: String { "signer.rules" }
    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(field.isEmpty ? "" : field + " ")\(reason); kcs signer does not start"
    }
}

extension SignerRules {
    /// Reads and checks `bytes` (the file `file`): unknown keys, wrong types, bad addresses or
    /// amounts refuse the whole file.
    public init(json bytes: [UInt8], file: String) throws(SignerRulesError) {
        self.init(sha256: Hex.encode(Hash.sha256(bytes)))
        let locate = { (path: [String]) -> Int? in SignerRules.line(of: path, in: bytes) }
        func fail(_ path: [String], _ reason: String) -> SignerRulesError {
            SignerRulesError(file: file, line: locate(path), field: path.joined(separator: "."), reason: reason)
        }
        let root: [String: Any]
        do {
            guard let object = try JSONText.parse(bytes) as? [String: Any] else {
                throw fail([], "expected a JSON object at the top")
            }
            root = object
        } catch let e as SignerRulesError {
            throw e
        } catch {
            throw SignerRulesError(file: file, line: nil, field: "", reason: "is not JSON: \(error)")
        }
        func keys(_ map: [String: Any], _ allowed: [String], _ path: [String]) throws(SignerRulesError) {
            for key in map.keys.sorted() where !allowed.contains(key) {
                throw fail(path + [key], "is not a rules field (expected one of \(allowed.joined(separator: ", ")))")
            }
        }
        func object(_ any: Any?, _ path: [String]) throws(SignerRulesError) -> [String: Any]? {
            guard let any else { return nil }
            guard let map = any as? [String: Any] else { throw fail(path, "must be an object") }
            return map
        }
        func list(_ any: Any?, _ path: [String]) throws(SignerRulesError) -> [Any]? {
            guard let any else { return nil }
            guard let list = any as? [Any] else { throw fail(path, "must be a list") }
            return list
        }
        func string(_ any: Any?, _ path: [String]) throws(SignerRulesError) -> String? {
            guard let any else { return nil }
            guard let s = any as? String else { throw fail(path, "must be a string") }
            return s
        }
        func address(_ any: Any?, _ path: [String]) throws(SignerRulesError) -> EthereumAddress? {
            guard let text = try string(any, path) else { return nil }
            do { return try EthereumAddress(text) } catch {
                throw fail(path, "must be an address: \(error.description)")
            }
        }
        func amount(_ any: Any?, _ path: [String]) throws(SignerRulesError) -> UInt256? {
            guard let any else { return nil }
            do { return try EthereumTransaction.quantity(any, field: path.last ?? "") } catch {
                throw fail(path, "must be an amount (\"0.01 ether\", \"200 gwei\", a number of wei)")
            }
        }
        func count(_ any: Any?, _ path: [String]) throws(SignerRulesError) -> UInt64? {
            guard let any else { return nil }
            guard let n = any as? NSNumber, String(cString: n.objCType) != "c", n.doubleValue >= 0,
                n.doubleValue == n.doubleValue.rounded(), n.doubleValue < 1e18
            else { throw fail(path, "must be a whole number") }
            return n.uint64Value
        }
        func outcome(_ any: Any?, _ path: [String]) throws(SignerRulesError) -> Bool {
            guard let text = try string(any, path) else { return false }
            guard text == "ask" || text == "deny" else { throw fail(path, "must be \"ask\" or \"deny\", got \(text)") }
            return text == "deny"
        }
        try keys(
            root,
            [
                "kcsRules", "chains", "accounts", "callers", "transactions", "typedData", "messages", "otherwise",
                "overLimit",
            ],
            [])
        guard (root["kcsRules"] as? NSNumber)?.intValue == 1 else {
            throw fail(["kcsRules"], "must be 1 (the format's version)")
        }
        if let chains = try list(root["chains"], ["chains"]) {
            self.chains = try chains.enumerated().map { i, c throws(SignerRulesError) in
                try count(c, ["chains[\(i)]"])!
            }
        }
        if let accounts = try list(root["accounts"], ["accounts"]) {
            self.accounts = try accounts.enumerated().map { i, a throws(SignerRulesError) in
                guard let address = try address(a, ["accounts[\(i)]"]) else {
                    throw fail(["accounts[\(i)]"], "must be an address")
                }
                return address
            }
        }
        if let callers = try object(root["callers"], ["callers"]) {
            try keys(callers, ["socket", "token", "origins"], ["callers"])
            for key in ["socket", "token"] where callers[key] != nil {
                guard let b = callers[key] as? NSNumber, String(cString: b.objCType) == "c" else {
                    throw fail(["callers", key], "must be true or false")
                }
                if key == "socket" { socket = b.boolValue } else { token = b.boolValue }
            }
            origins = try (list(callers["origins"], ["callers", "origins"]) ?? []).enumerated().map {
                i, o throws(SignerRulesError) in try string(o, ["callers", "origins[\(i)]"])!
            }
        }
        if let txs = try object(root["transactions"], ["transactions"]) {
            let path = ["transactions"]
            try keys(
                txs, ["allow", "maxValuePerTx", "maxValuePer24h", "maxTxPer24h", "maxFeePerGas", "maxTotalFee"], path)
            for (i, entry) in (try list(txs["allow"], path + ["allow"]) ?? []).enumerated() {
                let p = path + ["allow[\(i)]"]
                guard let e = try object(entry, p) else { continue }
                try keys(e, ["to", "selectors", "maxValue", "maxGas"], p)
                guard let to = try address(e["to"], p + ["to"]) else { throw fail(p + ["to"], "is required") }
                let selectors = try list(e["selectors"], p + ["selectors"])?.enumerated().map {
                    j, s throws(SignerRulesError) -> [UInt8] in
                    let text = try string(s, p + ["selectors[\(j)]"])!
                    guard let bytes = try? Hex.decode(text), bytes.count == 4 else {
                        throw fail(p + ["selectors[\(j)]"], "must be 4 bytes of hex (0xa9059cbb), got \(text)")
                    }
                    return bytes
                }
                transactions.append(
                    TransactionRule(
                        to: to, selectors: selectors, maxValue: try amount(e["maxValue"], p + ["maxValue"]),
                        maxGas: try amount(e["maxGas"], p + ["maxGas"])))
            }
            maxValuePerTx = try amount(txs["maxValuePerTx"], path + ["maxValuePerTx"])
            maxValuePer24h = try amount(txs["maxValuePer24h"], path + ["maxValuePer24h"])
            maxTxPer24h = try count(txs["maxTxPer24h"], path + ["maxTxPer24h"]).map { Int(min($0, 1 << 40)) }
            maxFeePerGas = try amount(txs["maxFeePerGas"], path + ["maxFeePerGas"])
            maxTotalFee = try amount(txs["maxTotalFee"], path + ["maxTotalFee"])
        }
        if let typedData = try object(root["typedData"], ["typedData"]) {
            try keys(typedData, ["allow"], ["typedData"])
            for (i, entry) in (try list(typedData["allow"], ["typedData", "allow"]) ?? []).enumerated() {
                let p = ["typedData", "allow[\(i)]"]
                guard let e = try object(entry, p) else { continue }
                try keys(e, ["name", "version", "chainId", "verifyingContract", "primaryType"], p)
                guard let contract = try address(e["verifyingContract"], p + ["verifyingContract"]) else {
                    throw fail(p + ["verifyingContract"], "is required (a rule names the exact contract)")
                }
                typed.append(
                    TypedRule(
                        name: try string(e["name"], p + ["name"]), version: try string(e["version"], p + ["version"]),
                        chainID: try count(e["chainId"], p + ["chainId"]), verifyingContract: contract,
                        primaryType: try string(e["primaryType"], p + ["primaryType"])))
            }
        }
        if let messages = try object(root["messages"], ["messages"]) {
            try keys(messages, ["allow"], ["messages"])
            for (i, entry) in (try list(messages["allow"], ["messages", "allow"]) ?? []).enumerated() {
                let p = ["messages", "allow[\(i)]"]
                guard let e = try object(entry, p) else { continue }
                try keys(e, ["textPrefix"], p)
                guard let prefix = try string(e["textPrefix"], p + ["textPrefix"]), !prefix.isEmpty else {
                    throw fail(p + ["textPrefix"], "must be a non-empty string")
                }
                messagePrefixes.append(prefix)
            }
        }
        otherwiseDenies = try outcome(root["otherwise"], ["otherwise"])
        overLimitDenies = try outcome(root["overLimit"], ["overLimit"])
    }

    /// The line of the last key of `path` (`transactions.allow[1].maxValue`), found by looking for
    /// each key in turn after the one before it.
    static func line(of path: [String], in bytes: [UInt8]) -> Int? {
        var from = 0
        var found: Int?
        for component in path {
            let key = component.split(separator: "[").first.map(String.init) ?? component
            let needle = Array("\"\(key)\"".utf8)
            guard !key.isEmpty, let at = find(needle, in: bytes, from: from) else { continue }
            found = at
            from = at + needle.count
        }
        guard let found else { return path.isEmpty ? 1 : nil }
        return bytes[..<found].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        var i = from
        while i + needle.count <= bytes.count {
            if bytes[i] == needle[0] && Array(bytes[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}
