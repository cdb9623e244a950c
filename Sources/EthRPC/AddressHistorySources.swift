import Dispatch
import Foundation
import Synchronization
import WalletCore
import WalletCrypto

// Where account discovery learns that an address was used: an Ethereum node (nonce or
// balance) or an Etherscan-compatible explorer (`txlist`, as the Keycard app asked). Each
// window of addresses is split into chunks sent concurrently, at most `concurrency` at a time;
// a chunk that fails transiently is retried with back-off (reads only), then the error stands.

/// Runs `work(i)` for i in 0..<count on at most `limit` threads; the first error wins.
func boundedConcurrently(
    _ count: Int, limit: Int, _ work: @escaping @Sendable (Int) throws(RPCError) -> Void
) throws(RPCError) {
    if count == 0 { return }
    if count == 1 || limit <= 1 {
        for i in 0..<count { try work(i) }
        return
    }
    final class FirstError: Sendable {
        private let error = Mutex<RPCError?>(nil)
        func set(_ e: RPCError) { error.withLock { if $0 == nil { $0 = e } } }
        var value: RPCError? { error.withLock { $0 } }
    }
    let failure = FirstError()
    let slots = DispatchSemaphore(value: limit)
    let group = DispatchGroup()
    for i in 0..<count {
        slots.wait()
        if failure.value != nil {
            slots.signal()
            break
        }
        group.enter()
        DispatchQueue.global().async {
            defer {
                slots.signal()
                group.leave()
            }
            do throws(RPCError) { try work(i) } catch { failure.set(error) }
        }
    }
    group.wait()
    if let e = failure.value { throw e }
}

/// Thread-safe answers by position.
final class Answers: Sendable {
    private let values: Mutex<[Bool]>
    init(_ count: Int) { values = Mutex(Array(repeating: false, count: count)) }
    func set(_ i: Int, _ v: Bool) { values.withLock { $0[i] = v } }
    var all: [Bool] { values.withLock { $0 } }
}

/// A used address has sent a transaction (nonce > 0) or holds a balance.
public struct NodeHistory: AddressHistory {
    public let node: EthereumNode
    /// Addresses per JSON-RPC batch (two calls each).
    public let chunk: Int
    public let concurrency: Int

    public init(node: EthereumNode, chunk: Int = 10, concurrency: Int = 4) {
        self.node = node
        self.chunk = max(1, chunk)
        self.concurrency = max(1, concurrency)
    }

    public func used(_ addresses: [EthereumAddress]) throws -> [Bool] {
        let answers = Answers(addresses.count)
        let chunks = stride(from: 0, to: addresses.count, by: chunk).map { $0..<min($0 + chunk, addresses.count) }
        let client = node.client
        try boundedConcurrently(chunks.count, limit: concurrency) { (c: Int) throws(RPCError) in
            let range = chunks[c]
            var calls: [(method: String, params: [Any])] = []
            for a in addresses[range] {
                calls.append(("eth_getTransactionCount", [a.checksummed, "latest"]))
                calls.append(("eth_getBalance", [a.checksummed, "latest"]))
            }
            let results = try client.batch(calls)
            for (k, i) in range.enumerated() {
                let nonce = try EthereumNode.quantity(results[2 * k].get(), "eth_getTransactionCount")
                let balance = try EthereumNode.quantity(results[2 * k + 1].get(), "eth_getBalance")
                answers.set(i, !nonce.isZero || !balance.isZero)
            }
        }
        return answers.all
    }
}

/// An Etherscan-compatible explorer: `GET URL?module=account&action=txlist&address=A&apikey=K`.
/// Status "1" with transactions means used; status "0" with "No transactions found" means
/// unused; a rate-limit answer is retried with back-off; anything else is an error.
public struct ExplorerHistory: AddressHistory {
    public let url: URL
    let apiKey: String?
    public let timeout: TimeInterval
    public let concurrency: Int
    public let retries: Int
    public let backoff: TimeInterval
    let transport: any HTTPTransport

    public init(
        url: String, apiKey: String?, timeout: TimeInterval = 10, concurrency: Int = 2, retries: Int = 3,
        backoff: TimeInterval = 0.5, transport: any HTTPTransport = CurlTransport()
    ) throws(RPCError) {
        self.url = try Endpoint.parse(url)
        self.apiKey = apiKey
        self.timeout = timeout
        self.concurrency = max(1, concurrency)
        self.retries = retries
        self.backoff = backoff
        self.transport = transport
    }

    public var endpoint: String { Endpoint.shown(url) }

    public func used(_ addresses: [EthereumAddress]) throws -> [Bool] {
        let answers = Answers(addresses.count)
        try boundedConcurrently(addresses.count, limit: concurrency) { (i: Int) throws(RPCError) in
            answers.set(i, try self.hasTransactions(addresses[i]))
        }
        return answers.all
    }

    func hasTransactions(_ address: EthereumAddress) throws(RPCError) -> Bool {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw .badURL(given: endpoint)
        }
        var query = parts.queryItems ?? []
        query += [
            URLQueryItem(name: "module", value: "account"), URLQueryItem(name: "action", value: "txlist"),
            URLQueryItem(name: "address", value: address.checksummed.lowercased()),
            URLQueryItem(name: "page", value: "1"), URLQueryItem(name: "offset", value: "1"),
        ]
        if let apiKey { query.append(URLQueryItem(name: "apikey", value: apiKey)) }
        parts.queryItems = query
        guard let request = parts.url else { throw .badURL(given: endpoint) }
        let m = "txlist"
        return try withRetries(retries, backoff: backoff) { () throws(RPCError) -> Bool in
            let (status, body) = try transport.get(request, timeout: timeout, method: m)
            guard status == 200 else {
                throw RPCError.http(endpoint: endpoint, method: m, status: status, body: JSONRPCClient.snippet(body))
            }
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
                throw RPCError.badResponse(
                    method: m, reason: "the body is not a JSON object: \(JSONRPCClient.snippet(body))")
            }
            let state = object["status"] as? String
            let message = object["message"] as? String ?? ""
            if state == "1" { return !((object["result"] as? [Any])?.isEmpty ?? true) }
            if message.hasPrefix("No transactions found") { return false }
            let detail = (object["result"] as? String) ?? message
            if detail.lowercased().contains("rate limit") {
                throw RPCError.http(endpoint: endpoint, method: m, status: 429, body: detail)
            }
            throw RPCError.node(method: m, code: 0, message: detail.isEmpty ? "status \(state ?? "?")" : detail)
        }
    }
}
