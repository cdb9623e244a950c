// The kcs binary's command line: exit codes 0/64/65/70, -e, FILE ARGS, check, parse, piped
// standard input, --json errors. Runs the built executable (`make test` builds it first).
import Foundation
import KCSTestSupport
import Testing

let root = TestPaths.root

/// Runs kcs with `arguments` and optional standard input; returns (exit code, stdout, stderr).
func kcs(_ arguments: [String], stdin: String? = nil) throws -> (code: Int32, out: String, err: String) {
    let p = Process()
    p.executableURL = TestPaths.kcsBinary
    p.arguments = arguments
    let out = Pipe(), err = Pipe(), input = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = input
    try p.runWithSignalsUnblocked()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}

/// Writes `text` to a temporary .kcs file and returns its path.
func script(_ text: String, name: String = "t.kcs") throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let path = dir.appendingPathComponent(name).path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

@Suite("kcs command line")
struct CLITests {
    @Test func dashE_runsCodeAndExitsZero() throws {
        let r = try kcs(["-e", "print 6 * 7"])
        #expect(r.code == 0 && r.out == "42\n" && r.err.isEmpty)
    }

    @Test func dashE_andPipedInput_showValuesAsThePromptDoes_scriptFilesOnlyWithEcho() throws {
        // -e: each top-level expression or command statement shows its value; `let` shows nothing.
        #expect(try kcs(["-e", "1+1"]).out == "2\n")
        #expect(try kcs(["-e", "let x = 2; x * 3; hex 255"]).out == "6\n0xff\n")
        let help = try kcs(["-e", "help \"hex\""])
        #expect(help.code == 0 && help.out.hasPrefix("hex VALUE\n  Lower-case 0x hex text"), "\(help.out)")
        // A pipe, the same, values between what the script prints, in order.
        let piped = try kcs([], stdin: "let x = 2\nx * 3\nprint \"p\"\nupper \"a\"\n")
        #expect(piped.code == 0 && piped.out == "6\np\nA\n", "\(piped.out)")
        // A script file prints only what it prints, unless --echo (also for `kcs run`).
        let path = try script("1+1\nprint \"only\"\n")
        #expect(try kcs([path]).out == "only\n")
        #expect(try kcs(["--echo", path]).out == "2\nonly\n")
        #expect(try kcs(["run", "--echo", path]).out == "2\nonly\n")
        // A value shown before an error stays shown; the error ends the run as before.
        let failing = try kcs(["-e", "1+1; 1/0; 3"])
        #expect(failing.code == 70 && failing.out == "2\n", "\(failing.out)")
    }

