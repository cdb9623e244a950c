// `kcs signer serve` at a terminal (docs/signer.md, "One at a time"): two clients at once are
// shown one after the other, `y` signs the first and `n` denies the second; a client that gives
// up withdraws its question; a question not answered in time expires; the queue's bound answers
// -32002 (never a code clients retry); Ctrl-C stops the server and refuses what waits. Nothing
// is signed without a `y`, and every outcome is in the request log.
import Foundation
import KCSTestSupport
import Synchronization
import Testing
import WalletCore

@Suite("kcs signer serve at a terminal")
struct SignerTerminalTests {
    typealias E = SignerEndpointTests

    /// Runs `body` on a thread of its own; `wait` gives its answer.
    final class Client: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let answer = Mutex<RawHTTP.Answer?>(nil)
        init(_ body: @escaping @Sendable () -> RawHTTP.Answer?) {
            Thread.detachNewThread { [self] in
                let a = body()
                answer.withLock { $0 = a }
                done.signal()
            }
        }
        /// Its answer if it has one now.
        var answered: RawHTTP.Answer? { answer.withLock { $0 } }

        /// Its answer once it has one (asked again, at once).
        func wait() -> RawHTTP.Answer? {
            if done.wait(timeout: .now() + 120) == .success { done.signal() }
            return answer.withLock { $0 }
        }
    }

    @Test func approveDeny_twoAtOnce_withdrawn_expired_queueBound_ctrlC() throws {
        let node = try EVMNode()
        defer { node.stop() }
        let (home, _) = try E.home()
        defer { home.remove() }
        var env = home.environment
        let ready = home.path("signer.ready")
        let runtime = home.path("run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        chmod(runtime, 0o700)
        env["KCS_SIGNER_READY_FILE"] = ready
        env["XDG_RUNTIME_DIR"] = runtime
        let t = try TerminalSession(
            environment: env, folder: home.folder,
            arguments: [
                "signer", "serve", "--rpc", node.url, "--listen", "127.0.0.1:0", "--key", "test", "--input-delay", "0",
                "--approval-timeout", "3", "--max-pending", "2",
            ])
        try t.answer("vault passphrase: ", with: BatchHome.vaultPassphrase)
        try t.expect("Ctrl-C stops")
        var facts: [String: Any]?
        let deadline = Date().addingTimeInterval(60)
        while facts == nil && Date() < deadline {
            if let data = FileManager.default.contents(atPath: ready), data.last == 0x0A {
                facts = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            } else {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        let url = try #require(facts?["url"] as? String)
        let token = try String(contentsOfFile: try #require(facts?["tokenFile"] as? String), encoding: .utf8)
            .trimmingCharacters(in: .newlines)
        @Sendable func sign(_ text: String, timeout: Int = 120) -> RawHTTP.Answer? {
            let hex = "0x" + Hex.encode(Array(text.utf8))
            return try? RawHTTP.send(
                url, path: "/" + token,
                body: #"{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["\#(hex)","\#(E.address)"]}"#,
                timeout: timeout)
        }

        // Two at once: the first shown is approved, the second denied.
        let a = Client { sign("hello from web3.py") }
        let b = Client { sign("goodbye from web3.py") }
        try t.answer("Approve request #1? [y/N] ", with: "y")
        try t.answer("Approve request #2? [y/N] ", with: "n")
        let answers = [a.wait(), b.wait()]
        let signed = answers.compactMap { $0?.result as? String }
        let denied = answers.filter { $0?.code == 4001 }
        #expect(signed.count == 1 && denied.count == 1, "\(answers.map { $0?.json ?? "none" })")
        #expect(denied.first??.message == "User denied the request at the kcs console")
        let recovered = try signed.first.map { s -> String in
            let signature = try EthereumSignature(bytes: try Hex.decode(s))
            let text = a.wait()?.result != nil ? "hello from web3.py" : "goodbye from web3.py"
            return try signature.recoverAddress(digest: PersonalMessage.digest(text: text)).checksummed
        }
        #expect(recovered == E.address)

        // A client that gives up (a 1 s timeout) withdraws its question; nothing is signed.
        let gone = Client { sign("hello again", timeout: 1) }
        try t.expect("Approve request #3? [y/N] ")
        try t.expect("request #3: withdrawn")
        #expect(gone.wait()?.result == nil)

        // Not answered within --approval-timeout (3 s): expired, denied with ethers' words.
        let late = Client { sign("too late") }
        try t.expect("Approve request #4? [y/N] ")
        try t.expect("request #4: expired")
        #expect(late.wait()?.message == "User denied the request: not approved within 3 s")

        // One shown, two waiting (--max-pending 2), the next refused at once with -32002.
        let shown = Client { sign("first") }
        try t.expect("Approve request #5? [y/N] ")
        // Three more: two wait in the queue, one — whichever comes last — is refused at once.
        let more = ["second", "third", "fourth"].map { text in Client { sign(text) } }
        var refused: [Client] = []
        let deadline2 = Date().addingTimeInterval(60)
        while refused.isEmpty && Date() < deadline2 {
            refused = more.filter { $0.answered?.code == -32002 }
            if refused.isEmpty { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(refused.count == 1)
        #expect(refused.first?.answered?.message?.contains("already waiting for approval at the kcs console") == true)
        // Ctrl-C: the server stops, the one shown and the two waiting are refused.
        t.type("\u{03}")
        for client in [shown] + more.filter({ $0 !== refused.first }) {
            #expect(client.wait()?.message == "User denied the request: kcs signer stopped")
        }
        let (text, status) = t.finish()
        #expect(status == 0, "\(text)")
        #expect(text.contains("kcs signer: stopped"))
        #expect(text.contains("── request #1 · personal_sign · http 127.0.0.1 · "), "\(text)")
        let log = try home.run("print (history --kind signer --json)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(log.out.utf8)) as? [[String: Any]])
        let outcomes = rows.map { ($0["outcome"] as? String ?? "", $0["decidedBy"] as? String ?? "") }
        #expect(outcomes.filter { $0 == ("approved", "console") }.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == ("denied", "console") }.count == 1)
        #expect(outcomes.filter { $0.0 == "withdrawn" }.count == 1)
        #expect(outcomes.filter { $0.0 == "expired" }.count == 1)
        #expect(outcomes.filter { $0 == ("denied", "stopped") }.count == 3)
        // The only signature in the history is the approved one.
        let history = try home.run("print len((history --kind message))")
        #expect(history.out.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }
}
