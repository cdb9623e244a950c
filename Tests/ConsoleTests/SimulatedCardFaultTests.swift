// A simulated card under a full disk and under SIGKILL at each write of its state file, through the
// real binary (docs/card.md, "What a simulated card is"). strace injects the faults into kcs's own
// system calls: `rename` failing with ENOSPC is a full disk for the card file (AtomicFile's last step,
// so the temporary file was written first); `rename` answered with SIGKILL is a kill at each commit
// point, after the temporary file holding the card's secrets was written and synced.
import Foundation
import KCSTestSupport
import Testing

private let strace = "/usr/bin/strace"

/// The card file's PIN and PUK tries left (`card.credentials.pin.remaining`, …).
private func triesOnDisk(_ home: BatchHome) throws -> (pin: Int, duress: Int, puk: Int) {
    let data = try Data(contentsOf: URL(fileURLWithPath: home.path("home/cards/default.json")))
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    let credentials = try #require((object?["card"] as? [String: Any])?["credentials"] as? [String: Any])
    func remaining(_ key: String) -> Int { (credentials[key] as? [String: Any])?["remaining"] as? Int ?? -1 }
    return (remaining("pin"), remaining("duressPIN"), remaining("puk"))
}

/// AtomicFile's temporary files in the cards directory.
private func temporaries(_ home: BatchHome) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: home.path("home/cards"))) ?? []).filter {
        $0.contains(".tmp-")
    }
}

/// Runs `code` as a script under strace with `faults` (strace `-e inject=…` arguments); returns how it
/// ended: the exit status, or nil when a signal killed it.
private func runUnderStrace(
    _ home: BatchHome, _ code: String, inject: String
) throws -> (code: Int32?, out: String, err: String) {
    let script = try home.write(code, to: "fault.kcs")
    let out = home.path("fault.out"), err = home.path("fault.err")
    _ = FileManager.default.createFile(atPath: out, contents: nil)
    _ = FileManager.default.createFile(atPath: err, contents: nil)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: strace)
    p.arguments = [
        "-f", "-qq", "-o", "/dev/null", "-e", "trace=rename,renameat,renameat2", "-e", "inject=" + inject,
        storeTestBinary.path, script,
    ]
    p.currentDirectoryURL = home.folder
    p.environment = home.environment
    p.standardOutput = FileHandle(forWritingAtPath: out)
    p.standardError = FileHandle(forWritingAtPath: err)
    p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
    try p.runWithSignalsUnblocked()
    p.waitUntilExit()
    let killed = p.terminationReason == .uncaughtSignal || p.terminationStatus == 128 + SIGKILL
    return (
        killed ? nil : p.terminationStatus, try String(contentsOfFile: out, encoding: .utf8),
        try String(contentsOfFile: err, encoding: .utf8)
    )
}

@Suite(
    "Simulated card: full disk and SIGKILL at each write", .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: strace), "needs strace (make deps installs it)"))
struct SimulatedCardFaultTests {
    static let pin = "123456", password = "fault pairing password"

    /// A home with the default simulated card initialized (3 PIN tries, 5 PUK tries) and paired.
    static func pairedCard() throws -> BatchHome {
        let home = try BatchHome()
        let r = try home.run(
            """
            card.connect
            card.init --pin "\(pin)" --puk "111122223333" --pairing "\(password)"
            card.pair --password "\(password)"
            """, name: "setup.kcs")
        #expect(r.code == 0, "\(r.err)")
        return home
    }

    @Test func fullDisk_noPINIsAnswered_andNoTemporaryFileIsLeft() throws {
        let home = try Self.pairedCard()
        defer { home.remove() }
        // Ten wrong PINs and the right one on a 3-try card while the card file cannot be replaced.
        var exits: [Int32?] = []
        for guess in [
            "000000", "111111", "222222", "333333", "444444", "555555", "666666", "777777", "888888",
            "999999", Self.pin,
        ] {
            let r = try runUnderStrace(
                home, "card.connect\ncard.login \"\(guess)\"\nprint \"ANSWERED\"\n",
                inject: "rename,renameat,renameat2:error=ENOSPC")
            exits.append(r.code)
            #expect(!r.out.contains("ANSWERED"), "\(guess): \(r.out)")
            #expect(r.err.contains("cannot save the simulated card state"), "\(guess): \(r.err)")
            #expect(r.err.contains("No space left on device"), "\(guess): \(r.err)")
            #expect(temporaries(home) == [], "a failed write left its temporary file")
        }
        // Exit 69: the card went away mid-command; never 0 (the right PIN found) nor 77 (a verdict).
        #expect(exits == Array(repeating: 69, count: 11))
        #expect(try triesOnDisk(home).pin == 3, "nothing was compared, so nothing was paid")
        let after = try home.run("card.connect\nlet l = card.login \"\(Self.pin)\"\nprint \"SLOT\", l.slot\n")
        #expect(after.code == 0, "\(after.err)")
        #expect(tagged("SLOT", in: after.out) == ["0"])
    }

