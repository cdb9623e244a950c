import Foundation

/// A real `pcscd` for tests: started in the foreground as a child process, stopped by its
/// PID. pcscd loads vsmartcard's vpcd driver (from a reader.conf.d of its own, see `vpcdPort`),
/// which gives the "Virtual PCD 00 00" reader that `VPCDBridge` feeds. `make test` installed both.
///
/// The daemon never meets the machine's own pcscd (a desktop's, started by systemd's socket, or
/// one a user runs for a reader): pcscd's socket path is fixed at build time, so it runs in a
/// private mount namespace (`unshare --mount`) where a folder of the tests' own is bound over
/// `/run/pcscd`, and every client — libpcsclite in this process, kcs, keycard-py — is pointed at
/// that folder's socket with `PCSCLITE_CSOCK_NAME`, which the client library honours. Where no
/// namespace can be made (no privileges), the daemon runs on the default socket as long as no
/// other pcscd does; with one running, `unavailableReason` says why the PC/SC tests cannot run.
public final class PCSCDaemon: @unchecked Sendable {
    /// The daemon's process id, while it runs.
    public private(set) var pid: Int32?
    private var process: Process?

    /// The control socket pcsc-lite uses on Debian; the machine's pcscd answers there.
    public static let systemSocketPath = "/run/pcscd/pcscd.comm"

    /// The folder the tests' daemon sees as `/run/pcscd`: one per test process.
    static let privateRun = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-pcscd-run-\(getpid())")
        .path

