import Foundation
import KCSBuiltins
import KCSErrors
import KCSRuntime
import KCSSyntax
import WalletCrypto
import WalletSession

/// The console's `ScriptHost` and the session's `SessionPrompts`: output to standard output,
/// secrets asked on the terminal without echo (never when standard input is not a terminal),
/// modules from `stdlib/` and then relative to the script.
public final class ConsoleHost: ScriptHost, SessionPrompts {
    /// Where `print` goes.
    private let output: (String) -> Void
    /// Folders searched for `use "name"` after the script's own folder.
    public let stdlibDirectories: [String]
    public let isInteractive: Bool
    /// True while a REPL runs: Ctrl-C (`Interrupt`) then stops a running loop instead of kcs.
    public var watchesInterrupt = false
    /// The kcs home (`--home`, `KCS_HOME`, …): where the store and simulated cards live.
    public var home: String?
    /// The Ethereum node given with `--rpc` (else the session reads KCS_RPC_URL).
    public var rpcURL: String?
    /// `--trace LEVEL`: every card exchange of the run shown at that level (docs/card-explained.md).
    public var traceLevel: String?
    /// `--json`: the card trace as one JSON document per exchange.
    public var traceJSON = false
    /// `--diffable`: the card trace's random values by their role, no timings.
    public var traceDiffable = false
    /// The words `--trace` takes.
    public static let traceLevels = Session.cardTraceLevels
    /// Marks a module's secret ranges before the interpreter parses it (set by `ScriptRunner`).
    var markSecrets: ((Source) -> Source)?

    public init(
        interactive: Bool = isatty(STDIN_FILENO) == 1, stdlibDirectories: [String] = ConsoleHost.defaultStdlib(),
        output: @escaping (String) -> Void = { StandardStreams.out($0) }
    ) {
        self.isInteractive = interactive
        self.stdlibDirectories = stdlibDirectories
        self.output = output
    }

    public func write(_ text: String) { output(text) }

    /// Frames on the terminal's alternate screen, the cursor hidden, each written at once in
    /// synchronized-update mode so none tears; Ctrl-C stops (routed to the flag while playing, in
    /// a batch run too) and the screen and cursor are put back.
    public func play(_ next: (_ color: Bool) throws -> String?, interval: Double) throws -> Bool {
        guard isatty(STDOUT_FILENO) == 1 else { return false }
        let color = display.color
        let put = { (s: String) in StandardStreams.out(s) }
        try Interrupt.routed { () throws in
            put("\u{1B}[?1049h\u{1B}[?25l")
            defer { put("\u{1B}[?25h\u{1B}[?1049l") }
            Interrupt.clear()
            while let frame = try next(color) {
                put(
                    "\u{1B}[?2026h\u{1B}[H" + frame.replacingOccurrences(of: "\n", with: "\u{1B}[K\n")
                        + "\u{1B}[J\u{1B}[?2026l")
                var waited = 0.0
                while waited < interval {
                    if Interrupt.take() { return }
                    usleep(20_000)
                    waited += 0.02
                }
            }
        }
        return true
    }

    /// `--no-color` was given.
    public var noColor = false

    /// Standard output: a terminal's size (TIOCGWINSZ) and whether colour is welcome there.
    public var display: Display {
        guard isatty(STDOUT_FILENO) == 1 else { return .plain }
        var size = winsize()
        let known = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 && size.ws_row > 0
        let environment = ProcessEnvironment.current
        return Display(
            color: !noColor && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb",
            size: known ? (Int(size.ws_col), Int(size.ws_row)) : (80, 24))
    }

    public func shouldInterrupt() -> Bool { watchesInterrupt && Interrupt.take() }

    /// The session builtins work in, made on first use with the home known by then.
    public private(set) lazy var session: Session = {
        let s = Session(home: home)
        s.prompts = self
        if let rpcURL { s.setNode(url: rpcURL) }
        // `--json` makes every card trace of the run JSON, also one a script turns on with card.trace.
        s.traceEveryCard(at: traceLevel ?? "off", json: traceJSON, diffable: traceDiffable)
        return s
    }()

    public var context: (any BuiltinContext)? { session }

    /// A visible question on standard error, answered on standard input (terminal only).
    public func ask(prompt: String) throws(PromptInterrupted) -> String? {
        guard isInteractive else { return nil }
        return try Terminal.readLine(prompt: prompt, hidden: false)
    }

