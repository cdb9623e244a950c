import KCSBuiltins
import KCSRuntime
import KCSSyntax

/// What a REPL line becomes in the history file, and which parts of any program text an error
/// may not show: both follow `Builtins.secretRanges` (secret-shaped literals, arguments the
/// builtin tables mark secret; never variable references), so a mnemonic typed after
/// `mnemonic.check`, inside `mnemonic.explain("…")` or in `let m = "…"` never reaches the disk
/// or the screen again.
public enum HistoryRedaction {
    /// `line` with every secret range replaced by `<secret>`. A line that does not parse is
    /// kept only when it contains no string literal, since we cannot tell what its strings are.
    public static func redact(_ line: String, registry: BuiltinRegistry, commands: CommandTable) -> String? {
        let source = Source(name: "<history>", text: line)
        let (program, diagnostics) = Parser.parse(source: source, commands: commands)
        return redact(marked(source, program: program, registry: registry), diagnostics: diagnostics)
    }

    /// The history form of a source already parsed and marked (`marked`), and its diagnostics.
    public static func redact(_ source: Source, diagnostics: [Diagnostic]) -> String? {
        if !diagnostics.isEmpty, source.text.contains("\"") { return nil }
        guard !source.secretRanges.isEmpty else { return source.text }
        var bytes = source.utf8
        for r in source.secretRanges.reversed() {
            bytes.replaceSubrange(r.start..<r.end, with: Array("<secret>".utf8))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `source` with its secret ranges marked, so its error excerpts and messages hide them;
    /// `program` is its parse.
    public static func marked(_ source: Source, program: Program, registry: BuiltinRegistry) -> Source {
        var s = source
        s.secretRanges = Builtins.secretRanges(in: source, program: program, registry: registry)
        return s
    }
}
