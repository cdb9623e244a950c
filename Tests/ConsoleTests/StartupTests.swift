import Foundation
import KCSErrors
import KCSTestSupport
import Testing

/// What a start does and does not do (docs/architecture.md, "Start-up"): environment variables
/// read one at a time, the home folder from `$HOME` without the password database, libedit
/// loaded only by the prompt and libpcsclite only by a real reader.
@Suite("Start-up")
struct StartupTests {
    @Test("a fixed environment answers only what it holds; the process's is read when asked")
    func environmentLookups() {
        let fixed: ProcessEnvironment = ["KCS_HOME": "/k", "EMPTY": ""]
        #expect(fixed["KCS_HOME"] == "/k" && fixed["EMPTY"] == "" && fixed["PATH"] == nil)
        #expect(fixed.nonEmpty("KCS_HOME") == "/k" && fixed.nonEmpty("EMPTY") == nil && fixed.nonEmpty("NONE") == nil)
        let name = "KCS_STARTUP_TEST_\(getpid())"
        #expect(ProcessEnvironment.current[name] == nil)
        setenv(name, "set now", 1)
        defer { unsetenv(name) }
        #expect(ProcessEnvironment.current[name] == "set now")
    }

    @Test("the home folder is $HOME when set, else the password database's entry")
    func homeFolder() throws {
        #expect(ProcessEnvironment(["HOME": "/h"]).homeDirectory == "/h")
        let entry = try #require(getpwuid(getuid()))
        let fromDatabase = String(cString: entry.pointee.pw_dir)
        #expect(ProcessEnvironment(["HOME": ""]).homeDirectory == fromDatabase)
        #expect(ProcessEnvironment([:]).homeDirectory == fromDatabase)
    }

    @Test("a batch run opens no password database and loads neither libedit nor libpcsclite")
    func batchRunDoesOnlyWhatItNeeds() throws {
        var home = try BatchHome()
        defer { home.remove() }
        let trace = home.path("trace")
        // The home from $HOME (no KCS_HOME, no XDG_DATA_HOME): kcs must not ask the database.
        home.environment["KCS_HOME"] = nil
        home.environment["XDG_DATA_HOME"] = nil
        home.environment["HOME"] = home.folder.path
        let straced = try home.run(
            arguments: [
                "-f", "-qq", "-e", "trace=openat,open,connect", "-o", trace,
                TestPaths.kcsBinary.path, "-e", "print 6 * 7",
            ],
            executable: URL(fileURLWithPath: "/usr/bin/strace"))
        #expect(straced.code == 0 && straced.out == "42\n")
        let opened = try String(contentsOfFile: trace, encoding: .utf8)
        let tracedLibraries = opened.contains("libc.so")
        #expect(tracedLibraries, "the trace shows the libraries opened")
        let unneeded = ["/etc/passwd", "/etc/nsswitch.conf", "nscd", "libedit", "libtinfo", "libpcsclite"].filter {
            opened.contains($0)
        }
        #expect(unneeded == [], "a batch run opened these")
    }

    @Test("without a loadable libpcsclite the simulator works and a reader gives an error naming the library")
    func withoutPcscLite_theSimulatorWorks_andAReaderSaysWhatIsMissing() throws {
        // The library is hidden in a private mount namespace (as the pcscd tests isolate their
        // daemon): an empty file bound over it, so dlopen fails as on a machine without it.
        try #require(PCSCDaemon.isolated, "unshare --mount needs root or user namespaces here")
        let library = URL(fileURLWithPath: "/lib/x86_64-linux-gnu/libpcsclite.so.1").resolvingSymlinksInPath().path
        try #require(FileManager.default.fileExists(atPath: library), "make test installs libpcsclite1")
        let home = try BatchHome()
        defer { home.remove() }
        let script = try home.write(
            """
            card.connect sim
            print "SIM", card.info().initialized
            try {
                card.connect pcsc --reader "any"
            } catch e {
                print "PCSC", e.kind, e.message
            }
            """, to: "nolib.kcs")
        let run = try home.run(
            arguments: [
                "--mount", "sh", "-c", #"mount --bind /dev/null "$1" && exec "$0" "$2""#,
                TestPaths.kcsBinary.path, library, script,
            ],
            executable: URL(fileURLWithPath: "/usr/bin/unshare"))
        #expect(run.code == 0, "\(run.out) \(run.err)")
        #expect(tagged("SIM", in: run.out) == ["false"], "\(run.out) \(run.err)")
        let line = run.out.split(separator: "\n").first { $0.hasPrefix("PCSC ") }.map(String.init) ?? run.out
        #expect(
            line.hasPrefix("PCSC transport.pcsc PC/SC error 0x80100001: libpcsclite.so.1 could not be loaded ("),
            "\(line)")
        #expect(line.hasSuffix("); a reader needs pcsc-lite (Debian: pcscd, libpcsclite1)"), "\(line)")
    }
}
