import WalletCore
import WalletCrypto

// What the state machines of pairing, DKG and signing share (docs/two-party-protocol.md): each
// party is a value that takes the frame it received and returns the frame to send, with no I/O;
// a channel or a test moves the frames.

/// One party of one session.
public protocol TwoPartyStep: AnyObject {
    /// The frame to send next, given the one received (nil to start, for the initiator).
    /// Returns nil when this party has nothing more to send.
    func next(_ incoming: Frame?) throws(MPCError) -> Frame?
    /// The step this party expects next (for the `abort` frame it sends).
    var expectedStep: Int { get }
    /// The session's nonce as frames carry it (zeroes before the first frame).
    var frameSID: [UInt8] { get }
    /// True once this party has sent its last frame and expects none.
    var isDone: Bool { get }
}

extension TwoPartyStep {
    /// The `abort` frame this party sends when `error` stopped it.
    public func abortFrame(for error: MPCError) -> Frame {
        Frame.abort(step: expectedStep, sid: frameSID, error: error)
    }
}

/// Runs two parties in one process, P1 first, until both are done. When one fails, the other
/// receives its `abort` frame; the first failure is thrown, with the side that failed.
public enum TwoPartyRun {
    public struct Failure: Error {
        public let party: Int
        public let error: MPCError
    }

    public static func run(_ p1: TwoPartyStep, _ p2: TwoPartyStep, tamper: ((Frame) -> Frame?)? = nil) throws(Failure) {
        var frame: Frame?
        do { frame = try p1.next(nil) } catch { throw Failure(party: 1, error: error) }
        var toP2 = true
        while var f = frame {
            if let tamper {
                guard let changed = tamper(f) else { return }
                f = changed
            }
            let (receiver, sender) = toP2 ? (p2, p1) : (p1, p2)
            do {
                frame = try receiver.next(f)
            } catch {
                _ = try? sender.next(receiver.abortFrame(for: error))
                throw Failure(party: toP2 ? 2 : 1, error: error)
            }
            toP2.toggle()
        }
    }
}

/// The session id both parties derive: H("sid", [S context, B n1, B n2, B pid1, B pid2]).
func sessionID(_ context: String, n1: [UInt8], n2: [UInt8], pid1: [UInt8], pid2: [UInt8]) -> [UInt8] {
    var items = Items()
    items.s(context)
    items.b(n1)
    items.b(n2)
    items.b(pid1)
    items.b(pid2)
    return MPCHash.h("sid", items)
}

/// The kinds of joint key.
public enum TwoPartyKind: String, Sendable, CaseIterable {
    case ecdsa
    case hdMaster = "hd-master"
}

/// BIP-32 non-hardened derivation on the joint key: the tweak δ = Σ I_L and the child key
/// Q' = Q + δ·G (docs/two-party-protocol.md §6). A hardened step is refused: it needs the whole
/// private key, which neither party has.
public enum JointDerivation {
    public static func derive(
        _ q: PublicKey, chainCode: [UInt8]?, path: DerivationPath
    ) throws(MPCError) -> (delta: BigNum, key: PublicKey) {
        var delta = Curve.zero
        guard !path.components.isEmpty else { return (delta, q) }
        guard let chainCode else {
            throw .checkFailed(
                check: "sign.path", reason: "a plain two-party ECDSA key has no children; sign with path m")
        }
        if let hardened = path.components.first(where: \.hardened) {
            throw .checkFailed(
                check: "sign.path",
                reason:
                    "hardened step \(hardened) below a 2-party master needs the whole private key; use m/0/7-style paths"
            )
        }
        guard var node = try? ExtendedKey(publicKey: q, chainCode: chainCode) else {
            throw .checkFailed(check: "sign.path", reason: "the chain code is not 32 bytes")
        }
        for c in path.components {
            do {
                let step = try node.publicStep(c)
                delta = try arith { try BigNum.modAdd(delta, try BigNum(bytes: step.tweak), Curve.q) }
                node = step.child
            } catch let e as MPCError {
                throw e
            } catch {
                throw .checkFailed(
                    check: "sign.path", reason: "index \(c) gives no valid child (BIP-32: use the next index)")
            }
        }
        return (delta, node.publicKey)
    }
}
