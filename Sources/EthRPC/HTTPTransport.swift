internal import CCurl
import Foundation

/// One HTTP POST of a JSON body. The JSON-RPC client goes through this, so tests and
/// benchmarks can count requests; the real one is `CurlTransport`.
public protocol HTTPTransport: Sendable {
    /// Posts `body` to `url` and returns the status and body. Throws `RPCError.timeout`,
    /// `.noConnection` (nothing sent) or `.unreachable` (with `method` for the message) when
    /// there is no HTTP answer.
    func post(
        _ body: Data, to url: URL, timeout: TimeInterval, method: String
    ) throws(RPCError) -> (status: Int, body: Data)
    /// A GET of `url` (an explorer's API), with the same errors.
    func get(_ url: URL, timeout: TimeInterval, method: String) throws(RPCError) -> (status: Int, body: Data)
}

/// HTTP through libcurl, loaded on first use (see Sources/CCurl/shim.h): http and https,
/// no redirects, nothing cached, one connection per request, and no request retried here.
public struct CurlTransport: HTTPTransport {
    /// The largest answer accepted (a node's block with full transactions fits easily).
    public let limit: Int

    public init(limit: Int = 32 << 20) { self.limit = limit }

    public func post(
        _ body: Data, to url: URL, timeout: TimeInterval, method: String
    ) throws(RPCError) -> (status: Int, body: Data) {
        try request(url, body: body, post: true, timeout: timeout, method: method)
    }

    public func get(_ url: URL, timeout: TimeInterval, method: String) throws(RPCError) -> (status: Int, body: Data) {
        try request(url, body: Data(), post: false, timeout: timeout, method: method)
    }

    private func request(
        _ url: URL, body: Data, post: Bool, timeout: TimeInterval, method: String
    ) throws(RPCError) -> (status: Int, body: Data) {
        let bytes = [UInt8](body)
        var result = bytes.withUnsafeBufferPointer { b in
            kcs_curl_request(url.absoluteString, b.baseAddress, b.count, post ? 1 : 0, Int(timeout * 1000), limit)
        }
        defer { kcs_curl_free(&result) }
        let message = withUnsafeBytes(of: result.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let endpoint = Endpoint.shown(url)
        switch result.code {
        case 0:
            let data = result.body.map { Data(bytes: $0, count: result.length) } ?? Data()
            return (result.status, data)
        case 28:  // CURLE_OPERATION_TIMEDOUT
            throw .timeout(endpoint: endpoint, seconds: timeout, method: method)
        case -1, 5, 6, 7, 35, 60:  // libcurl missing, no proxy/host name, refused, TLS handshake
            throw .noConnection(
                endpoint: endpoint, method: method, reason: Self.reason(code: result.code, message: message))
        default:
            throw .unreachable(
                endpoint: endpoint, method: method, reason: Self.reason(code: result.code, message: message))
        }
    }

    /// libcurl's failure in a few words: the common ones named, the rest as libcurl says them
    /// (its messages name the host, never the path).
    static func reason(code: Int32, message: String) -> String {
        switch code {
        case 5: "unknown proxy host"
        case 6: "unknown host"
        case 7: "connection refused"
        case 23: "the answer was larger than accepted"
        case 35, 60: "TLS failed (\(message))"
        case 52: "the server closed the connection without answering"
        case 55, 56: "the connection was dropped"
        default: message.isEmpty ? "libcurl error \(code)" : message
        }
    }
}

/// How an endpoint is shown in messages: scheme, host and port only, since the path and query
/// of a hosted node's URL usually carry an API key.
public enum Endpoint {
    public static func shown(_ url: URL) -> String {
        var text = (url.scheme ?? "http") + "://" + (url.host ?? "?")
        if let port = url.port { text += ":\(port)" }
        let path = url.path
        if !path.isEmpty && path != "/" || url.query != nil { text += "/…" }
        return text
    }

    /// Parses a node URL: http or https, with a host.
    public static func parse(_ text: String) throws(RPCError) -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw .badURL(given: Endpoint.redactedInput(trimmed))
        }
        return url
    }

    /// A rejected URL as given, cut after its host part so a key in the path is not echoed.
    static func redactedInput(_ text: String) -> String {
        guard let range = text.range(of: "://") else { return text.count > 60 ? String(text.prefix(60)) + "…" : text }
        let rest = text[range.upperBound...]
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) {
            return String(text[..<slash]) + "/…"
        }
        return text
    }
}
