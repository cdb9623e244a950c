import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP POST of a JSON body. The JSON-RPC client goes through this, so tests and
/// benchmarks can count requests; the real one is `URLSessionTransport`.
public protocol HTTPTransport: Sendable {
    /// Posts `body` to `url` and returns the status and body. Throws `RPCError.timeout` or
    /// `.unreachable` (with `method` for the message) when there is no HTTP answer.
    func post(_ body: Data, to url: URL, timeout: TimeInterval, method: String) throws(RPCError) -> (status: Int, body: Data)
    /// A GET of `url` (an explorer's API), with the same errors.
    func get(_ url: URL, timeout: TimeInterval, method: String) throws(RPCError) -> (status: Int, body: Data)
}

/// HTTP over Foundation's URLSession (libcurl on Linux): https works, redirects are not followed
/// for POST, nothing is cached, and no request is retried here.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let session: URLSession

    public init() {
        let config = URLSessionConfiguration.ephemeral
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.urlCache = nil
        config.httpCookieStorage = nil
        config.httpShouldSetCookies = false
        config.httpMaximumConnectionsPerHost = 8
        session = URLSession(configuration: config)
    }

    deinit { session.invalidateAndCancel() }

    public func post(_ body: Data, to url: URL, timeout: TimeInterval, method: String) throws(RPCError) -> (status: Int, body: Data) {
        // The wait below is the time-out; URLSession's own (a second later) only backs it up.
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout + 1)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return try perform(request, url: url, timeout: timeout, method: method)
    }

    public func get(_ url: URL, timeout: TimeInterval, method: String) throws(RPCError) -> (status: Int, body: Data) {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout + 1)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return try perform(request, url: url, timeout: timeout, method: method)
    }

    private func perform(_ request: URLRequest, url: URL, timeout: TimeInterval, method: String) throws(RPCError) -> (status: Int, body: Data) {
        final class Box: @unchecked Sendable {
            var data: Data?
            var response: URLResponse?
            var error: Error?
        }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { data, response, error in
            box.data = data
            box.response = response
            box.error = error
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + timeout) == .timedOut {
            task.cancel()
            throw .timeout(endpoint: Endpoint.shown(url), seconds: timeout, method: method)
        }
        if let error = box.error {
            if let e = error as? URLError, e.code == .timedOut {
                throw .timeout(endpoint: Endpoint.shown(url), seconds: timeout, method: method)
            }
            throw .unreachable(endpoint: Endpoint.shown(url), method: method, reason: Self.reason(error))
        }
        guard let http = box.response as? HTTPURLResponse else {
            throw .unreachable(endpoint: Endpoint.shown(url), method: method, reason: "no HTTP response")
        }
        return (http.statusCode, box.data ?? Data())
    }

    static func reason(_ error: Error) -> String {
        guard let e = error as? URLError else { return "\(error)" }
        switch e.code {
        case .cannotConnectToHost: return "connection refused"
        case .cannotFindHost, .dnsLookupFailed: return "unknown host"
        case .networkConnectionLost: return "the connection was dropped"
        case .notConnectedToInternet: return "no network"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return "TLS failed (\(e.localizedDescription))"
        default: return e.localizedDescription
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
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
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
