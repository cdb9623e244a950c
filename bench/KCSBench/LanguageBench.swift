import Foundation
import KCSBuiltins
import KCSRuntime
import KCSSyntax

/// Language figures (issue 3 §8): a 1,000,000-iteration loop with an add and a compare,
/// fib(25) by recursion and 100,000 string interpolations, each as seconds per run; bench/run
/// times the same programs in Debian's /usr/bin/python3 in the same run and prints the ratio.
enum LanguageBench {
    final class QuietHost: ScriptHost {
        func write(_ text: String) {}
        var isInteractive: Bool { false }
        func readSecret(prompt: String) throws -> SecretValue? { nil }
        func loadModule(name: String, relativeTo: String) throws -> Source { throw CocoaError(.fileNoSuchFile) }
    }

    static let programs: [(name: String, code: String)] = [
        ("lang_loop", "let i = 0\nlet s = 0\nwhile i < 1000000 { s = s + i\n i = i + 1 }"),
        ("lang_fib", "def fib(n) { if n < 2 { return n }\n return fib(n - 1) + fib(n - 2) }\nlet r = fib(25)"),
        ("lang_interp", "let n = 0\nfor i in 0..<100000 { let t = \"item {i} of {n}\" }"),
    ]

    /// Best of `runs` wall-clock seconds for each program; reported as runs per second.
    static func run(runs: Int = 5) throws {
        for (name, code) in programs {
            var best = Double.infinity
            for _ in 0..<runs {
                let interpreter = Interpreter(registry: Builtins.registry(), host: QuietHost())
                let source = Source(name: name, text: code)
                let (program, diagnostics) = interpreter.parse(source)
                precondition(diagnostics.isEmpty, "\(name) does not parse")
                let start = ContinuousClock.now
                _ = try interpreter.run(program, source: source)
                let d = ContinuousClock.now - start
                best = min(best, Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
            }
            report(name, 1 / best)
        }
    }
}
