// The one input loop (docs/language.md §10): a piped script, `kcs FILE`, `-e` and `.read` take
// the same meta-commands, `.bail` and `--json` errors as the prompt; `.read` keeps its file's
// positions and stops at a nesting limit. Runs the built executable, as CLITests does.
import Foundation
import KCSConsole
import KCSTestSupport
import Testing

@Suite("One input loop")
struct InputLoopTests {
    /// A script where `.bail off` lets it go on after an error (with the text after the next
    /// meta-command: a piece stops at its first error, docs/language.md §7) and `.bail on` stops
    /// it again.
    private let bailScript = """
        .bail
        .bail off
        print "one"
        nope()
        print "skipped with the rest of its piece"
        .bail on
        print "two"
        print y
        print "unreached"

        """

    @Test func bailInAPipedScript_isTheSettingAtThePrompt() throws {
        let r = try kcs([], stdin: bailScript)
        #expect(r.out == "bail is on\none\ntwo\n", "a batch run bails by default; .bail off goes on: \(r.out)")
        #expect(r.err.contains("<stdin>:4:1: error: no function or builtin named `nope`"), "\(r.err)")
        #expect(r.err.contains("<stdin>:8:7: error: undefined variable `y`"), "positions stay the script's: \(r.err)")
        #expect(r.code == 70, "the first error's exit code")
    }

    @Test func bailInAFile_andInDashE() throws {
        let path = try script(bailScript)
        let r = try kcs([path])
        #expect(r.out == "bail is on\none\ntwo\n" && r.code == 70, "\(r.out)\(r.err)")
        #expect(r.err.contains("\(path):8:7: error: undefined variable `y`\n  8 | print y\n"), "\(r.err)")
        let e = try kcs(["-e", ".bail off\nnope()\n.bail\nprint \"after\""])
        #expect(
            e.out == "bail is off\nafter\n" && e.code == 70 && e.err.contains("<-e>:2:1: error:"), "\(e.out)\(e.err)")
    }

    @Test func withoutMetaCommands_aScriptStillRunsNothingWhenItDoesNotParse() throws {
        let r = try kcs([], stdin: "print \"ran\"\nprint (\n")
        #expect(r.code == 65 && r.out.isEmpty, "\(r.out)\(r.err)")
        // With one, each piece between meta-commands is parsed whole before it runs.
        let m = try kcs([], stdin: "print \"first\"\n.bail on\nprint \"second\"\nprint (\n")
        #expect(m.code == 65 && m.out == "first\n", "\(m.out)\(m.err)")
        #expect(m.err.contains("<stdin>:4:8: error:"), "\(m.err)")
    }

    @Test func crlfScript_metaCommandsWork() throws {
        let r = try kcs([], stdin: "print 1\r\n.bail\r\nprint 2\r\n")
        #expect(r.code == 0 && r.out == "1\nbail is on\n2\n", "\(r.out)\(r.err)")
    }

    @Test func dotInsideAnUnfinishedStatement_isNotAMetaCommand() throws {
        let r = try kcs([], stdin: "print \"a\n.bail on\nb\"\n")
        #expect(r.code == 0 && r.out == "a\n.bail on\nb\n", "\(r.out)\(r.err)")
    }

    @Test func aBadMetaCommandInAScript_isAUsageErrorWithItsLine() throws {
        let r = try kcs([], stdin: "print 1\n.frobnicate\nprint 2\n")
        #expect(r.code == 64 && r.out == "1\n", "\(r.out)")
        #expect(r.err == "<stdin>:2: error: unknown meta-command .frobnicate; try .help or .quit\n", "\(r.err)")
    }

    @Test func read_errorInsideTheFile_isReportedAtThatFilesPosition() throws {
        let inner = try script("let a = 1\n\nprint nope\n", name: "inner.kcs")
        let outer = try script("print \"before\"\n.read \(inner)\nprint \"after\"\n", name: "outer.kcs")
        let r = try kcs([outer])
        #expect(r.out == "before\n" && r.code == 70, "\(r.out)\(r.err)")
        #expect(r.err.contains("\(inner):3:7: error: undefined variable `nope`\n  3 | print nope\n"), "\(r.err)")
        // A syntax error in the read file: its file:line:col, exit 65, nothing of it runs.
        let broken = try script("print \"in\"\nprint x +\n", name: "broken.kcs")
        let s = try kcs(["-e", ".read \(broken)\nprint \"after\""])
        #expect(s.code == 65 && s.out.isEmpty, "\(s.out)")
        #expect(s.err.contains("\(broken):2:10: error: unexpected end of input"), "\(s.err)")
    }

    @Test func read_ofAFileThatReadsItself_stopsAtTheNestingLimit() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-loop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("self.kcs").path
        try "print \"in\"\n.read \(path)\n".write(toFile: path, atomically: true, encoding: .utf8)
        let r = try kcs([path])
        #expect(r.code == 64, "\(r.err)")
        #expect(r.out == String(repeating: "in\n", count: 17), "the file and 16 reads of it: \(r.out)")
        #expect(
            r.err
                == "\(path):2: error: .read \(path): more than 16 files read inside each other (does a file .read itself?)\n",
            "\(r.err)")
    }

    @Test func read_takesANameWithSpaces_quotesAndATilde() throws {
        let spaced = try script("print \"from a spaced name\"\n", name: "my script.kcs")
        #expect(try kcs(["-e", ".read \(spaced)"]).out == "from a spaced name\n")
        #expect(try kcs(["-e", ".read \"\(spaced)\""]).out == "from a spaced name\n")
        // `~` is the home folder (HOME), as in a shell.
        let home = (spaced as NSString).deletingLastPathComponent
        let p = Process()
        p.executableURL = TestPaths.kcsBinary
        p.arguments = ["-e", ".read ~/my script.kcs"]
        p.environment = ProcessInfo.processInfo.environment.merging(["HOME": home]) { $1 }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0 && text == "from a spaced name\n", "\(text)")
        #expect(InputLoop.fileArgument(of: ".read ~", home: "/h") == "/h" && InputLoop.fileArgument(of: ".read") == nil)
    }

    @Test func json_errorsFromAReadFile_nameThatFile() throws {
        let inner = try script("let a = 1\nprint nope\n", name: "inner.kcs")
        let r = try kcs(["--json", "-e", "print \"before\"\n.read \(inner)"])
        #expect(r.code == 70 && r.out == "\"before\"\n")
        #expect(
            r.err
                == "{\"error\":\"runtime.undefinedVariable\",\"message\":\"undefined variable `nope`\",\"file\":\"\(inner)\",\"line\":2,\"column\":7,\"hint\":\"declare it first with `let`\"}\n",
            "\(r.err)")
        let missing = try kcs(["--json"], stdin: ".read /nonexistent/x.kcs\n")
        #expect(missing.code == 64)
        #expect(
            missing.err
                == "{\"error\":\"meta.read\",\"message\":\".read: cannot read /nonexistent/x.kcs\",\"file\":\"<stdin>\",\"line\":1,\"column\":1}\n",
            "\(missing.err)")
    }
}
