// Issue 5 §7: kill kcs with SIGKILL at random moments while it imports 100 keys and while it
// rotates keys, then reopen the store with a second kcs run and check that
// - SQLite's `integrity_check` says ok and the store's invariants hold (`store.check`: positions
//   1…n, no secret without its key or on a key that must not have one, none missing, parents);
// - each key is wholly present or absent: a listed key has its public key, address and sealed
//   secret, and signing with it recovers its own address;
// - an interrupted rotation is pending in the step it reached and `rotation resume` finishes it.
// The ConsoleTests target does not link GRDB, so the second run does the reading.
//
// Delays and keys come from a seeded generator; the seed is in every failure message and
// `KCS_CRASH_SEED=N` replays a run.
import Foundation
import KCSTestSupport
import Testing

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
/// small and seedable, enough to pick delays and test keys reproducibly.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One stored key as `key.list --json` lists it.
struct ListedKey {
    let id: Int
    let name: String
    let kind: String
    let address: String?
    let publicKey: String?
    let parentID: Int?
    let successorID: Int?
    let retired: Bool
    let hasSecret: Bool

    init(_ o: [String: Any]) {
        id = o["id"] as? Int ?? -1
        name = o["name"] as? String ?? ""
        kind = o["kind"] as? String ?? ""
        address = o["address"] as? String
        publicKey = o["publicKey"] as? String
        parentID = o["parentID"] as? Int
        successorID = o["successorID"] as? Int
        retired = o["retired"] as? Bool ?? false
        hasSecret = o["hasSecret"] as? Bool ?? false
    }
}

