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
        let straced = try home.run(arguments: ["-f", "-qq", "-e", "trace=openat,open,connect", "-o", trace,
                                               TestPaths.kcsBinary.path, "-e", "print 6 * 7"],
                                   executable: URL(fileURLWithPath: "/usr/bin/strace"))
        #expect(straced.code == 0 && straced.out == "42\n")
        let opened = try String(contentsOfFile: trace, encoding: .utf8)
        let tracedLibraries = opened.contains("libc.so")
        #expect(tracedLibraries, "the trace shows the libraries opened")
        let unneeded = ["/etc/passwd", "/etc/nsswitch.conf", "nscd", "libedit", "libtinfo", "libpcsclite"].filter { opened.contains($0) }
        #expect(unneeded == [], "a batch run opened these")
    }
}
