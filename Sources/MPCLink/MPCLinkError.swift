import KCSErrors

/// How the connection to the other party can fail (docs/two-party.md, "The channel").
public enum MPCLinkError: IdentifiableError, Sendable, Equatable {
    /// The address could not be reached.
    case unreachable(address: String, reason: String)
    /// Not an address kcs can use.
    case badAddress(String)
    /// The address could not be listened on.
    case cannotListen(address: String, reason: String)
    /// No frame within the time allowed.
    case timeout(waitingFor: String, seconds: Int)
    /// The other side closed the connection.
    case closed(during: String)
    /// The handshake failed: a bad signature, a malformed message, an AEAD failure.
    case handshake(String)
    /// The peer's identity is not the one pinned for it.
    case untrustedPeer(fingerprint: String, expected: String)
    /// A message longer than the channel allows.
    case tooLarge(Int)

    public var id: String {
        switch self {
        case .unreachable: "mpc.unreachable"
        case .badAddress: "mpc.badAddress"
        case .cannotListen: "mpc.cannotListen"
        case .timeout: "mpc.timeout"
        case .closed: "mpc.closed"
        case .handshake: "mpc.handshake"
        case .untrustedPeer: "mpc.untrustedPeer"
        case .tooLarge: "mpc.tooLarge"
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let address, let reason): "cannot reach the co-signer at \(address): \(reason)"
        case .badAddress(let given): "expected HOST:PORT (IPv4) or unix:PATH, got \(given)"
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .timeout(let what, let seconds): "no answer from the other party within \(seconds) s (waiting for \(what))"
        case .closed(let during): "the other party closed the connection during \(during)"
        case .handshake(let why): "the secure channel's handshake failed: \(why)"
        case .untrustedPeer(let fingerprint, let expected):
            "the other party's identity \(fingerprint) is not the pinned \(expected); nothing was sent"
        case .tooLarge(let n): "a message of \(n) bytes is larger than the channel allows (1 MiB)"
        }
    }
}
