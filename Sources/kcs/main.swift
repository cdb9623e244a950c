// The kcs executable: parses argv, chooses the REPL or a batch run, maps the outcome to an
// exit code (0 ok, 64 usage, 65 script error, 70 runtime error, 69 and 75–78 for card and node
// states, 130 for Ctrl-C: ExitStatus in KCSConsole/ScriptRunner.swift, man kcs; docs/habits.md §10).
import ArgumentParser
import Foundation
import KCSConsole
import KCSErrors

struct KCS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kcs",
        abstract: "kcs, the Keycard console: a prompt and a scripting language over a wallet core.",
        discussion: """
            kcs                    the console: a REPL at a terminal, else stdin
            kcs FILE.kcs [ARGS…]   run a script; ARGS are the list `args` in it
            kcs -e CODE            run CODE, showing values as the prompt does
            kcs check FILE         report every error without running
            kcs sim attach         a simulated Keycard behind a PC/SC reader
            kcs cosigner serve     a co-signer for two-party keys
            kcs hwi …              Bitcoin Core's external signer (HWI's commands; docs/bitcoin.md)

            Options of the console (kcs console --help has them all):
              -e CODE              run CODE and exit
              --json               values, prints and errors as JSON lines
              --echo               show the values of a script file's statements
              --home DIR           the store and simulated cards (default $KCS_HOME)
              --rpc URL            the Ethereum node (default $KCS_RPC_URL)
              --trace LEVEL        every card exchange shown: wire, channel or explain
              --diffable           the trace's random values by their role, no timings
              --init FILE          a script run before the prompt starts
            The language is described in docs/language.md.
            """,
        version: "kcs \(InputLoop.version)",
        subcommands: [Console.self, Run.self, Check.self, Parse.self, Sim.self, Cosigner.self, SignerCommand.self, Completions.self],
        defaultSubcommand: Console.self)
}

/// `kcs [FILE [ARGS…]]`, `kcs -e CODE`: the default.
struct Console: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "The console: a REPL at a terminal, else standard input (or FILE, or -e CODE) as a script.")

    @Option(name: .customShort("e"), help: "Run CODE and exit.")
    var code: String?

    @Flag(
        name: .long,
        help: "Every value shown or printed as one JSON document per line, and errors as JSON on standard error.")
    var json = false

    @Flag(name: .long, help: "Errors as JSON on standard error; values and prints stay text.")
    var jsonErrors = false

    @Flag(
        name: .long,
        help:
            "Show the value of each top-level expression or command of FILE, as the prompt does (-e and piped input always do)."
    )
    var echo = false

    @OptionGroup var common: CommonOptions

    @Option(
        name: [.customLong("init"), .customLong("init-file")],
        help: "Script run before the console starts (default $XDG_CONFIG_HOME/kcs/init.kcs, if it exists).")
    var initFile: String?

    @Argument(help: "A .kcs script to run.")
    var file: String?

    @Argument(parsing: .captureForPassthrough, help: "Arguments for the script (the list `args`).")
    var args: [String] = []

    func run() throws {
        throw ExitCode(
            try ConsoleRun(
                code: code, json: json, jsonErrors: jsonErrors, echo: echo,
                home: common.home, noColor: common.noColor, rpc: common.rpc, trace: common.trace,
                diffable: common.diffable,
                initFile: initFile, file: file, args: args
            ).run())
    }
}

/// What `kcs console` was asked to do, however the command line was read: by the argument
/// parser (`Console`), or by `ConsoleCommandLine` for the common command lines.
struct ConsoleRun {
    var code: String?
    var json = false
    var jsonErrors = false
    var echo = false
    var home: String?
    var noColor = false
    var rpc: String?
    var trace: String?
    var diffable = false
    var initFile: String?
    var file: String?
    var args: [String] = []

