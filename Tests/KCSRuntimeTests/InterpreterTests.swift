// Interpreter behaviour that the inline cases cannot show: exact error rendering with frames,
// REPL state across runs, secrets at a terminal, module loading counts, interruption.
import KCSRuntime
import KCSSyntax
import Testing

@Suite("Interpreter")
struct InterpreterTests {
    @Test func uncaughtError_rendersPositionSourceLineCaretAndFrames() {
        let script = """
            def ratio(a, b) {
                return a / b
            }
            def report(x) {
                print "ratio: {ratio(x, 0)}"
            }
            report(10)
            """
        let (output, error) = onLargeStack { runScript(script, name: "demo.kcs") }
        #expect(output == "")
        #expect(
            error?.rendered == """
                demo.kcs:2:12: error: division by zero
                  2 |     return a / b
                    |            ^~~~~
                  at ratio (demo.kcs:5:20)
                  at report (demo.kcs:7:1)

                """)
    }

    @Test func errorInModule_namesModuleFileAndUseFrame() {
        let host = BufferHost()
        host.modules["lib"] = "def half(x) {\n    return x / 0\n}\n"
        let (_, error) = runScript("use \"lib\"\nlet h = half(3)\n", name: "main.kcs", host: host)
        #expect(
            error?.rendered == """
                lib.kcs:2:12: error: division by zero
                  2 |     return x / 0
                    |            ^~~~~
                  at half (main.kcs:2:9)

                """)
        host.modules["bad"] = "let x = (\n"
        let (_, parseError) = runScript("use \"bad\"", name: "main.kcs", host: host)
        #expect(parseError?.id == "parse.unexpectedEndOfInput")
        #expect(parseError?.rendered.hasSuffix("  at use \"bad\" (main.kcs:1:1)\n") == true)
    }

    @Test func recursionLimit_collapsesRepeatedFrames() {
        let (_, error) = onLargeStack { runScript("def f(n) { return f(n + 1) }\nf(0)\n", name: "r.kcs") }
        #expect(error?.id == "runtime.recursionLimit")
        #expect(error?.frames.count == 1000)
        #expect(
            error?.rendered == """
                r.kcs:1:19: error: recursion deeper than 1000 calls
                  1 | def f(n) { return f(n + 1) }
                    |                   ^~~~~~~~
                  hint: check that the recursion has a base case
                  at f (r.kcs:1:19)
                  at f (r.kcs:1:19)
                  at f (r.kcs:1:19)
                  … 996 more frames like the one above
                  at f (r.kcs:2:1)

                """)
    }

    @Test func nativeStackBudget_turnsDeepRecursionIntoAnError() {
        let host = BufferHost()
        let interp = Interpreter(registry: toyRegistry, host: host, nativeStackBudget: 64 << 10)
        let (_, error) = runScript("def f(n) { return f(n + 1) }\nf(0)\n", host: host, interpreter: interp)
        #expect(error?.id == "runtime.stackOverflow")
        #expect((error?.frames.count ?? 0) > 3)
    }

    @Test func unknownCommand_hintsNearestName() {
        let (_, error) = runScript("card.pari\n", name: "c.kcs")
        #expect(
            error?.rendered == """
                c.kcs:1:1: error: unknown command `card.pari`
                  1 | card.pari
                    | ^~~~~~~~~
                  hint: did you mean `card.pair`?

                """)
    }

    @Test func argumentTypeError_pointsAtTheArgument() {
        let (_, error) = runScript("keystore load 42 --force\n", name: "k.kcs")
        #expect(
            error?.rendered == """
                k.kcs:1:15: error: keystore.load: argument 1 (file) must be a string, got int
                  1 | keystore load 42 --force
                    |               ^~

                """)
    }

    @Test func repl_keepsGlobalsAndUnderscoreAcrossRuns() throws {
        let host = BufferHost()
        let interp = Interpreter(registry: toyRegistry, host: host)
        func line(_ text: String) throws -> Value? {
            let source = Source(name: "<repl>", text: text)
            let (program, diagnostics) = interp.parse(source)
            #expect(diagnostics.isEmpty)
            return try interp.evaluate(program, source: source)
        }
        #expect(try line("let x = 20") == nil)
        #expect(try line("def inc(n) { return n + 1 }") == nil)
        #expect(try line("inc(x) + 1") == .int(22))
        #expect(try line("_ * 2") == .int(44))
        #expect(try line("card.pair") == .string("paired"))
        #expect(try line("_") == .string("paired"))
        #expect(interp.global("x") == .int(20))
        #expect(interp.globalNames.contains("inc"))
        // An error leaves the interpreter usable; globals declared before it stay.
        #expect(throws: RuntimeError.self) { try line("let y = 1\nlet z = 1 / 0") }
        #expect(try line("y") == .int(1))
        interp.define("args", .list([.string("a")]))
        #expect(try line("args[0]") == .string("a"))
    }

    @Test func missingSecret_isAskedForAtATerminal() {
        let host = BufferHost()
        host.isInteractive = true
        host.secrets = [SecretValue(kind: "password", payload: BytesPayload(bytes: [1, 2, 3, 4, 5, 6]))]
        let (output, error) = runScript("print card.verifyPIN()\n", host: host)
        #expect(error == nil)
        #expect(host.prompts == ["pin: "])
        #expect(output == "verified <secret PIN> of 6 bytes\n")
        // Cancelled at the terminal: the same error as in batch.
        let (_, cancelled) = runScript("card.verifyPIN\n", host: host)
        #expect(cancelled?.id == "runtime.secretNotSupplied")
        #expect(
            cancelled?.rendered.contains(
                "hint: pass it as an argument, from the environment: `(env \"NAME\" --secret KIND)`, or from a file: `(file.read \"PATH\" --secret KIND)`"
            ) == true)
    }

    @Test func use_loadsEachModuleOnce() {
        let host = BufferHost()
        host.modules["m"] = "let loaded = 1\nprint \"loading m\""
        let (output, error) = runScript("use \"m\"\nuse \"m\"\nprint loaded", host: host)
        #expect(error == nil)
        #expect(output == "loading m\n1\n")
        #expect(host.loads["m"] == 1)
    }

    @Test func interruption_stopsALoop() {
        let host = BufferHost()
        host.interruptAfterPolls = 2
        let (_, error) = runScript("let i = 0\nwhile true { i = i + 1 }\n", host: host)
        #expect(error?.id == "runtime.interrupted")
    }

    @Test func caughtError_isARecordWithPosition() {
        let (output, error) = runScript("try { [1][2] } catch e { print e }\n", name: "t.kcs")
        #expect(error == nil)
        #expect(
            output == """
                kind      runtime.indexOutOfRange
                message   index 2 is out of range for length 1
                file      t.kcs
                line      1
                column    11
                position  t.kcs:1:11
                hint      nil

                """)
    }
}