    /// Kills kcs at its 1st, 2nd, … rename of the card file while it verifies `guess`, each time from the
    /// same starting card; returns the tries on disk after each kill and the exit code of the first run
    /// that got through.
    static func killAtEachCommit(_ home: BatchHome, guess: String) throws -> (tries: [Int], exit: Int32?) {
        let cardFile = home.path("home/cards/default.json")
        let start = try Data(contentsOf: URL(fileURLWithPath: cardFile))
        var tries: [Int] = []
        for n in 1...8 {
            try start.write(to: URL(fileURLWithPath: cardFile))
            let r = try runUnderStrace(
                home, "card.connect\ncard.login \"\(guess)\"\nprint \"ANSWERED\"\n",
                inject: "rename,renameat,renameat2:signal=KILL:when=\(n)")
            guard r.code == nil else { return (tries, r.code) }
            #expect(!r.out.contains("ANSWERED"))
            // Killed between the temporary file's fsync and its rename: the card's secrets are in it …
            let left = temporaries(home)
            #expect(left.count == 1 && left[0].hasPrefix(".default.json.tmp-"), "kill \(n): \(left)")
            tries.append(try triesOnDisk(home).pin)
            // … until the cards directory is opened again.
            let reopen = try home.run("card.connect\n", name: "reopen.kcs")
            #expect(reopen.code == 0, "\(reopen.err)")
            #expect(temporaries(home) == [], "kill \(n): the stale temporary file survived the next open")
        }
        return (tries, nil)
    }

    @Test func sigkillAtEachCommit_wrongPIN_theTryIsPaidBeforeTheCompare() throws {
        let home = try Self.pairedCard()
        defer { home.remove() }
        let (tries, exit) = try Self.killAtEachCommit(home, guess: "000000")
        // Commit 1: the PIN's decrement (killed before it: nothing paid, nothing compared); commit 2: the
        // duress PIN's, after the PIN was compared — so the PIN's try is on disk.
        #expect(tries == [3, 2])
        #expect(exit == 77, "the third run gets its answer: wrong PIN")
        #expect(try triesOnDisk(home) == (pin: 2, duress: 2, puk: 5))
    }

    @Test func sigkillAtEachCommit_rightPIN_neverMoreTriesThanBefore() throws {
        let home = try Self.pairedCard()
        defer { home.remove() }
        let (tries, exit) = try Self.killAtEachCommit(home, guess: Self.pin)
        // Commit 2 (the duress PIN's decrement) carries the PIN's counter restored by the match; a kill
        // before it leaves the PIN's try paid.
        #expect(tries == [3, 2, 3])
        #expect(exit == 0)
        #expect(try triesOnDisk(home) == (pin: 3, duress: 3, puk: 5))
    }
}

@Suite("Simulated card: says what it is")
struct SimulatedCardNoticeTests {
    @Test func simHelp_andCardInfo_sayTheSecretsAreInAFileNotBehindThePIN() throws {
        let help = try kcs(["sim", "--help"])
        #expect(help.code == 0, "\(help.err)")
        let text = help.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("protected by the file's permissions (0600), not by the PIN"), "\(help.out)")
        #expect(text.contains("Fine for learning and testing; not for funds"))
        let home = try BatchHome()
        defer { home.remove() }
        let r = try home.run("card.connect\nprint \"SIM\", card.info().simulated\n")
        #expect(r.code == 0, "\(r.err)")
        #expect(
            tagged("SIM", in: r.out) == [
                "its PIN, PUK, pairing secret and keys are in \(home.path("home/cards/default.json")), protected by file "
                    + "permissions, not by the PIN: fine for learning and testing, not for funds"
            ])
    }
}