    init(
        code: String?, json: Bool, jsonErrors: Bool, echo: Bool, home: String?, noColor: Bool,
        rpc: String?, trace: String?, diffable: Bool = false, initFile: String?, file: String?, args: [String]
    ) {
        (self.code, self.json, self.jsonErrors, self.echo, self.home) = (code, json, jsonErrors, echo, home)
        (self.trace, self.diffable) = (trace, diffable)
        (self.noColor, self.rpc, self.initFile, self.file, self.args) = (noColor, rpc, initFile, file, args)
    }

    init(_ line: ConsoleCommandLine) {
        self.init(
            code: line.code, json: line.json, jsonErrors: line.jsonErrors, echo: line.echo, home: line.home,
            noColor: line.noColor, rpc: line.rpc, trace: line.trace, diffable: line.diffable, initFile: nil,
            file: line.file, args: line.args)
    }

    /// The exit status, or nil for a usage error found before anything ran (an unreadable
    /// script): the parser then reads the line again and reports it as it always did.
    func runUnlessUsageError() -> Int32? {
        if let file, code == nil, access(file, R_OK) != 0 { return nil }
        return try? run()
    }

    /// Runs and returns the exit status; throws `ValidationError` for an unreadable file.
    func run() throws -> Int32 {
        let host = ConsoleHost()
        // However the run ends: an ephemeral card pairing is unpaired, the card let go.
        defer { host.session.close() }
        let runner = makeRunner(
            host: host, home: home, rpc: rpc, noColor: noColor, json: json, jsonErrors: jsonErrors, trace: trace,
            diffable: diffable)
        let terminal = code == nil && file == nil && isatty(STDIN_FILENO) == 1
        // Every input goes through this one loop (docs/language.md §10).
        let loop = InputLoop(runner: runner, interactive: terminal)
        loop.echo = echo
        if let code {
            return loop.run(commandLine: code, args: ([file].compactMap { $0 }) + args)
        }
        if let file {
            return loop.run(name: file, bytes: try readScript(file), args: args)
        }
        guard terminal else {
            return loop.run(standardInput: Array(FileHandle.standardInput.readDataToEndOfFile()))
        }
        let initPath = initFile ?? Console.defaultInitFile()
        if let data = FileManager.default.contents(atPath: initPath) {
            let status = loop.run(name: initPath, bytes: Array(data))
            if status != 0, initFile != nil { return status }
        } else if initFile != nil {
            throw ValidationError("cannot read --init-file \(initPath)")
        }
        return loop.runTerminal(host: host)
    }
}

extension Console {
    /// `$XDG_CONFIG_HOME/kcs/init.kcs`, else `~/.config/kcs/init.kcs`.
    static func defaultInitFile(environment: ProcessEnvironment = .current) -> String {
        (environment.nonEmpty("XDG_CONFIG_HOME") ?? environment.homeDirectory + "/.config") + "/kcs/init.kcs"
    }
}

/// Options every running command takes.
struct CommonOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "kcs home directory for the store and simulated cards (default $KCS_HOME, $XDG_DATA_HOME/kcs, ~/.local/share/kcs)."
    )
    var home: String?

    @Flag(name: .long, help: "No colour in error output (also NO_COLOR=1).")
    var noColor = false

    @Option(name: .long, help: "Ethereum node JSON-RPC URL for eth.* and sign tx (default $KCS_RPC_URL).")
    var rpc: String?

    @Option(
        name: .long,
        help: "Show every card exchange of the run on standard error: off, wire, channel or explain (card.trace).")
    var trace: String?

    @Flag(name: .long, help: "With --trace, random values by their role and no timings: two runs compare with diff.")
    var diffable = false

    func validate() throws {
        if let trace, !ConsoleHost.traceLevels.contains(trace) {
            throw ValidationError(
                "--trace must be one of \(ConsoleHost.traceLevels.joined(separator: ", ")), got \(trace)")
        }
    }

    /// A runner whose errors are coloured as asked, for a host given the resolved home.
    func runner(host: ConsoleHost, json: Bool, jsonErrors: Bool = false) -> ScriptRunner {
        makeRunner(
            host: host, home: home, rpc: rpc, noColor: noColor, json: json, jsonErrors: jsonErrors, trace: trace,
            diffable: diffable)
    }
}

