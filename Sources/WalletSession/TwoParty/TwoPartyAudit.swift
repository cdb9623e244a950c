// The two-party audit trail (docs/two-party.md, "Failures"): every session written when it starts,
// finished with how it ended, and the sessions a killed process left open swept.
import Foundation
import KCSErrors
import MPCLink
import WalletCore
import WalletCrypto
import WalletMPC
import WalletStore

extension Session {
    /// Runs one session, written to `mpc_sessions` when it starts (open, with this process's
    /// pid) and finished with how it ended (done, aborted with the check, refused, failed),
    /// whatever the outcome; the outcome itself passes through unchanged. `body` gets the row's id
    /// (nil when it could not be written). Sessions a killed process left open are swept first.
    func audited<T>(
        _ kind: TwoPartySessionKind, role: TwoPartyRole, peer: String, key: String? = nil, digest: [UInt8]? = nil,
        path: String? = nil,
        store: WalletStore, _ body: (Int64?) throws -> T
    ) throws -> T {
        sweepInterruptedTwoPartySessions(store)
        let entry = TwoPartySession(
            kind: kind, role: role, peer: peer, keyName: key, digest: digest, path: path, state: .open,
            check: nil, error: nil, startedAt: clock(), finishedAt: nil)
        let id = try? store.write { try $0.openTwoPartySession(entry, pid: getpid()) }
        func finish(_ state: TwoPartySessionState, _ check: String?, _ error: String?) {
            guard let id else { return }
            _ = try? store.write {
                try $0.finishTwoPartySession(id: id, state: state, check: check, error: error, at: clock())
            }
        }
        do {
            let result = try body(id)
            finish(.done, nil, nil)
            return result
        } catch let error as MPCError {
            let refused = ["sign.refused", "sign.approval"].contains(error.check)
            finish(refused ? .refused : .aborted, error.check, error.description)
            throw error
        } catch {
            finish(.failed, nil, String(describing: error))
            throw error
        }
    }

    /// Marks the sessions a killed process left open as interrupted (and locks a share the
    /// co-signer stored in one), saying so once each.
    func sweepInterruptedTwoPartySessions(_ store: WalletStore) {
        let alive: (Int32) -> Bool = { pid in pid > 0 && (kill(pid, 0) == 0 || errno == EPERM) }
        // A read first: every two-party session passes here, and there is seldom anything to sweep.
        guard let open = try? store.read({ try $0.openTwoPartySessionPIDs() }), open.contains(where: { !alive($0) })
        else { return }
        let swept =
            (try? store.write { tx in try tx.sweepInterruptedTwoPartySessions(alive: alive, at: clock()) }) ?? []
        for s in swept {
            let locked = s.kind == .dkg && s.role == .cosigner && s.keyName != nil
            prompts?.warn(
                "a two-party \(s.kind.rawValue) session with \(s.peer) was interrupted (its process ended); recorded as interrupted"
                    + (locked
                        ? ", and the key \(s.keyName ?? "") it made is locked: the console may never have received it"
                        : ""))
        }
    }

    /// The newest two-party sessions, newest first.
    public func twoPartySessions(limit: Int) throws -> [TwoPartySession] {
        let store = try store()
        sweepInterruptedTwoPartySessions(store)
        return try store.read { try $0.twoPartySessions(limit: limit) }
    }
}
