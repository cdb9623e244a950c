import WalletCrypto

/// What can go wrong between kcs and an Ethereum node. Each case names the endpoint (without
/// its path, which often holds an API key) and says what was expected and what came back.
public enum RPCError: WalletError, Equatable {
    /// The URL given for the node is not an http(s) URL with a host.
    case badURL(given: String)
    /// No answer within the time-out.
    case timeout(endpoint: String, seconds: Double, method: String)
    /// The connection failed: refused, unknown host, TLS, dropped.
    case unreachable(endpoint: String, method: String, reason: String)
    /// An HTTP status other than 200.
    case http(endpoint: String, method: String, status: Int, body: String)
    /// The node answered with a JSON-RPC error object.
    case node(method: String, code: Int, message: String)
    /// The answer was not the JSON-RPC response expected.
    case badResponse(method: String, reason: String)
    /// A command needs a node and none is configured.
    case noNode(command: String)

    public var id: String {
        switch self {
        case .badURL: "rpc.badURL"
        case .timeout: "rpc.timeout"
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
        case .unreachable(let endpoint, let method, let reason):
            "rpc: \(method) could not reach \(endpoint): \(reason)"
        case .http(let endpoint, let method, let status, let body):
            "rpc: \(method) to \(endpoint) failed with HTTP \(status)" + (body.isEmpty ? "" : ": \(body)")
        case .node(let method, let code, let message):
            "rpc: the node refused \(method): \(message) (JSON-RPC error \(code))"
        case .badResponse(let method, let reason):
            "rpc: \(method) answered something unexpected: \(reason)"
        case .noNode(let command):
            "\(command): expected a node, got none (give --rpc URL, set KCS_RPC_URL, or run eth.node URL)"
        }
    }

    /// A failure after which the request may be sent again without harm, if it is a read.
    public var isTransient: Bool {
        switch self {
        case .timeout, .unreachable: true
        case .http(_, _, let status, _): status == 429 || status >= 500
        default: false
        }
    }

    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
    }
}
