import KCSRuntime
import KCSSyntax

/// What a REPL line becomes in the history file: every argument or option value that the
/// builtin table marks secret is replaced by `<secret>`, whether the builtin is written as a
/// command or as a call (a mnemonic typed after `mnemonic.check` or inside
/// `mnemonic.explain("…")` never reaches the disk). A line that does not parse is kept only when it
/// contains no string literal, since we cannot tell what its strings are.
public enum HistoryRedaction {
    public static func redact(_ line: String, registry: BuiltinRegistry, commands: CommandTable) -> String? {
        let source = Source(name: "<history>", text: line)
        let (program, diagnostics) = Parser.parse(source: source, commands: commands)
        if !diagnostics.isEmpty { return line.contains("\"") ? nil : line }
        var cuts: [SourceRange] = []
        for c in program.commands {
            guard let builtin = registry.lookup(c.name) else { continue }
            for (i, argument) in c.arguments.enumerated() where i < builtin.params.count && builtin.params[i].isSecret {
                cuts.append(argument.range)
            }
            for option in c.options {
                if let spec = builtin.options.first(where: { $0.name == option.name }), spec.isSecret, let v = option.value {
                    cuts.append(v.range)
                }
            }
        }
        for call in program.namedCalls {
            guard let builtin = registry.lookup(call.name) else { continue }
            for (i, argument) in call.arguments.enumerated() where i < builtin.params.count && builtin.params[i].isSecret {
                cuts.append(argument.range)
            }
        }
        guard !cuts.isEmpty else { return line }
        // A secret inside another (a call written in a secret argument) goes with the outer one.
        var merged: [SourceRange] = []
        for r in cuts.sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, r.start < last.end {
                merged[merged.count - 1] = SourceRange(start: last.start, end: max(last.end, r.end))
            } else {
                merged.append(r)
            }
        }
        var bytes = Array(line.utf8)
        for r in merged.reversed() {
            bytes.replaceSubrange(r.start..<r.end, with: Array("<secret>".utf8))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
