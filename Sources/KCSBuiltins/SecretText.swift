// Which parts of a program text are secret: the one rule the console applies to its history
// file, to every error excerpt and message, and to the `-e` warning (docs/language.md §8).
import KCSRuntime
import KCSSyntax
import WalletCore

extension Builtins {
    /// The byte ranges of `source` that must never be shown or stored:
    /// - string and `0x…` literals whose text has the shape of key material (`SecretShape`:
    ///   a BIP-39 phrase, a private key or seed in hex, an extended private key, a WIF), typos
    ///   included;
    /// - arguments and option values that the builtin tables mark secret, whether the builtin is
    ///   written as a command or as a call — unless the argument is a variable reference
    ///   (`$k`, `k.secret`), which names a secret without holding one.
    /// Sorted and merged, so a secret written inside another goes with the outer one.
    /// `program` is `source` as parsed (with the session's command table); it is not parsed again.
    public static func secretRanges(in source: Source, program: Program, registry: BuiltinRegistry) -> [SourceRange] {
        var cuts = secretLiterals(in: source)
        for c in program.commands {
            guard let builtin = registry.lookup(c.name) else { continue }
            for (i, argument) in c.arguments.enumerated()
            where i < builtin.params.count && builtin.params[i].isSecret && !isReference(argument) {
                cuts.append(argument.range)
            }
            for option in c.options {
                if let spec = builtin.options.first(where: { $0.name == option.name }), spec.isSecret,
                   let v = option.value, !isReference(v) {
                    cuts.append(v.range)
                }
            }
        }
        for call in program.namedCalls {
            guard let builtin = registry.lookup(call.name) else { continue }
            for (i, argument) in call.arguments.enumerated()
            where i < builtin.params.count && builtin.params[i].isSecret && !isReference(argument) {
                cuts.append(argument.range)
            }
        }
        var merged: [SourceRange] = []
        for r in cuts.sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, r.start < last.end {
                merged[merged.count - 1] = SourceRange(start: last.start, end: max(last.end, r.end))
            } else {
                merged.append(r)
            }
        }
        return merged
    }

    /// Literals of `source` whose text has a secret's shape. Found by the lexer alone, so a
    /// line that does not parse (a phrase with an unclosed quote aside) is covered too.
    static func secretLiterals(in source: Source) -> [SourceRange] {
        var lexer = Lexer(source: source)
        var found: [SourceRange] = []
        while true {
            let token = lexer.next()
            let text = source.text(in: token.range)
            switch token.kind {
            case .endOfInput: return found
            case .string:
                let inner = text.hasPrefix("\"") ? String(text.dropFirst().dropLast(text.hasSuffix("\"") && text.count > 1 ? 1 : 0)) : text
                if SecretShape.of(inner) != nil { found.append(token.range) }
            case .bytes, .invalid, .word:
                if SecretShape.of(text) != nil { found.append(token.range) }
            default:
                continue
            }
        }
    }

    /// A `$variable` argument (or a field or element of one): it names a value held elsewhere.
    private static func isReference(_ a: CommandArgument) -> Bool {
        if case .expression(let e) = a { return isReference(e) }
        return false
    }

    /// A variable, or a field or element of one: it names a value held elsewhere.
    private static func isReference(_ e: Expr) -> Bool {
        switch e.kind {
        case .identifier: true
        case .member(let base, _): isReference(base)
        case .index(let base, _): isReference(base)
        default: false
        }
    }
}