@Suite("SIGKILL during store writes", .serialized)
struct CrashTests {
    static let seed: UInt64 =
        ProcessInfo.processInfo.environment["KCS_CRASH_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 1...UInt64(UInt32.max))
    static let killedRuns = 5

    // MARK: - The two workloads

    @Test func sigkillDuringImportOf100Keys_eachKeyWhollyPresentOrAbsent() throws {
        var random = SplitMix64(state: Self.seed)
        // The first key creates the vault (a slow scrypt); the kills land among the other 99.
        var lines = (0..<100).map { _ in "import privkey " + Self.privateKey(&random) }
        lines.insert("print \"\(Self.readyMarker)\"", at: 1)
        try crashRuns(script: lines.joined(separator: "\n") + "\n", random: &random, resume: false) { keys, context in
            #expect((1...100).contains(keys.count), context)
            #expect(keys.allSatisfy { $0.kind == "ECDSA" && !$0.retired && $0.hasSecret }, context)
        } whenComplete: { keys, context in
            #expect(keys.count == 100, context)
        }
    }

    @Test func sigkillDuringRotations_storeConsistentAndRotationResumes() throws {
        var random = SplitMix64(state: Self.seed ^ 0x5EED)
        let script = """
            import privkey \(Self.privateKey(&random)) --name e0
            import mnemonic "\(testMnemonic)" --accounts 2 --name h0
            print "\(Self.readyMarker)"
            for i in 1...4 {
              key rotate "e{i - 1}" --yes --successor "e{i}"
              key rotate "h{i - 1}" --yes --skip-confirm --successor "h{i}"
            }

            """
        // The new mnemonic of an HD rotation is shown between beginRotation and createSuccessor:
        // killing just after it lands inside a rotation, which random delays rarely do (most of
        // a rotation is the vault passphrase's scrypt, before anything is written).
        try crashRuns(script: script, random: &random, resume: true, aim: ("Write these 12 words down", 4)) {
            keys, context in
            // After `rotation resume`, each chain has exactly one live head (if it exists at all).
            let live = keys.filter { !$0.retired }
            #expect(live.filter { $0.kind == "ECDSA" }.count <= 1, context)
            #expect(live.filter { $0.kind == "HD-MASTER" }.count <= 1, context)
            let ids = Set(keys.map(\.id))
            for k in keys where k.retired && (k.kind == "ECDSA" || k.kind == "HD-MASTER") {
                #expect(k.successorID.map(ids.contains) == true, "\(k.name) retired without a successor; \(context)")
            }
            for master in keys where master.kind == "HD-MASTER" {
                let children = keys.filter { $0.parentID == master.id }
                #expect(children.count == 2, "\(master.name) has \(children.count) children; \(context)")
                #expect(children.allSatisfy { $0.retired == master.retired }, context)
            }
        } whenComplete: { keys, context in
            #expect(keys.filter { !$0.retired }.map(\.name).sorted() == ["e4", "h4", "h4-0", "h4-1"], context)
            #expect(keys.count == 20, context)
        }
    }

    // MARK: - Running, killing, checking

    /// The line a workload prints when its setup (vault creation, first keys) is done and the
    /// writes under test begin: kills are aimed after it, since a vault's scrypt would
    /// otherwise take most of the run.
    static let readyMarker = "READY"

    /// Runs `script` once to the end, timing the phase after its `print "READY"` line; then
    /// `killedRuns` times in fresh homes, each killed with SIGKILL a random time (0 to that
    /// phase's length) after READY appeared. Checks every resulting store (see the file
    /// comment) and hands its keys to `check` (and, for the complete run, to `whenComplete`).
    ///
    /// With `aim` (an output line and how often it appears in a whole run), every other killed
    /// run instead waits for a random appearance of that line and kills 0–5 ms after it.
    private func crashRuns(
        script: String, random: inout SplitMix64, resume: Bool, aim: (line: String, count: Int)? = nil,
        check: ([ListedKey], Comment) throws -> Void,
        whenComplete: ([ListedKey], Comment) throws -> Void
    ) throws {
        let full = try BatchHome()
        defer { full.remove() }
        let complete = try full.start(
            try full.write(script, to: "work.kcs"), stdout: full.path("work.out"),
            stderr: full.path("work.err"))
        try waitFor(Self.readyMarker, full.path("work.out"), process: complete)
        let ready = Date()
        complete.waitUntilExit()
        let phase = Date().timeIntervalSince(ready)
        let errors = (try? String(contentsOfFile: full.path("work.err"), encoding: .utf8)) ?? ""
        try #require(complete.terminationStatus == 0, "the uninterrupted run failed: \(errors)")
        let fullContext = Comment(
            rawValue: "seed \(Self.seed), uninterrupted run (\(Int(phase * 1000)) ms after READY)")
        let fullKeys = try reopenAndCheck(full, resume: resume, context: fullContext).keys
        try check(fullKeys, fullContext)
        try whenComplete(fullKeys, fullContext)

        for run in 1...Self.killedRuns {
            let home = try BatchHome()
            defer { home.remove() }
            let aimed = aim.map { (line: $0.line, occurrence: Int.random(in: 1...$0.count, using: &random)) }
                .flatMap { run % 2 == 1 ? $0 : nil }
            let delay =
                aimed == nil
                ? Double.random(in: 0...phase, using: &random) : Double.random(in: 0...0.005, using: &random)
            let process = try home.start(
                try home.write(script, to: "work.kcs"), stdout: home.path("work.out"),
                stderr: home.path("work.err"))
            try waitFor(Self.readyMarker, home.path("work.out"), process: process)
            if let aimed {
                try waitFor(aimed.line, occurrence: aimed.occurrence, home.path("work.out"), process: process)
            }
            Thread.sleep(forTimeInterval: delay)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let killed = process.terminationReason == .uncaughtSignal
            let context = Comment(
                rawValue: "seed \(Self.seed), run \(run), "
                    + "\(killed ? "killed" : "finished before the kill") \(Int(delay * 1000)) ms after "
                    + (aimed.map { "\"\($0.line)\" #\($0.occurrence) " } ?? "READY ")
                    + "(a whole run takes \(Int(phase * 1000)) ms from there)")
            let (keys, resumed) = try reopenAndCheck(home, resume: resume, context: context)
            try check(keys, context)
            // Where the kill landed, for whoever reads the test log.
            print(
                "\(context.rawValue): \(keys.count) keys after reopening"
                    + resumed.map { ", resumed a rotation found \($0.split(separator: " ").first ?? "")" }.joined())
        }
    }

    /// Waits until the run's standard output holds `occurrence` lines containing `text` (kcs
    /// writes its output unbuffered), failing when the process ends first or after 60 s.
    private func waitFor(_ text: String, occurrence: Int = 1, _ stdout: String, process: Process) throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let output = (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? ""
            if output.split(separator: "\n").filter({ $0.contains(text) }).count >= occurrence { return }
            guard process.isRunning else {
                // It may have written the line and ended between the read and this check.
                let last = (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? ""
                if last.split(separator: "\n").filter({ $0.contains(text) }).count >= occurrence { return }
                break
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
        process.terminate()
        Issue.record("the workload never printed \"\(text)\" \(occurrence) times; seed \(Self.seed)")
        throw CancellationError()
    }

    /// A second kcs run on the store a (possibly killed) run left: `store.check`, then (with
    /// `resume`) `rotation resume` of every pending rotation and `store.check` again, then
    /// every live signing key signs once. Returns the keys as `key.list --json` lists them and the
    /// `RESUMED` lines (state found, state reached).
    private func reopenAndCheck(
        _ home: BatchHome, resume: Bool, context: Comment
    ) throws
        -> (keys: [ListedKey], resumed: [String])
    {
        let resumeAll = """
            for r in open {
              let done = rotation resume (r.id) --yes --skip-confirm
              print "RESUMED", r.state, done.state
            }
            let again = store.check
            print "AFTER", again.ok, len(rotation.pending())
            """
        let r = try home.run(
            """
            let c = store.check
            print "INTEGRITY", c.integrity
            print "PROBLEMS", len(c.problems)
            for p in c.problems { print "PROBLEM", p }
            let open = rotation pending
            print "PENDING", len(open)
            \(resume ? resumeAll : "")
            let all = key.list --json
            print "JSON", all
            let live = key.list --active
            for k in live {
              if k.kind == "ECDSA" or k.kind == "HD-CHILD" {
                print "SIGNED", k.name, (sign \(testDigest) --key (k.name)).signer
              }
            }
            """, name: "check.kcs")
        try #require(r.code == 0, "the checking run failed: \(r.err); \(context)")
        #expect(tagged("INTEGRITY", in: r.out) == ["ok"], context)
        #expect(tagged("PROBLEMS", in: r.out) == ["0"], "\(tagged("PROBLEM", in: r.out)); \(context)")
        let pending = Int(tagged("PENDING", in: r.out).first ?? "") ?? -1
        if resume {
            #expect((0...1).contains(pending), "one rotation runs at a time; \(context)")
            #expect(tagged("RESUMED", in: r.out).allSatisfy { $0.hasSuffix(" completed") }, context)
            #expect(tagged("AFTER", in: r.out) == ["true 0"], context)
        } else {
            #expect(pending == 0, context)
        }
        let json = try #require(tagged("JSON", in: r.out).first, "no key list; \(context)")
        let objects = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
        let keys = objects.map(ListedKey.init)
        #expect(Set(keys.map { $0.name.lowercased() }).count == keys.count, context)
        // Wholly present: public data, and a sealed secret exactly where one belongs…
        for k in keys {
            #expect(k.publicKey != nil && k.address?.isEmpty == false, "\(k.name) is incomplete; \(context)")
            let needsSecret = !k.retired && (k.kind == "ECDSA" || k.kind == "HD-MASTER")
            #expect(k.hasSecret == needsSecret, "\(k.name): secret \(k.hasSecret), expected \(needsSecret); \(context)")
        }
        // … and the secret is the key's own: every live signing key signs as its address.
        let signed = Dictionary(
            tagged("SIGNED", in: r.out).map { line -> (String, String) in
                let parts = line.split(separator: " ")
                return (String(parts.first ?? ""), String(parts.last ?? ""))
            }, uniquingKeysWith: { first, _ in first })
        for k in keys where !k.retired && (k.kind == "ECDSA" || k.kind == "HD-CHILD") {
            #expect(signed[k.name] == k.address, "\(k.name) signs as \(signed[k.name] ?? "nothing"); \(context)")
        }
        return (keys, tagged("RESUMED", in: r.out))
    }

    /// A random valid secp256k1 private key as `0x` + 64 hex digits (the first byte is kept in
    /// 1…0x7f, so the key is never 0 and always below the group order).
    private static func privateKey(_ random: inout SplitMix64) -> String {
        var bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[0] = 1 + bytes[0] % 0x7f
        return "0x" + bytes.map { String(format: "%02x", $0) }.joined()
    }
}