    /// Whether a private mount namespace can be made here (`unshare --mount`, as root).
    public static let isolated: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        p.arguments = ["--mount", "--propagation", "private", "/bin/true"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    /// The socket the tests' daemon answers on, and that this process's clients use: the
    /// private folder's when `isolated` (exported as `PCSCLITE_CSOCK_NAME` the first time it is
    /// read, before any PC/SC call: the client library reads the variable once).
    public static let socketPath: String = {
        guard isolated else { return systemSocketPath }
        let path = privateRun + "/pcscd.comm"
        setenv("PCSCLITE_CSOCK_NAME", path, 1)
        return path
    }()

    /// Why the PC/SC tests cannot run here, or nil when they can: no namespace could be made
    /// and a pcscd the tests did not start answers on the default socket (never stopped).
    public static var unavailableReason: String? {
        guard !isolated, let other = runningPID(socket: systemSocketPath) else { return nil }
        return "skipped: a pcscd the tests did not start runs here (pid \(other)) and no private mount namespace "
            + "can be made for the tests' own (unshare --mount needs root or user namespaces)"
    }

    /// The TCP port vpcd's reader listens on in the tests' pcscd (`kcs sim attach --port`,
    /// `VPCDBridge(port:)`): below Linux's ephemeral range (32768–60999), so no outgoing
    /// connection can hold it when pcscd binds it. Debian's /etc/reader.conf.d/vpcd uses 35963
    /// (0x8C7B), inside that range: a client port of the EVM tests' HTTP connections landing on
    /// it (or its TIME_WAIT) kept vpcd from listening, and no "Virtual PCD 00 00" reader appeared
    /// for a minute — every PC/SC test of the run failed.
    public static let vpcdPort: UInt16 = 0x7C7B

    /// The reader.conf.d this daemon loads: Debian's vpcd entry with `vpcdPort`.
    private static let readerConfigDirectory =
        FileManager.default.temporaryDirectory.appendingPathComponent("kcs-pcscd-\(getpid())").path

    private static func readerConfig() throws -> String {
        let dir = readerConfigDirectory
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let port = "0x" + String(vpcdPort, radix: 16, uppercase: true)
        try """
        FRIENDLYNAME "Virtual PCD"
        DEVICENAME   /dev/null:\(port)
        LIBPATH      /usr/lib/pcsc/drivers/serial/libifdvpcd.so
        CHANNELID    \(port)

        """.write(toFile: dir + "/vpcd", atomically: true, encoding: .utf8)
        return dir
    }

    public init() {}

    /// Starts `pcscd -f` (in its private namespace when `isolated`), then waits until its socket
    /// exists. Throws when pcscd cannot be started; a test never skips for it. Without a
    /// namespace, a pcscd the tests did not start is an error that says so: the tests restart
    /// their daemon and need vpcd's reader fresh, and they never stop a service of the machine's.
    public func start(timeout: Double = 10) throws {
        let socket = Self.socketPath
        let p = Process()
        if Self.isolated {
            try FileManager.default.createDirectory(atPath: Self.privateRun, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: socket)  // stale socket of a dead daemon
            p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            // In the namespace: the private folder over /run/pcscd, then pcscd in this process.
            p.arguments = [
                "--mount", "--propagation", "private", "/bin/sh", "-c",
                "mkdir -p /run/pcscd && mount --bind \"$0\" /run/pcscd && exec /usr/sbin/pcscd --foreground --error --config \"$1\"",
                Self.privateRun, try Self.readerConfig(),
            ]
        } else {
            if let other = Self.runningPID(socket: socket) { throw DaemonError.foreign(pid: other) }
            try? FileManager.default.removeItem(atPath: socket)  // stale socket of a dead daemon
            p.executableURL = URL(fileURLWithPath: "/usr/sbin/pcscd")
            p.arguments = ["--foreground", "--error", "--config", try Self.readerConfig()]
        }
        let log = FileHandle(forWritingAtPath: "/dev/null")
        p.standardOutput = log
        p.standardError = log
        try p.runWithSignalsUnblocked()
        process = p
        pid = p.processIdentifier
        let deadline = Date().addingTimeInterval(timeout)
        while !FileManager.default.fileExists(atPath: socket) {
            guard p.isRunning else { throw DaemonError.exited(status: p.terminationStatus) }
            guard Date() < deadline else {
                stop()
                throw DaemonError.noSocket(seconds: timeout)
            }
            usleep(50_000)
        }
        // pcscd creates its socket before its drivers make their readers: wait until vpcd's
        // reader listens on its port (what a bridge connects to), or the daemon ends.
        while !Self.listening(on: Self.vpcdPort) {
            guard p.isRunning else { throw DaemonError.exited(status: p.terminationStatus) }
            guard Date() < deadline else {
                stop()
                throw DaemonError.noReader(seconds: timeout)
            }
            usleep(20_000)
        }
    }

    /// True once a socket listens on TCP `port` of this machine (/proc/net/tcp and tcp6: the
    /// local address's port, state 0A).
    static func listening(on port: UInt16) -> Bool {
        let suffix = ":" + String(format: "%04X", port)
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let f = line.split(separator: " ")
                if f.count > 3, f[1].hasSuffix(suffix), f[3] == "0A" { return true }
            }
        }
        return false
    }

    /// Stops the daemon this object started (SIGTERM, then SIGKILL), waits for it, and removes
    /// its reader.conf.d.
    public func stop() {
        guard let p = process else { return }
        terminate(p)
        try? FileManager.default.removeItem(atPath: Self.readerConfigDirectory)
        process = nil
        self.pid = nil
    }

    deinit { stop() }

    /// The pid of a pcscd process that answers on `socket` (the machine's by default), if one
    /// does: the daemon writes its pid beside its socket.
    public static func runningPID(socket: String = systemSocketPath) -> Int32? {
        let pidFile = (socket as NSString).deletingLastPathComponent + "/pcscd.pid"
        guard FileManager.default.fileExists(atPath: socket),
            let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let pid = Int32(text.filter { $0.isNumber })
        else { return nil }  // the file may end in NUL
        return kill(pid, 0) == 0 ? pid : nil
    }

    /// Why the daemon could not be used.
    public enum DaemonError: Error, Equatable, CustomStringConvertible {
        case exited(status: Int32)
        case noSocket(seconds: Double)
        case noReader(seconds: Double)
        case foreign(pid: Int32)

        public var description: String {
            switch self {
            case .exited(let status): "pcscd exited at start with status \(status)"
            case .noSocket(let seconds): "pcscd did not create \(PCSCDaemon.socketPath) within \(seconds) s"
            case .noReader(let seconds):
                "pcscd's vpcd reader did not listen on port \(PCSCDaemon.vpcdPort) within \(seconds) s"
            case .foreign(let pid):
                "a pcscd the tests did not start is running (pid \(pid)); the PC/SC tests start and restart their own. "
                    + "Stop it first (`systemctl stop pcscd.socket pcscd` or `/etc/init.d/pcscd stop`)"
            }
        }
    }
}

/// Stops a child process the tests started: SIGTERM, up to 5 s to exit, then SIGKILL; waits for it.
public func terminate(_ p: Process) {
    guard p.isRunning else { return }
    kill(p.processIdentifier, SIGTERM)
    if !p.waitForExit(within: 5) { kill(p.processIdentifier, SIGKILL) }
    p.waitUntilExit()
}

extension Process {
    /// Waits for the process to end, at most `seconds`; true when it has ended. It looks every
    /// 5 ms: Foundation's `waitUntilExit` on a thread without a run loop would spin a core.
    public func waitForExit(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning {
            guard Date() < deadline else { return false }
            usleep(5_000)
        }
        return true
    }

    /// `run()` with no signal blocked in the child. Tests run on Dispatch's worker threads,
    /// which block most signals, and a spawned child inherits its thread's mask: pcscd, the
    /// EVM node or kcs would then ignore SIGTERM (and kcs SIGINT) and only a SIGKILL would stop
    /// them. The mask is cleared on this thread just for the spawn.
    public func runWithSignalsUnblocked() throws {
        var none = sigset_t()
        sigemptyset(&none)
        var saved = sigset_t()
        pthread_sigmask(SIG_SETMASK, &none, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        try run()
    }
}
