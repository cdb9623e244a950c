// The store commands at a terminal (util-linux `script` gives kcs a real TTY): the vault
// passphrase asked again before a rotation, the backup confirmation declined (the rotation
// stays pending) and later given through `rotation resume`, and the new keystore password
// asked twice without echo. Each line is sent as soon as its prompt has appeared.
import Foundation
import KCSTestSupport
import Testing

/// A kcs console under a pseudo-terminal, driven like `expect`: wait for a prompt, type a line.
final class TerminalSession: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    /// What the terminal showed, filled by a reader thread until the end of output; `expect`
    /// waits on it for its text.
    private let screen = Screen()
    private var cursor: String.Index

    /// The terminal's output so far, and whether it has ended; waiters are woken at every read.
    final class Screen: @unchecked Sendable {
        let condition = NSCondition()
        var buffer = ""
        var ended = false
    }

    init(environment: [String: String], folder: URL, arguments: [String] = []) throws {
        cursor = screen.buffer.startIndex
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        // `script` runs its command through `$SHELL -c` (/bin/sh when SHELL is unset). Dash forks
        // the command instead of replacing itself, so the shell would share kcs's process group,
        // get every Ctrl-C too, and end itself with SIGINT after kcs quits (status 130 from
        // `script -e`). With `exec` kcs is the only process on the terminal, whatever the shell.
        let quoted = "'" + storeTestBinary.path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        let command = ([quoted] + arguments.map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" })
            .joined(separator: " ")
        process.arguments = ["-qfec", "exec " + command, "/dev/null"]
        var env = environment
        env["XDG_STATE_HOME"] = folder.path
        env["TERM"] = "dumb"
        // At a terminal the passphrase is always asked, never read from the environment.
        env["KCS_VAULT_PASSPHRASE"] = nil
        process.environment = env
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        signal(SIGPIPE, SIG_IGN)  // kcs may end before everything typed was read
        try process.runWithSignalsUnblocked()
        // The reader holds the screen and the pipe, not the session, so a session a test drops
        // early is still deinitialised (and its kcs stopped), which ends the output.
        let screen = screen, reading = output.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let data = reading.availableData
                screen.condition.lock()
                if data.isEmpty { screen.ended = true } else { screen.buffer += String(decoding: data, as: UTF8.self) }
                screen.condition.broadcast()
                screen.condition.unlock()
                if data.isEmpty { return }
            }
        }
    }

    /// A test that stopped early (an `expect` that threw) leaves nothing running behind it.
    deinit { terminate(process) }

    /// Everything the terminal showed so far.
    var text: String {
        screen.condition.lock()
        defer { screen.condition.unlock() }
        return screen.buffer
    }

    /// The exit status, once kcs has ended (`quit`, `finish`).
    var status: Int32 { process.terminationStatus }

    /// Waits (up to 30 s) until `prompt` appears after what was already matched, then types
    /// `line` and a return at once. A hidden prompt is shown only after echo is off
    /// (`Terminal.readHidden`), so a secret typed the moment it appears must not be echoed:
    /// the tests check that without giving kcs any extra time.
    func answer(_ prompt: String, with line: String) throws {
        try expect(prompt)
        type(line + "\n")
    }

    /// Waits (up to `seconds`) until `text` appears after what was already matched and moves
    /// past it. Throws when kcs ends or the time runs out first.
    func expect(_ text: String, seconds: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(seconds)
        screen.condition.lock()
        defer { screen.condition.unlock() }
        while true {
            if let r = screen.buffer.range(of: text, range: cursor..<screen.buffer.endIndex) {
                cursor = r.upperBound
                return
            }
            // The output ended (kcs is gone) or the time ran out: what was shown says why.
            guard !screen.ended, screen.condition.wait(until: deadline) else {
                throw TerminalTimeout(prompt: text, shown: screen.buffer)
            }
        }
    }

    /// Waits (up to `seconds`) until kcs's terminal has left canonical mode: libedit may draw its
    /// prompt before it takes the terminal (it does so at its first read when input is pending),
    /// and a Ctrl-D typed in that moment is the tty's own end-of-file, which the mode change then
    /// drops. The terminal is read through kcs's standard input (/proc/PID/fd/0, the pty `script`
    /// made). True once the line editor is reading.
    func waitUntilTheLineEditorReads(seconds: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let children = (try? String(
                contentsOfFile: "/proc/\(process.processIdentifier)/task/\(process.processIdentifier)/children",
                encoding: .utf8)) ?? ""
            for child in children.split(separator: " ") {
                let fd = open("/proc/\(child)/fd/0", O_RDONLY | O_NOCTTY | O_NONBLOCK)
                guard fd >= 0 else { continue }
                var mode = termios()
                let got = tcgetattr(fd, &mode) == 0
                close(fd)
                if got && mode.c_lflag & tcflag_t(ICANON) == 0 { return true }
            }
            // The mode changes without output to wait on: look again shortly.
            usleep(10_000)
        }
        return false
    }

    /// Types raw characters (a Tab, a Ctrl-C, half a line) without waiting for anything.
    func type(_ raw: String) { type(bytes: Array(raw.utf8)) }

    /// Types raw bytes, which need not be UTF-8 (what a terminal in another encoding sends).
    func type(bytes: [UInt8]) {
        try? input.fileHandleForWriting.write(contentsOf: Data(bytes))
    }

    /// Answers the two prompts of a first secret import: the new vault passphrase, typed twice.
    func newVault(_ passphrase: String) throws {
        try answer("new vault passphrase: ", with: passphrase)
        try answer("the same passphrase again: ", with: passphrase)
    }

    /// Types `.quit` at the next prompt and waits for kcs to end; returns the whole transcript.
    func quit() throws -> String {
        try answer("kcs> ", with: ".quit")
        return finish().text
    }

    /// Closes the terminal's input and waits for kcs to end (at most 30 s, then it is killed);
    /// returns the whole transcript and the exit status.
    /// Waits (up to `seconds`) until kcs has ended on its own and its output is all read, with
    /// the terminal's input still open (Ctrl-D, `.quit`); false when it has not.
    func waitForEnd(seconds: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        screen.condition.lock()
        defer { screen.condition.unlock() }
        while !screen.ended {
            guard screen.condition.wait(until: deadline) else { return false }
        }
        return true
    }

    func finish() -> (text: String, status: Int32) {
        try? input.fileHandleForWriting.close()
        if !process.waitForExit(within: 30) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        // Everything kcs wrote is read once the output ends.
        let deadline = Date().addingTimeInterval(30)
        screen.condition.lock()
        while !screen.ended && screen.condition.wait(until: deadline) {}
        screen.condition.unlock()
        return (text, process.terminationStatus)
    }

    struct TerminalTimeout: Error, CustomStringConvertible {
        let prompt: String
        let shown: String
        var description: String { "no \"\(prompt)\" prompt appeared; the terminal showed:\n\(shown)" }
    }
}

