import Foundation
import KCSConsole
import KCSTestSupport
import Testing

/// The reader of common command lines (`ConsoleCommandLine`) agrees with the argument parser,
/// which stays the one declaration of the console's options: its names and kinds match the
/// parser's own dump of `kcs console`, it leaves every other line to the parser, and the same
/// command lines give the same status, output and errors through either reader.
@Suite("Console command line without the parser")
struct ConsoleCommandLineTests {
    func read(_ words: [String]) -> ConsoleCommandLine? { ConsoleCommandLine(words[...]) }

    @Test("every option it reads is the parser's, with the same kind")
    func matchesTheParsersDeclaration() throws {
        let home = try BatchHome()
        defer { home.remove() }
        let dump = try home.run(arguments: ["console", "--experimental-dump-help"])
        #expect(dump.code == 0)
        let json = try JSONSerialization.jsonObject(with: Data(dump.out.utf8)) as? [String: Any]
        let arguments = try #require((json?["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
        var declared: [String: Bool] = [:]
        for argument in arguments {
            let kind = argument["kind"] as? String
            for name in argument["names"] as? [[String: Any]] ?? [] {
                let text = (name["kind"] as? String == "short" ? "-" : "--") + (name["name"] as? String ?? "")
                declared[text] = kind == "option"
            }
        }
        // The parser declares these; the reader leaves them to it.
        let parsersOnly: Set = ["--init", "--init-file", "--version", "-h", "--help"]
        #expect(
            Set(declared.keys).subtracting(parsersOnly) == [
                "-e", "--json", "--json-errors", "--echo", "--home", "--no-color", "--rpc", "--trace", "--diffable",
            ])
        for (name, takesValue) in declared {
            if parsersOnly.contains(name) {
                #expect(ConsoleCommandLine.takesValue(name) == nil, "\(name) is left to the parser")
            } else {
                #expect(ConsoleCommandLine.takesValue(name) == takesValue, "\(name)")
            }
        }
    }

    @Test("reads the common lines as the parser would")
    func readsCommonLines() throws {
        var expected = ConsoleCommandLine()
        expected.code = "print 1"
        expected.json = true
        expected.home = "/tmp/h"
        #expect(read(["--json", "--home", "/tmp/h", "-e", "print 1"]) == expected)
        #expect(read(["--json", "--home=/tmp/h", "-e", "print 1"]) == expected)

        var script = ConsoleCommandLine()
        script.file = "a.kcs"
        script.args = ["--json", "-e", "x"]  // after the file, everything is the script's
        #expect(read(["a.kcs", "--json", "-e", "x"]) == script)

        var withArgs = ConsoleCommandLine()
        withArgs.code = "print args"
        withArgs.file = "a"
        withArgs.args = ["b"]
        withArgs.rpc = "http://127.0.0.1:8545"
        withArgs.noColor = true
        withArgs.echo = true
        withArgs.jsonErrors = true
        #expect(
            read([
                "--rpc", "http://127.0.0.1:8545", "--no-color", "--echo", "--json-errors", "-e", "print args", "a", "b",
            ]) == withArgs)
        #expect(read([]) == ConsoleCommandLine())
    }

    @Test("leaves every other line to the parser")
    func leavesOthersToTheParser() {
        for words in [
            ["run", "a.kcs"], ["check", "a.kcs"], ["sim", "attach"], ["help"], ["--help"], ["-h"],
            ["--version"], ["--init", "x.kcs"], ["--json", "console"], ["-e"], ["-e", "-1"],
            ["--home"], ["--json", "--json"], ["-e", "1", "-e", "2"], ["--json=yes"], ["--"],
            ["--bogus"], ["-ex"], ["--generate-completion-script", "bash"], ["-"],
        ] {
            #expect(read(words) == nil, "\(words)")
        }
    }

    /// The same command lines through both readers: status, output and errors byte for byte.
    @Test("the same lines give the same result through either reader")
    func sameResultEitherWay() throws {
        var home = try BatchHome()
        defer { home.remove() }
        let script = try home.write("print args\nprint store.home()\n1 + 1\n", to: "a.kcs")
        let failing = try home.write("print 1\nnosuch.command\n", to: "bad.kcs")
        let lines: [[String]] = [
            ["-e", "1 + 1"], ["--json", "-e", "[1, \"a/b\"]"], ["--json-errors", "-e", "nosuch"],
            ["-e", "print args", "x", "--json", "y"], ["--home=" + home.path("other"), "-e", "store.home()"],
            ["--home", home.path("third"), "-e", "store.home()"], ["--no-color", "-e", "1 +"],
            ["--rpc", "http://127.0.0.1:1", "-e", "1"], [script, "--json", "z"], ["--echo", script],
            ["--json", script], [failing], ["--json", failing], [home.path("missing.kcs")], [home.folder.path],
            ["-e"], ["--bogus"], ["run", script], [],
        ]
        for words in lines {
            home.environment["KCS_ARGUMENT_PARSER"] = nil
            let fast = try home.run(arguments: words)
            home.environment["KCS_ARGUMENT_PARSER"] = "1"
            let parsed = try home.run(arguments: words)
            #expect(fast.code == parsed.code, "\(words)")
            #expect(fast.out == parsed.out, "\(words)")
            #expect(fast.err == parsed.err, "\(words)")
        }
        home.environment["KCS_ARGUMENT_PARSER"] = nil
        let shown = try home.run(arguments: ["-e", "print args", "x", "--json", "y"])
        #expect(shown.out == "[\"x\", \"--json\", \"y\"]\n")
        let missing = try home.run(arguments: [home.path("missing.kcs")])
        #expect(missing.code == 64)
        #expect(missing.err.hasPrefix("Error: cannot read script \(home.path("missing.kcs"))"))
    }
}
