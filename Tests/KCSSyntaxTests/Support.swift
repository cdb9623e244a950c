// Helpers shared by the KCSSyntax tests.
import KCSSyntax

/// A toy command table shaped like the real builtins (the syntax layer knows no wallet).
let demoCommands = CommandTable(
    commands: [
        "card.pair", "card.status", "card.verifyPIN", "derive", "sign", "import.mnemonic", "keystore.load",
        "keystore.list",
    ])

/// Parses `text` as `test.kcs` with the demo commands.
func parse(_ text: String, commands: CommandTable = demoCommands) -> (program: Program, diagnostics: [Diagnostic]) {
    Parser.parse(source: Source(name: "test.kcs", text: text), commands: commands)
}

/// The printed AST of `text`, which must parse without diagnostics (else the diagnostics).
func printed(_ text: String, commands: CommandTable = demoCommands) -> String {
    let (program, diagnostics) = parse(text, commands: commands)
    if !diagnostics.isEmpty { return DiagnosticRenderer.render(diagnostics, source: program.source) }
    return ASTPrinter.print(program)
}

/// The rendered diagnostics of `text` (empty if it parses).
func rendered(_ text: String, commands: CommandTable = demoCommands) -> String {
    let (program, diagnostics) = parse(text, commands: commands)
    return DiagnosticRenderer.render(diagnostics, source: program.source)
}

/// Ordinary tokens of `text` with their `line:col`, plus the lexer's diagnostics.
func tokens(_ text: String) -> (tokens: [String], diagnostics: [String]) {
    let source = Source(name: "test.kcs", text: text)
    var lexer = Lexer(source: source)
    let lines = LineTable(source)
    let list = lexer.tokenize().map { "\($0.kind.display)@\(lines.location(of: $0.range.start))" }
    return (list, lexer.diagnostics.map { "\($0.id)@\(lines.location(of: $0.range.start))" })
}
