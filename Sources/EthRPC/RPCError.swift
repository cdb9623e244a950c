import KCSErrors
import WalletCrypto

/// What can go wrong between kcs and an Ethereum node. Each case names the endpoint (without
/// its path, which often holds an API key) and says what was expected and what came back.
public enum RPCError: WalletError, Equatable {
    /// The URL given for the node is not an http(s) URL with a host.
    case badURL(given: String)
    /// No answer within the time-out.
    case timeout(endpoint: String, seconds: Double, method: String)
    /// No connection was made (refused, unknown host, TLS handshake, libcurl missing): the
    /// request never left, so nothing was sent.
    case noConnection(endpoint: String, method: String, reason: String)
    /// The connection failed after it was made (dropped, closed without an answer, an answer
    /// too large): the node may have read the request.
    case unreachable(endpoint: String, method: String, reason: String)
    /// An HTTP status other than 200.
    case http(endpoint: String, method: String, status: Int, body: String)
    /// The node answered with a JSON-RPC error object.
    case node(method: String, code: Int, message: String)
    /// The answer was not the JSON-RPC response expected.
    case badResponse(method: String, reason: String)
    /// A command needs a node and none is configured; `alternatives` are the command's other
    /// ways to get what it would ask the node (`--used LIST`), if any.
    case noNode(alternatives: String? = nil)

    public var id: String {
        switch self {
        case .badURL: "rpc.badURL"
        case .timeout: "rpc.timeout"
        case .noConnection: "rpc.noConnection"
        case .unreachable: "rpc.unreachable"
        case .http: "rpc.http"
        case .node: "rpc.nodeError"
        case .badResponse: "rpc.badResponse"
        case .noNode: "rpc.noNode"
        }
    }

    public var description: String {
        switch self {
        case .badURL(let given):
            "rpc: expected an http:// or https:// node URL with a host, got \"\(given)\""
        case .timeout(let endpoint, let seconds, let method):
            "rpc: \(method) to \(endpoint) got no answer within \(Self.seconds(seconds))"
        case .noConnection(let endpoint, let method, let reason):
            "rpc: \(method) could not connect to \(endpoint): \(reason); nothing was sent"
        case .unreachable(let endpoint, let method, let reason):
            "rpc: \(method) could not reach \(endpoint): \(reason)"
        case .http(let endpoint, let method, let status, let body):
            "rpc: \(method) to \(endpoint) failed with HTTP \(status)" + (body.isEmpty ? "" : ": \(body)")
        case .node(let method, let code, let message):
            "rpc: the node refused \(method): \(message) (JSON-RPC error \(code))"
        case .badResponse(let method, let reason):
            "rpc: \(method) answered something unexpected: \(reason)"
        case .noNode(let alternatives):
            "expected a node, got none (give --rpc URL, set KCS_RPC_URL, or run eth.node URL"
                + (alternatives.map { "; or \($0)" } ?? "") + ")"
        }
    }

    /// Only `noNode` is about the command that needed the node; the others stand alone.
    public var followsCommandName: Bool {
        if case .noNode = self { true } else { false }
    }

    /// A failure after which the request may be sent again without harm, if it is a read.
    public var isTransient: Bool {
        switch self {
        case .timeout, .noConnection, .unreachable: true
        case .http(_, _, let status, _): status == 429 || status >= 500
        default: false
        }
    }

    /// A failure after which the node may nevertheless have taken the request: no answer in
    /// time, a connection lost after the request went out, or a server error. What a refused
    /// connection, a rate limit (429) or any answer the node gave rules out.
    public var mayHaveReachedNode: Bool {
        switch self {
        case .timeout, .unreachable: true
        case .http(_, _, let status, _): status >= 500
        default: false
        }
    }

    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
    }
}

extension RPCError {
    /// The node is not there or not answering: the service is unavailable, as for a missing card.
    public var exitClass: ExitClass {
        switch self {
        case .timeout, .noConnection, .unreachable, .http: .noCard
        default: .runtimeError
        }
    }
}