/// A runner for `host` given the resolved home and node; errors coloured unless `noColor`
/// (or NO_COLOR). `json`: values, prints and errors as JSON lines; `jsonErrors`: the errors only.
func makeRunner(
    host: ConsoleHost, home: String?, rpc: String?, noColor: Bool, json: Bool, jsonErrors: Bool, trace: String? = nil,
    diffable: Bool = false
) -> ScriptRunner {
    host.home = Home(explicit: home).path
    host.rpcURL = rpc
    host.traceLevel = trace
    host.traceJSON = json
    host.traceDiffable = diffable
    host.noColor = noColor
    let style = ErrorStyle.forStandardError(noColorFlag: noColor)
    let runner = ScriptRunner(
        host: host, json: json || jsonErrors,
        errorOutput: { StandardStreams.err(style.apply($0)) })
    runner.interpreter.printsJSON = json
    return runner
}

/// Reads a script file, or fails with a usage error that names it.
func readScript(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ValidationError("cannot read script \(path): no such file or not readable")
    }
    return Array(data)
}

/// `kcs completions bash|zsh|fish`: the shell completion script for the kcs command line.
struct Completions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "completions", abstract: "Print a shell completion script (bash, zsh or fish).")
    @Argument(help: "bash, zsh or fish.") var shell: String
    func validate() throws {
        guard CompletionShell(rawValue: shell) != nil else {
            throw ValidationError("shell must be bash, zsh or fish, got \(shell)")
        }
    }
    func run() throws {
        print(KCS.completionScript(for: CompletionShell(rawValue: shell)!))
    }
}

/// `kcs run FILE [ARGS…]`.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run a .kcs script.")
    @Flag(name: .long, help: "Values, prints and errors as JSON lines.") var json = false
    @Flag(name: .long, help: "Errors as JSON on standard error; values and prints stay text.") var jsonErrors = false
    @Flag(name: .long, help: "Show the value of each top-level expression or command, as the prompt does.") var echo =
        false
    @OptionGroup var common: CommonOptions
    @Argument(help: "The script.") var file: String
    @Argument(parsing: .captureForPassthrough, help: "Arguments for the script.") var args: [String] = []
    func run() throws {
        let loop = InputLoop(
            runner: common.runner(host: ConsoleHost(), json: json, jsonErrors: jsonErrors), interactive: false)
        loop.echo = echo
        throw ExitCode(loop.run(name: file, bytes: try readScript(file), args: args))
    }
}

/// `kcs check FILE`.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Report every syntax error and unknown command without running.")
    @Flag(name: .long, help: "Errors as JSON on standard error.") var json = false
    @Argument(help: "The script.") var file: String
    func run() throws {
        let result = ScriptRunner(host: ConsoleHost(interactive: false), json: json).check(
            name: file, bytes: try readScript(file))
        throw ExitCode(result.exitCode)
    }
}

/// `kcs parse FILE`.
struct Parse: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse", abstract: "Print the syntax tree of a script in a stable text form.")
    @Argument(help: "The script.") var file: String
    func run() throws {
        let result = ScriptRunner(host: ConsoleHost(interactive: false)).parseTree(
            name: file, bytes: try readScript(file))
        if let text = result.text { print(text, terminator: text.hasSuffix("\n") ? "" : "\n") }
        throw ExitCode(result.exitCode)
    }
}

CrashReport.install()
// `kcs hwi …` speaks HWI's command line to Bitcoin Core (HWICommand.swift), not kcs's.
if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "hwi" {
    exit(HWICommand.run(Array(CommandLine.arguments.dropFirst(2))))
}
// The common command lines skip the argument parser's reflection (ConsoleCommandLine);
// KCS_ARGUMENT_PARSER=1 sends every line to the parser (for comparing the two).
if getenv("KCS_ARGUMENT_PARSER").map({ String(cString: $0) }) != "1",
    let line = ConsoleCommandLine(CommandLine.arguments.dropFirst()),
    let status = ConsoleRun(line).runUnlessUsageError()
{
    exit(status)
}
KCS.main()