    /// The local signer's approval: the terminal's pending input dropped, keys in the first
    /// `ignoring` seconds dropped, the question withdrawn once `settled` (`Terminal.readLine`).
    public func ask(
        prompt: String, ignoring: Double, until settled: @escaping () -> Bool
    ) throws(PromptInterrupted) -> String? {
        guard isInteractive else { return nil }
        return try Terminal.readLine(prompt: prompt, hidden: false, ignoring: ignoring, until: settled)
    }

    /// A progress line on standard error, redrawn in place on a terminal; nil ends it.
    public func progress(_ text: String?) {
        guard isInteractive else { return }
        let line = text.map { "\r\u{1B}[K" + $0 } ?? "\r\u{1B}[K"
        StandardStreams.err(line)
    }

    /// Progress on standard error where a person can see it.
    public func status(_ text: String) {
        guard isInteractive else { return }
        StandardStreams.err(text + "\n")
    }

    /// `kcs: warning: TEXT` on standard error, whoever runs kcs.
    public func warn(_ text: String) {
        StandardStreams.err("kcs: warning: \(text)\n")
    }

    /// Card trace lines on standard error (docs/card-explained.md).
    public func trace(_ text: String) {
        StandardStreams.err(text + "\n")
    }

    /// Reads a secret from the terminal with echo off; nil at end of input.
    public func readSecret(prompt: String) throws -> SecretValue? {
        try askSecret(prompt: prompt).map { SecretValue(kind: "input", payload: $0) }
    }

    /// The session's hidden question: the same terminal read as `readSecret`.
    public func askSecret(prompt: String) throws -> Secret? {
        guard isInteractive else { return nil }
        guard let text = try Terminal.readLine(prompt: prompt, hidden: true) else { return nil }
        return Secret(utf8: text)
    }

    public func loadModule(name: String, relativeTo: String) throws -> Source {
        let file = name.hasSuffix(".kcs") ? name : name + ".kcs"
        var candidates = stdlibDirectories.map { ($0 as NSString).appendingPathComponent(file) }
        let scriptDir = (relativeTo as NSString).deletingLastPathComponent
        candidates.append((scriptDir.isEmpty ? file : (scriptDir as NSString).appendingPathComponent(file)))
        for path in candidates {
            if let data = FileManager.default.contents(atPath: path) {
                let source = Source(name: path, bytes: Array(data))
                return markSecrets?(source) ?? source
            }
        }
        throw ModuleNotFound(
            name: name, searched: candidates,
            stdlibSearched: stdlibDirectories.isEmpty ? ConsoleHost.stdlibSearchPath() : nil)
    }

    /// Where the standard library is looked for, in order: `$KCS_STDLIB` when set; else a
    /// `stdlib` folder beside the executable's real location or up to five folders above it (a
    /// checkout: `.build/debug/kcs` finds `stdlib/`), then `share/kcs/stdlib` under its prefix
    /// (`make install` puts `kcs` in PREFIX/bin). The executable is found by its real path, not
    /// by `argv[0]`, so a `kcs` reached through `PATH` or a symbolic link finds it from anywhere.
    public static func stdlibSearchPath(
        environment: ProcessEnvironment = .current,
        executable: String? = ConsoleHost.executablePath()
    ) -> [String] {
        if let dir = environment.nonEmpty("KCS_STDLIB") { return [dir] }
        guard let executable else { return [] }
        func parent(_ path: String) -> String { (path as NSString).deletingLastPathComponent }
        func child(_ dir: String, _ name: String) -> String { (dir as NSString).appendingPathComponent(name) }
        var dir = parent(executable)
        var out: [String] = []
        for _ in 0..<6 {
            out.append(child(dir, "stdlib"))
            dir = parent(dir)
        }
        out.append(child(parent(parent(executable)), "share/kcs/stdlib"))
        return out
    }

    /// The first folder of `stdlibSearchPath` that exists (`[]` when none does).
    public static func defaultStdlib(environment: ProcessEnvironment = .current) -> [String] {
        let searched = stdlibSearchPath(environment: environment)
        if environment.nonEmpty("KCS_STDLIB") != nil { return searched }
        return searched.first { path in
            var st = stat()
            return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
        }.map { [$0] } ?? []
    }

