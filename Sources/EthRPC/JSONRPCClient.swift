import Foundation
import Synchronization

/// A JSON-RPC 2.0 client over HTTP POST. Reads may be retried with back-off after a
/// transient failure (time-out, no connection, HTTP 429 or 5xx); a call made with
/// `retries: 0` — every `eth_sendRawTransaction` — is sent exactly once.
public final class JSONRPCClient: Sendable {
    public let url: URL
    public let timeout: TimeInterval
    /// Tries after the first for a read; the wait doubles from `backoff` each time.
    public let readRetries: Int
    public let backoff: TimeInterval
    private let transport: any HTTPTransport
    private let nextID = Atomic<Int>(1)

    public init(
        url: URL, timeout: TimeInterval = 10, readRetries: Int = 2, backoff: TimeInterval = 0.25,
        transport: any HTTPTransport = CurlTransport()
    ) {
        self.url = url
        self.timeout = timeout
        self.readRetries = readRetries
        self.backoff = backoff
        self.transport = transport
    }

    /// The endpoint as messages show it (no path or query).
    public var endpoint: String { Endpoint.shown(url) }

    /// Calls `method` and returns its `result` (NSNull for a JSON null).
    public func call(_ method: String, _ params: [Any] = [], retries: Int? = nil) throws(RPCError) -> Any {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let body = try Self.encode(["jsonrpc": "2.0", "id": id, "method": method, "params": params], method)
        let answer = try post(body, method: method, retries: retries ?? readRetries)
        guard let response = answer as? [String: Any] else {
            throw .badResponse(method: method, reason: "expected a JSON object, got \(Self.kind(answer))")
        }
        return try Self.result(of: response, method: method)
    }

    /// Calls `method` with `params` (a list or an object, as a caller sent them) and returns the
    /// node's whole response object, its `error` untouched (the local signer forwards reads and
    /// hands the node's errors back as they are). `eth_sendRawTransaction` is sent once.
    public func forward(_ method: String, params: Any) throws(RPCError) -> [String: Any] {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let body = try Self.encode(["jsonrpc": "2.0", "id": id, "method": method, "params": params], method)
        let answer = try post(body, method: method, retries: method == "eth_sendRawTransaction" ? 0 : readRetries)
        guard let response = answer as? [String: Any], response["result"] != nil || response["error"] != nil else {
            throw .badResponse(method: method, reason: "expected a JSON-RPC response object, got \(Self.kind(answer))")
        }
        return response
    }

    /// Sends several reads as one JSON-RPC batch; each answer is matched to its call by id.
    public func batch(_ calls: [(method: String, params: [Any])]) throws(RPCError) -> [Result<Any, RPCError>] {
        if calls.isEmpty { return [] }
        let first = nextID.add(calls.count, ordering: .relaxed).oldValue
        let requests: [[String: Any]] = calls.enumerated().map { i, c in
            ["jsonrpc": "2.0", "id": first + i, "method": c.method, "params": c.params]
        }
        let label = calls.count == 1 ? calls[0].method : "a batch of \(calls.count) calls"
        let body = try Self.encode(requests, label)
        let answer = try post(body, method: label, retries: readRetries)
        guard let responses = answer as? [[String: Any]] else {
            // A node without batch support answers one error object for the whole request.
            if let single = answer as? [String: Any] { _ = try Self.result(of: single, method: label) }
            throw .badResponse(
                method: label, reason: "expected a JSON array of \(calls.count) responses, got \(Self.kind(answer))")
        }
        var byID: [Int: [String: Any]] = [:]
        for r in responses { if let id = (r["id"] as? NSNumber)?.intValue { byID[id] = r } }
        return calls.enumerated().map { i, c in
            guard let r = byID[first + i] else {
                return .failure(
                    .badResponse(method: c.method, reason: "the batch answer has no response with id \(first + i)"))
            }
            do throws(RPCError) { return .success(try Self.result(of: r, method: c.method)) } catch {
                return .failure(error)
            }
        }
    }

    private func post(_ body: Data, method: String, retries: Int) throws(RPCError) -> Any {
        try withRetries(retries, backoff: backoff) { () throws(RPCError) -> Any in
            let (status, data) = try transport.post(body, to: url, timeout: timeout, method: method)
            guard status == 200 else {
                throw RPCError.http(endpoint: endpoint, method: method, status: status, body: Self.snippet(data))
            }
            do {
                return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            } catch {
                throw RPCError.badResponse(method: method, reason: "the body is not JSON: \(Self.snippet(data))")
            }
        }
    }

    static func encode(_ object: Any, _ method: String) throws(RPCError) -> Data {
        do { return try JSONSerialization.data(withJSONObject: object) } catch {
            throw .badResponse(method: method, reason: "the request could not be encoded")
        }
    }

    static func result(of response: [String: Any], method: String) throws(RPCError) -> Any {
        if let error = response["error"], !(error is NSNull) {
            guard let e = error as? [String: Any] else {
                throw .node(method: method, code: 0, message: "\(error)")
            }
            let code = (e["code"] as? NSNumber)?.intValue ?? 0
            var message = e["message"] as? String ?? "no message"
            if let data = e["data"] as? String, !data.isEmpty { message += " (\(data))" }
            throw .node(method: method, code: code, message: message)
        }
        guard let result = response["result"] else {
            throw .badResponse(method: method, reason: "neither result nor error in the response")
        }
        return result
    }

    /// The start of a body, for an error message.
    static func snippet(_ data: Data) -> String {
        let text = String(decoding: data.prefix(200), as: UTF8.self)
            .replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespaces)
        return data.count > 200 ? text + "…" : text
    }

    static func kind(_ value: Any) -> String {
        switch value {
        case is NSNull: "null"
        case is String: "a string"
        case is NSNumber: "a number"
        case is [Any]: "an array"
        case is [String: Any]: "an object"
        default: "\(type(of: value))"
        }
    }
}

/// Runs `body`, and again up to `retries` times after a transient failure (`RPCError.isTransient`),
/// waiting `backoff`, then twice as long each time. Only for requests that are safe to repeat.
func withRetries<T>(_ retries: Int, backoff: TimeInterval, _ body: () throws(RPCError) -> T) throws(RPCError) -> T {
    var attempt = 0
    while true {
        do throws(RPCError) {
            return try body()
        } catch {
            guard error.isTransient, attempt < retries else { throw error }
            Thread.sleep(forTimeInterval: backoff * Double(1 << attempt))
            attempt += 1
        }
    }
}