    @Test func json_everyValueShownOrPrinted_isOneJSONDocumentPerLine() throws {
        let r = try kcs([
            "--json", "-e",
            """
            print "a/b"
            print 1, "x"
            let m = {"n": 2, "b": 0x00ff, "big": 18446744073709551616}
            m
            let s = json [1, nil]
            print s
            let quiet = 1
            """,
        ])
        #expect(r.code == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "\"a/b\"", "[1,\"x\"]", "{\"n\":2,\"b\":\"0x00ff\",\"big\":\"18446744073709551616\"}", "\"[1,null]\"",
            ],
            "\(r.out)")
        for line in lines {
            #expect(
                (try? JSONSerialization.jsonObject(with: Data(line.utf8), options: .fragmentsAllowed)) != nil, "\(line)"
            )
        }
        // --json-errors: the errors only; values and prints stay text.
        let e = try kcs(["--json-errors", "-e", "print \"a/b\"; 1/0"])
        #expect(e.out == "a/b\n" && e.err.hasPrefix("{\"error\":\"runtime.divisionByZero\""), "\(e.out) \(e.err)")
    }

    @Test func aMistypedFirstWord_namesTheCommandItIsCloseTo() throws {
        let cases: [(code: String, error: String, hint: String)] = [
            ("prnt 1", "unknown command `prnt`", "did you mean `print`?"),
            ("drive \"m/0\"", "unknown command `drive`", "did you mean `derive`?"),
            ("improt mnemonic \"x\"", "unknown command `improt`", "did you mean `import`?"),
            ("kyes", "undefined variable `kyes`", "did you mean `keys`?"),
            ("histroy", "undefined variable `histroy`", "did you mean `history`?"),
            ("sign mesage \"x\"", "unknown command `sign mesage`", "did you mean `sign message`?"),
        ]
        for c in cases {
            let r = try kcs(["--no-color", "-e", c.code])
            #expect(
                r.code != 0 && r.err.contains("error: " + c.error) && r.err.contains("hint: " + c.hint),
                "\(c.code): \(r.err)")
        }
        // A name the program declared is still preferred, and a far word keeps the plain error.
        #expect(
            try kcs(["--no-color", "-e", "let history2 = 1\nprint histroy2"]).err.contains("did you mean `history2`?"))
        #expect(try kcs(["--no-color", "-e", "zzzz 1"]).err.contains("expected end of statement"))
        // keycard-cli's card.sign points to the kcs way.
        let help = try kcs(["-e", "help card.sign"])
        #expect(
            help.code == 0 && help.out.contains("use card") && help.out.contains("sign 0x<32-byte digest>"),
            "\(help.out)")
    }

    @Test func topLevelHelp_showsTheOptionsPeopleUseMost() throws {
        let r = try kcs(["--help"])
        #expect(r.code == 0)
        for option in ["-e CODE", "--json", "--echo", "--home DIR", "--rpc URL", "--init FILE"] {
            #expect(r.out.contains("\n  \(option) "), "kcs --help does not show \(option): \(r.out)")
        }
    }

    @Test func file_withArgs_seesTheArgsList() throws {
        let path = try script("print len(args), args[1]\n")
        let r = try kcs([path, "one", "two"])
        #expect(r.code == 0 && r.out == "2 two\n")
    }

    @Test func wallet_firstMetaMaskAddress_fromAScript() throws {
        let path = try script(
            """
            let k = hd.master "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
            print (derive "m/44'/60'/0'/0/0" --from $k).address
            """)
        let r = try kcs(["run", path])
        #expect(r.code == 0 && r.out == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94\n", "\(r.err)")
    }

    @Test func parseError_exits65_withPositionAndCaret() throws {
        let path = try script("let x = 1\nprint x +\n")
        let r = try kcs([path])
        #expect(r.code == 65)
        #expect(
            r.err
                == "\(path):2:10: error: unexpected end of input, expected an expression\n  2 | print x +\n    |          ^\n"
        )
    }

    @Test func runtimeError_exits70_withPosition() throws {
        let r = try kcs(["-e", "let x = 1\nprint y"])
        #expect(r.code == 70)
        #expect(r.err.hasPrefix("<-e>:2:7: error: undefined variable `y`"))
    }

    @Test func check_reportsUnknownCommandsWithHints_withoutRunning() throws {
        let path = try script("print \"ran\"\nmnemonic.chek \"x\"\n")
        let r = try kcs(["check", path])
        #expect(r.code == 65 && r.out.isEmpty)
        #expect(r.err.contains("\(path):2:1: error: unknown command `mnemonic.chek`"))
        #expect(r.err.contains("hint: did you mean `mnemonic.check`?"))
        let ok = try kcs(["check", try script("let a = 1\n")])
        #expect(ok.code == 0 && ok.err.isEmpty)
    }

    @Test func check_json_errorsAreJSONLines() throws {
        let path = try script("hd.mastr 0x00\n")
        let r = try kcs(["check", "--json", path])
        #expect(r.code == 65)
        #expect(
            r.err
                == "{\"error\":\"check.unknownCommand\",\"message\":\"unknown command `hd.mastr`\",\"file\":\"\(path)\",\"line\":1,\"column\":1,\"hint\":\"did you mean `hd.master`?\"}\n"
        )
    }

    @Test func parse_printsTheTree() throws {
        let r = try kcs(["parse", try script("let x = 1 + 2\n")])
        #expect(r.code == 0 && r.out.contains("let") && r.out.contains("+"))
    }

    @Test func pipedStdin_isAScript_neverAPrompt() throws {
        let r = try kcs([], stdin: "let x = 20\nprint \"{x + 1}\"\n")
        #expect(r.code == 0 && r.out == "21\n" && !r.out.contains("kcs>"))
    }

    @Test func missingFile_isAUsageError64() throws {
        let r = try kcs(["/nonexistent/x.kcs"])
        #expect(r.code == 64 && r.err.contains("cannot read script /nonexistent/x.kcs"))
    }

    @Test func completions_bashScript_orAUsageError() throws {
        let r = try kcs(["completions", "bash"])
        #expect(r.code == 0 && r.out.hasPrefix("#!/bin/bash") && r.out.contains("kcs"))
        let bad = try kcs(["completions", "tcsh"])
        #expect(bad.code == 64 && bad.err.contains("shell must be bash, zsh or fish, got tcsh"))
    }

    @Test func missingSecretInBatch_exits70_andSaysHowToSupplyIt() throws {
        let r = try kcs([], stdin: "mnemonic.check\n")
        #expect(r.code == 70)
        #expect(
            r.err.contains(
                "mnemonic.check: argument 1 (phrase) is a secret and was not given, and stdin is not a terminal to ask for it"
            ))
        #expect(r.err.contains("(env \"NAME\" --secret KIND)") && r.err.contains("(file.read \"PATH\" --secret KIND)"))
    }

    @Test func secretsFromAFile_areSecretsAndWork() throws {
        let phrase = try script(
            "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\n",
            name: "p.txt")
        let r = try kcs([
            "-e", "let m = file.read \"\(phrase)\" --secret mnemonic\nprint m\nprint (mnemonic.check $m).valid",
        ])
        #expect(r.code == 0 && r.out == "<secret mnemonic>\ntrue\n", "\(r.err)")
        let missing = try kcs(["-e", "file.read \"/nonexistent/p.txt\""])
        #expect(missing.code == 70 && missing.err.contains("file.read"))
    }

    @Test func simAttach_badCardNameOrProfile_isAUsageError() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-sim-\(UUID().uuidString)").path
        let badName = try kcs(["sim", "attach", "--card", "../etc", "--home", home])
        #expect(
            badName.code == 64
                && badName.err.contains("--card must be a simple name (letters, digits, - and _), got ../etc"))
        let badProfile = try kcs(["sim", "attach", "--profile", "9.9", "--home", home])
        #expect(
            badProfile.code == 64
                && badProfile.err.contains(
                    "--profile must be one of 3.1.0, 3.1.1, 3.1.2, 4.0, 4.0-early; a 4.0 build variant as 4.0+NAME (no-bip85-ecdh, select-fixed, pin-tries-fixed, schnorr-no-tweak), got 9.9"
                ))
        #expect(!FileManager.default.fileExists(atPath: home + "/cards/..json"))
    }

    @Test func simList_emptyHome_saysSo() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("kcs-sim-\(UUID().uuidString)").path
        let r = try kcs(["sim", "list", "--home", home])
        #expect(r.code == 0 && r.out == "no simulated cards in \(home)/cards\n")
        let mode = try FileManager.default.attributesOfItem(atPath: home + "/cards")[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }
}