@Suite("Store commands at a terminal")
struct StoreTerminalTests {
    @Test func rotateDeclinedThenResumed_keystorePasswordAskedTwice_secretsNeverEchoed() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let out = home.path("hot.json")
        let t = try TerminalSession(environment: home.environment, folder: home.folder)
        try t.answer("kcs> ", with: "import privkey \(testPrivateKey) --name hot")
        try t.newVault("vault-pw-1")

        try t.answer("kcs> ", with: "key rotate hot --successor next")
        try t.answer("key.rotate needs the vault passphrase again: ", with: "vault-pw-1")
        try t.answer("Is next backed up? Confirming wipes the secret of hot [y/N] ", with: "n")

        try t.answer("kcs> ", with: "keystore save hot \(out) --light")
        try t.answer("new keystore password: ", with: "ks-pw-one")
        try t.answer("the same password again: ", with: "ks-pw-two")
        try t.answer("kcs> ", with: "keystore save hot \(out) --light")
        try t.answer("new keystore password: ", with: "ks-pw-one")
        try t.answer("the same password again: ", with: "ks-pw-one")
        try t.answer("keystore.save needs the vault passphrase again: ", with: "vault-pw-1")

        try t.answer("kcs> ", with: "rotation resume 1")
        try t.answer("rotation.resume needs the vault passphrase again: ", with: "vault-pw-1")
        try t.answer("Is next backed up? Confirming wipes the secret of hot [y/N] ", with: "y")
        try t.answer("kcs> ", with: "print \"lineage\", len(key.lineage(\"next\")), len(rotation.pending())")
        let text = try t.quit()

        #expect(
            text.contains(
                "key.rotate: next is stored, but its backup was not confirmed; rotation 1 stays pending "
                    + "(successor-created) and hot keeps its secret."), "\(text)")
        #expect(text.contains("keystore.save: the two passwords differ; nothing was written"), "\(text)")
        #expect(text.contains("kdf      scrypt n=4096, r=8, p=6"), "\(text)")
        #expect(text.contains("state     completed"), "\(text)")
        #expect(text.contains("lineage 2 0"), "\(text)")
        for secret in ["vault-pw-1", "ks-pw-one", "ks-pw-two"] {
            #expect(!text.contains(secret), "\(secret) was echoed: \(text)")
        }
        let mode = try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// A `KCS_VAULT_PASSPHRASE_FILE` that is set is read at a terminal too (as restic's and
    /// gpg's are): the vault is made and unlocked from it, in a first and a second run, without
    /// a question; a reconfirmation is still typed by the person.
    @Test func passphraseFile_isUsedAtATerminalToo() throws {
        var home = try BatchHome()
        defer { home.remove() }
        home.environment["KCS_VAULT_PASSPHRASE_FILE"] = try home.write("from-the-file\n", to: "pass")
        chmod(home.path("pass"), 0o600)
        let first = try TerminalSession(environment: home.environment, folder: home.folder)
        try first.answer("kcs> ", with: "import privkey \(testPrivateKey) --name hot")
        try first.answer("kcs> ", with: "print \"SIGNED\", (sign message \"x\" --key hot).verified")
        try first.expect("SIGNED true")
        let made = try first.quit()
        #expect(!made.contains("passphrase: "), "\(made)")
        let second = try TerminalSession(environment: home.environment, folder: home.folder)
        try second.answer("kcs> ", with: "print \"SIGNED\", (sign message \"y\" --key hot).verified")
        try second.expect("SIGNED true")
        try second.answer("kcs> ", with: "key.reveal hot")
        try second.answer("key.reveal needs the vault passphrase again: ", with: "from-the-file")
        let text = try second.quit()
        #expect(!text.contains("vault passphrase: SIGNED"), "\(text)")
        #expect(!text.contains("from-the-file"), "the reconfirmation is not echoed: \(text)")
    }
}
