import Foundation

/// A real `pcscd` for tests: started in the foreground as a child process, stopped by its
/// PID. pcscd loads vsmartcard's vpcd driver (from a reader.conf.d of its own, see `vpcdPort`),
/// which gives the "Virtual PCD 00 00" reader that `VPCDBridge` feeds. `make test` installed both.
public final class PCSCDaemon: @unchecked Sendable {
    /// The daemon's process id, while it runs.
    public private(set) var pid: Int32?
    private var process: Process?

    /// The control socket pcsc-lite uses on Debian.
    public static let socketPath = "/run/pcscd/pcscd.comm"

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

    /// Starts `pcscd -f`, then waits until the socket exists. Throws when pcscd cannot be
    /// started; a test never skips for it. A pcscd the tests did not start (a system service)
    /// is an error that says so: the tests restart their daemon and need vpcd's reader fresh,
    /// and they never stop a service of the machine's.
    public func start(timeout: Double = 10) throws {
        if let other = Self.runningPID() { throw DaemonError.foreign(pid: other) }
        try? FileManager.default.removeItem(atPath: Self.socketPath)  // stale socket of a dead daemon
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/pcscd")
        p.arguments = ["--foreground", "--error", "--config", try Self.readerConfig()]
        let log = FileHandle(forWritingAtPath: "/dev/null")
        p.standardOutput = log
        p.standardError = log
        try p.runWithSignalsUnblocked()
        process = p
        pid = p.processIdentifier
        let deadline = Date().addingTimeInterval(timeout)
        while !FileManager.default.fileExists(atPath: Self.socketPath) {
            guard p.isRunning else { throw DaemonError.exited(status: p.terminationStatus) }
            guard Date() < deadline else {
                stop()
                throw DaemonError.noSocket(seconds: timeout)
            }
            usleep(50_000)
        }
        usleep(200_000)  // let it finish loading reader drivers after creating the socket
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

    /// The pid of a pcscd process that answers on the socket, if one does.
    public static func runningPID() -> Int32? {
        guard FileManager.default.fileExists(atPath: socketPath),
              let text = try? String(contentsOfFile: "/run/pcscd/pcscd.pid", encoding: .utf8),
              let pid = Int32(text.filter { $0.isNumber }) else { return nil }  // the file may end in NUL
        return kill(pid, 0) == 0 ? pid : nil
    }

    /// Why the daemon could not be used.
    public enum DaemonError: Error, Equatable, CustomStringConvertible {
        case exited(status: Int32)
        case noSocket(seconds: Double)
        case foreign(pid: Int32)

        public var description: String {
            switch self {
            case .exited(let status): "pcscd exited at start with status \(status)"
            case .noSocket(let seconds): "pcscd did not create \(PCSCDaemon.socketPath) within \(seconds) s"
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
    let deadline = Date().addingTimeInterval(5)
    while p.isRunning && Date() < deadline { usleep(20_000) }
    if p.isRunning { kill(p.processIdentifier, SIGKILL) }
    p.waitUntilExit()
}

extension Process {
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
