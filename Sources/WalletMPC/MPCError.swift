import KCSErrors

/// Every way a two-party session can fail (docs/two-party-protocol.md). `check` names the
/// protocol check that failed, as the `abort` frame carries it, so both parties and the tests
/// speak of the same failure.
public enum MPCError: IdentifiableError, Sendable, Equatable {
    /// A check of the protocol failed on this side: a proof, a range, a commitment.
    case checkFailed(check: String, reason: String)
    /// The peer stopped the session and named the check that failed on its side.
    case peerAborted(check: String, message: String)
    /// A frame that is not what this step expects (type, step, session, fields, sizes).
    case badFrame(reason: String)
    /// Arithmetic that could not be done (the big-number or curve library refused).
    case arithmetic(String)

    public var id: String {
        switch self {
        case .checkFailed: "mpc.checkFailed"
        case .peerAborted: "mpc.peerAborted"
        case .badFrame: "mpc.badFrame"
        case .arithmetic: "mpc.arithmetic"
        }
    }

    /// The check's name for an `abort` frame.
    public var check: String {
        switch self {
        case .checkFailed(let check, _): check
        case .peerAborted(let check, _): check
        case .badFrame: "frame"
        case .arithmetic: "arithmetic"
        }
    }

    public var description: String {
        switch self {
        case .checkFailed(let check, let reason): "two-party check \(check) failed: \(reason)"
        case .peerAborted(let check, let message):
            "the other party stopped the session at its check \(check)" + (message.isEmpty ? "" : ": \(message)")
        case .badFrame(let reason): "unexpected two-party message: \(reason)"
        case .arithmetic(let why): "two-party arithmetic failed: \(why)"
        }
    }
}

/// Runs `body`, turning a big-number or curve failure into `MPCError.arithmetic`.
@inline(__always)
func arith<T>(_ body: () throws -> T) throws(MPCError) -> T {
    do { return try body() } catch let e as MPCError { throw e } catch { throw .arithmetic(String(describing: error)) }
}

/// Fails check `name` unless `condition` holds.
@inline(__always)
func require(_ condition: Bool, _ name: String, _ reason: @autoclosure () -> String) throws(MPCError) {
    if !condition { throw .checkFailed(check: name, reason: reason()) }
}
