// Property tests: random bytes and random token soups never crash or hang the lexer, parser,
// printer or renderer. Seeded; set KCS_SYNTAX_SEED to replay a run. A hang fails the suite's
// time limit (and the libFuzzer run's 2 s per input, `make fuzz`); how fast parsing is belongs
// to the benchmarks, not to a wall-clock check that a busy machine can fail.
import Foundation
import KCSSyntax
import Testing

/// SplitMix64: tiny, seedable, good enough to generate inputs.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private let seed: UInt64 = ProcessInfo.processInfo.environment["KCS_SYNTAX_SEED"].flatMap { UInt64($0) } ?? 20_240_611

/// Parses, prints and renders `text`; checks ranges stay inside the source.
private func exercise(_ source: Source, label: String) {
    let (program, diagnostics) = Parser.parse(source: source, commands: demoCommands)
    _ = ASTPrinter.print(program)
    _ = DiagnosticRenderer.render(diagnostics, source: source)
    var lexer = Lexer(source: source)
    _ = lexer.tokenize()
    for d in diagnostics {
        #expect(d.range.start >= 0 && d.range.end <= source.utf8.count, "\(label): \(d) out of range (seed \(seed))")
    }
}

@Suite("Robustness", .timeLimit(.minutes(2)))
struct RobustnessTests {
    @Test func randomBytes_neverCrashOrHang() {
        print("RobustnessTests.randomBytes seed \(seed)")
        var rng = SplitMix64(state: seed)
        // Bias toward bytes that mean something to the lexer.
        let interesting = Array("\"{}()[]\\#;\n\t .-0x<=>!&|$'/,:".utf8)
        for i in 0..<2_000 {
            let length = Int.random(in: 0...120, using: &rng)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &rng)
                    ? interesting.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
            }
            exercise(Source(name: "r\(i)", bytes: bytes), label: "bytes #\(i)")
        }
    }

    @Test func randomTokenSoup_neverCrashOrHang() {
        print("RobustnessTests.tokenSoup seed \(seed)")
        var rng = SplitMix64(state: seed ^ 0xA5A5)
        let vocabulary = [
            "let", "x", "=", "if", "else", "for", "in", "while", "break", "continue", "def", "f", "(", ")", "return",
            "try", "catch", "e", "assert", ",", "print", "use", "and", "or", "not", "true", "false", "nil", "{", "}",
            "[", "]", ":", ";", "\n", ".", "..<", "...", "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=",
            "1_000", "0x1c8a", "0xabc", "\"s\"", "\"a{x}b\"", "\"{", "}\"", "\"", "card.pair", "card", "pair",
            "keystore", "load", "wallet.json", "derive", "m/44'/0'", "--preset", "--force", "$k", "$k.key", "import",
            "mnemonic", "#", "@", "&&", "é", "\\",
        ]
        for i in 0..<2_000 {
            let count = Int.random(in: 0...60, using: &rng)
            let text = (0..<count).map { _ in vocabulary.randomElement(using: &rng)! }
                .joined(separator: Bool.random(using: &rng) ? " " : "")
            exercise(Source(name: "soup\(i)", text: text), label: "soup #\(i): \(text.debugDescription)")
        }
    }

    @Test(arguments: ["(", "-", "not ", "[", "{\"k\":", "if x { ", "\"{", "x.", "f(", "a + ", "f(1)", "a or "])
    func deepNesting_isRefusedNotACrash(_ unit: String) {
        let source = Source(name: "deep", text: String(repeating: unit, count: 5_000) + "1")
        let (_, diagnostics) = Parser.parse(source: source, commands: demoCommands)
        exercise(source, label: "deep \(unit)")
        #expect(!diagnostics.isEmpty)
    }
}
