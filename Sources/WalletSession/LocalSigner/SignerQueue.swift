import Foundation
import LocalRPC
import Synchronization
import WalletStore

// The local signer's requests waiting for the console (docs/signer.md, "One at a time"): a FIFO
// of at most `--max-pending`, each request a small state machine — queued, shown, finished — so
// that the client thread (which sees a disconnect or the deadline) and the console thread (which
// shows and signs) never both settle one.

/// One request waiting for approval, shared by its client's thread and the console's.
final class PendingRequest: @unchecked Sendable {
    enum State {
        case queued
        case shown
        /// Settled: the JSON-RPC response object (nil when the client is gone), and the outcome
        /// to log when it was settled before it was shown.
        case finished(response: [String: Any]?, early: (SignerOutcome, String)?)
    }

    let number: Int
    let method: String
    let call: SignerCall
    let caller: Caller
    let id: Any
    let deadline: ContinuousClock.Instant
    private let lock = NSLock()
    private var current = State.queued
    private let done = DispatchSemaphore(value: 0)
    private let withdrawnFlag = Atomic<Bool>(false)

    init(number: Int, method: String, call: SignerCall, caller: Caller, id: Any, deadline: ContinuousClock.Instant) {
        self.number = number
        self.method = method
        self.call = call
        self.caller = caller
        self.id = id
        self.deadline = deadline
    }

    var withdrawn: Bool { withdrawnFlag.load(ordering: .relaxed) }

    private func withState<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&current)
    }
    var expired: Bool { ContinuousClock.now >= deadline }

    /// Queued → shown; false when it was settled first (withdrawn, expired, refused at stop).
    func show() -> Bool {
        withState { s in
            guard case .queued = s else { return false }
            s = .shown
            return true
        }
    }

    /// The outcome to log for a request settled before it was shown.
    var earlyOutcome: (SignerOutcome, String)? {
        withState { s in
            if case .finished(_, let early) = s { return early }
            return nil
        }
    }

    /// Settles it with `response` (once; later calls do nothing).
    func finish(_ response: [String: Any]?, early: (SignerOutcome, String)? = nil) {
        let first: Bool = withState { s in
            if case .finished = s { return false }
            s = .finished(response: response, early: early)
            return true
        }
        if first { done.signal() }
    }

    /// Settles a request still in the queue (nothing shown yet): false once it was shown.
    func settleQueued(_ response: [String: Any]?, outcome: SignerOutcome, by: String) -> Bool {
        let settled: Bool = withState { s in
            guard case .queued = s else { return false }
            s = .finished(response: response, early: (outcome, by))
            return true
        }
        if settled { done.signal() }
        return settled
    }

    /// The client's thread: waits for the answer, withdrawing the request when the client goes
    /// away and expiring it when it is still queued at its deadline.
    func waitForAnswer(expiredResponse: @autoclosure () -> [String: Any]) -> [String: Any]? {
        while done.wait(timeout: .now() + 0.1) == .timedOut {
            if caller.hasGoneAway && !withdrawn {
                withdrawnFlag.store(true, ordering: .relaxed)
                _ = settleQueued(nil, outcome: .withdrawn, by: "client")
            } else if expired {
                _ = settleQueued(expiredResponse(), outcome: .expired, by: "timeout")
            }
        }
        return withState { s in
            if case .finished(let response, _) = s { return response }
            return nil
        }
    }
}

/// The FIFO the console works through. A request's number is given as it joins the queue, under
/// the queue's lock, so the console shows #1 before #2 however the clients' threads race.
final class SignerQueue: @unchecked Sendable {
    let maximum: Int
    private let items = Mutex<(list: [PendingRequest], next: Int)>(([], 1))
    private let arrived = DispatchSemaphore(value: 0)

    init(maximum: Int) { self.maximum = maximum }

    /// Adds the request `make` builds with its number; nil when `maximum` wait already.
    func add(_ make: (Int) -> PendingRequest) -> PendingRequest? {
        let added: PendingRequest? = items.withLock { q in
            guard q.list.count < maximum else { return nil }
            let request = make(q.next)
            q.next += 1
            q.list.append(request)
            return request
        }
        if added != nil { arrived.signal() }
        return added
    }

    /// The next request, or nil after `seconds` without one.
    func next(seconds: Double) -> PendingRequest? {
        guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        return items.withLock { $0.list.isEmpty ? nil : $0.list.removeFirst() }
    }

    /// How many wait behind the one shown.
    var waiting: Int { items.withLock { $0.list.count } }

    /// Takes every waiting request (the server stops).
    func drain() -> [PendingRequest] {
        items.withLock { q in
            defer { q.list.removeAll() }
            return q.list
        }
    }
}
