import Foundation

// The HTTP gate of the local signer (docs/signer.md, "Security"), checked on every request before
// its body is read, in this order: `Host` exactly a loopback name with this port (DNS
// rebinding), a browser's `Origin` only when allowed (CORS never `*`), `POST` only (an allowed
// origin's preflight answered), the per-run token in the path or as a bearer header, JSON only,
// a `Content-Length` within the limit. A refusal is the only non-200 answer kcs gives, with a
// JSON-RPC body too.

public struct GateConfiguration: Sendable {
    public var port: UInt16
    public var token: String
    public var allowedOrigins: [String]
    public var maximumBody: Int

    public init(port: UInt16, token: String, allowedOrigins: [String], maximumBody: Int) {
        self.port = port
        self.token = token
        self.allowedOrigins = allowedOrigins
        self.maximumBody = maximumBody
    }
}

public enum GateDecision: Sendable {
    /// Read the body (`length` bytes) and answer it; `corsOrigin` is the allowed origin to echo.
    case pass(length: Int, corsOrigin: String?)
    case answer(HTTPResponse)
}

public enum Gate {
    public static func check(_ request: HTTPRequest, _ configuration: GateConfiguration) -> GateDecision {
        guard let host = request.header("host") else {
            return .answer(refusal(400, code: -32600, "the Host header is missing", close: true))
        }
        let port = configuration.port
        let hosts = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
        guard hosts.contains(host.lowercased()) else {
            return .answer(refusal(403, code: 4100, "invalid host specified", close: true))
        }
        var cors: String?
        if let origin = request.header("origin") {
            guard origin != "null", configuration.allowedOrigins.contains(origin) else {
                return .answer(refusal(403, code: 4100, "this origin is not allowed (kcs signer serve --allow-origin)"))
            }
            cors = origin
        }
        if request.method == "OPTIONS" {
            guard let cors else {
                return .answer(refusal(405, code: -32600, "only POST is answered", extra: [("Allow", "POST")]))
            }
            var headers = corsHeaders(cors)
            headers += [
                ("Access-Control-Allow-Methods", "POST"),
                ("Access-Control-Allow-Headers", "Content-Type, Authorization"),
                ("Access-Control-Max-Age", "600"),
            ]
            if request.header("access-control-request-private-network")?.lowercased() == "true" {
                headers.append(("Access-Control-Allow-Private-Network", "true"))
            }
            return .answer(HTTPResponse(status: 204, headers: headers))
        }
        let echo = cors.map(corsHeaders) ?? []
        guard request.method == "POST" else {
            return .answer(refusal(405, code: -32600, "only POST is answered", extra: echo + [("Allow", "POST")]))
        }
        guard hasToken(request, configuration.token) else {
            return .answer(refusal(401, code: 4100, "missing or wrong token", extra: echo))
        }
        let type = request.header("content-type")?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            return .answer(refusal(415, code: -32600, "expected Content-Type: application/json", extra: echo))
        }
        if request.header("transfer-encoding") != nil {
            return .answer(refusal(411, code: -32600, "chunked bodies are not read; send Content-Length", close: true))
        }
        guard let lengthText = request.header("content-length"), let length = Int(lengthText), length >= 0 else {
            return .answer(refusal(411, code: -32600, "Content-Length is required", extra: echo, close: true))
        }
        guard length <= configuration.maximumBody else {
            return .answer(
                refusal(
                    413, code: -32600, "the body is larger than \(configuration.maximumBody >> 20) MiB", extra: echo,
                    close: true))
        }
        return .pass(length: length, corsOrigin: cors)
    }

    static func corsHeaders(_ origin: String) -> [(String, String)] {
        [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
    }

    /// The token as the path (`/TOKEN`) or `Authorization: Bearer TOKEN`, compared in constant time.
    static func hasToken(_ request: HTTPRequest, _ token: String) -> Bool {
        var path = request.target
        if let q = path.firstIndex(of: "?") { path = String(path[..<q]) }
        if path.hasPrefix("/"), equalInConstantTime(String(path.dropFirst()), token) { return true }
        if let auth = request.header("authorization"), auth.lowercased().hasPrefix("bearer ") {
            return equalInConstantTime(String(auth.dropFirst(7)).trimmingCharacters(in: .whitespaces), token)
        }
        return false
    }

    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<x.count { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    /// A gate's refusal: the status and a JSON-RPC error body (id null: the body was not read).
    public static func refusal(
        _ status: Int, code: Int, _ message: String, extra: [(String, String)] = [], close: Bool = false
    ) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "application/json")] + extra,
            body: RPCErrorBody.encode(id: nil, code: code, message: message), close: close)
    }
}

/// The one JSON-RPC error shape: the gate's and the framing's refusals, and every error the
/// local signer answers (with `data` when there is some).
public enum RPCErrorBody {
    public static func object(id: Any?, code: Int, message: String, data: Any? = nil) -> [String: Any] {
        var error: [String: Any] = ["code": code, "message": message]
        if let data { error["data"] = data }
        return ["jsonrpc": "2.0", "id": id ?? NSNull(), "error": error]
    }

    public static func encode(id: Any?, code: Int, message: String) -> [UInt8] {
        Array(
            (try? JSONSerialization.data(
                withJSONObject: object(id: id, code: code, message: message), options: [.sortedKeys])) ?? Data())
    }
}