    /// The running executable's real path (symbolic links resolved), from `/proc/self/exe`, else
    /// `argv[0]` looked up in `PATH` as the shell did.
    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 { return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        guard let argv0 = CommandLine.arguments.first, !argv0.isEmpty else { return nil }
        if argv0.contains("/") { return URL(fileURLWithPath: argv0).resolvingSymlinksInPath().path }
        for dir in (ProcessEnvironment.current["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent(argv0)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate.resolvingSymlinksInPath().path
            }
        }
        return nil
    }

    struct ModuleNotFound: Error, CustomStringConvertible {
        let name: String
        let searched: [String]
        /// Where the standard library was looked for, when it was not found.
        let stdlibSearched: [String]?
        var description: String {
            "module \"\(name)\" not found; looked in " + searched.joined(separator: ", ")
                + (stdlibSearched.map {
                    "; the standard library was not found either (looked for "
                        + ($0.isEmpty ? "it beside the kcs executable" : $0.joined(separator: ", "))
                        + "); set KCS_STDLIB to its folder"
                } ?? "")
        }
    }
}

/// Terminal helpers: prompts that Ctrl-C cancels, with or without echo.
enum Terminal {
    /// Prompts on standard error and reads one line from standard input, with echo off when
    /// `hidden`. Echo goes off (and what was typed ahead is discarded) before the prompt is
    /// shown, so whatever is typed once the prompt is there is never echoed nor thrown away.
    /// Ctrl-C puts the terminal back and throws `PromptInterrupted` (in a batch run too: SIGINT
    /// is routed to `Interrupt` for the time of the read); nil at the end of input.
    ///
    /// Waits with `Interrupt.waitForInput` and reads with read(2), a byte at a time, not stdio: a
    /// read interrupted by the signal returns EINTR here, where stdio would set the stream's
    /// error flag and every later read of standard input (the line editor's included) would
    /// fail at once.
    ///
    /// A question something else may settle (`settled`: the local signer's approval, withdrawn by
    /// its client or expired) first drops what was typed before the prompt, ignores keys for
    /// `ignoring` seconds after it, and answers nil once `settled()` (looked at every 100 ms).
    static func readLine(
        prompt: String, hidden: Bool, ignoring: Double = 0, until settled: (() -> Bool)? = nil
    ) throws(PromptInterrupted) -> String? {
        try Interrupt.routed { () throws(PromptInterrupted) -> String? in
            var old = termios()
            let isTTY = hidden && tcgetattr(STDIN_FILENO, &old) == 0
            if isTTY {
                var quiet = old
                quiet.c_lflag &= ~tcflag_t(ECHO)
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
            }
            if settled != nil { tcflush(STDIN_FILENO, TCIFLUSH) }
            // A Ctrl-C from before the prompt is not an answer to it; one typed the moment the
            // prompt shows is.
            _ = Interrupt.take()
            StandardStreams.err(prompt)
            let shown = ContinuousClock.now
            defer {
                if isTTY { tcsetattr(STDIN_FILENO, TCSAFLUSH, &old) }
                if hidden { StandardStreams.err("\n") }
            }
            var line: [UInt8] = []
            defer { line.withUnsafeMutableBufferPointer { $0.initialize(repeating: 0) } }
            var byte: UInt8 = 0
            while true {
                switch Interrupt.waitForInput(STDIN_FILENO, until: settled ?? { false }) {
                case .interrupted:
                    _ = Interrupt.take()
                    if !hidden { StandardStreams.err("\n") }
                    throw PromptInterrupted()
                case .settled:
                    if !hidden { StandardStreams.err("\n") }
                    return nil
                case .input:
                    break
                }
                let n = read(STDIN_FILENO, &byte, 1)
                if n == 1 {
                    if ignoring > 0 && ContinuousClock.now - shown < .milliseconds(Int(ignoring * 1000)) { continue }
                    if byte == 0x0A { break }
                    line.append(byte)
                } else if n == 0 {
                    if line.isEmpty { return nil }
                    break
                } else if errno != EINTR {
                    return nil
                }
            }
            if line.last == 0x0D { line.removeLast() }
            return String(decoding: line, as: UTF8.self)
        }
    }
}
