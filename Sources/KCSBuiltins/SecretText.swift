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
        ranges(in: source, program: program, registry: registry, literalsOnly: false)
    }

    /// The secret text written literally in `source`: what the `-e` warning is about, since a
    /// command line is readable by every local user. A secret argument that is computed — read
    /// with `(env "PIN" --secret pin)` or `(file.read … --secret …)`, the forms the warning
    /// recommends — holds no secret text; nor does a bare 32 bytes of hex outside a secret
    /// argument (`sign 0x…` signs a digest, which has the shape of a private key).
    public static func literalSecretRanges(
        in source: Source, program: Program, registry: BuiltinRegistry
    ) -> [SourceRange] {
        ranges(in: source, program: program, registry: registry, literalsOnly: true)
    }

    private static func ranges(
        in source: Source, program: Program, registry: BuiltinRegistry, literalsOnly: Bool
    ) -> [SourceRange] {
        var cuts = secretLiterals(in: source, withHex: !literalsOnly)
        func counts(_ a: CommandArgument) -> Bool { literalsOnly ? isLiteral(a) : !isReference(a) }
        func counts(_ e: Expr) -> Bool { literalsOnly ? isLiteral(e) : !isReference(e) }
        for c in program.commands {
            guard let builtin = registry.lookup(c.name) else { continue }
            for (i, argument) in c.arguments.enumerated()
            where i < builtin.params.count && builtin.params[i].isSecret && counts(argument) {
                cuts.append(argument.range)
            }
            for option in c.options {
                guard let spec = builtin.options.first(where: { $0.name == option.name }), let v = option.value else {
                    continue
                }
                if spec.isSecret, counts(v) {
                    cuts.append(v.range)
                } else if literalsOnly, acceptsSecret(spec.type), isLiteral(v),
                    SecretShape.of(literalText(v, source)) != nil
                {
                    // `--key 0x…` of a signing command: 32 bytes of hex where a key value is taken.
                    cuts.append(v.range)
                }
            }
        }
        for call in program.namedCalls {
            guard let builtin = registry.lookup(call.name) else { continue }
            for (i, argument) in call.arguments.enumerated()
            where i < builtin.params.count && builtin.params[i].isSecret && counts(argument) {
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
    static func secretLiterals(in source: Source, withHex: Bool = true) -> [SourceRange] {
        func secret(_ text: String) -> Bool {
            guard let shape = SecretShape.of(text) else { return false }
            return withHex || shape != .hexKey
        }
        var lexer = Lexer(source: source)
        var found: [SourceRange] = []
        while true {
            let token = lexer.next()
            let text = source.text(in: token.range)
            switch token.kind {
            case .endOfInput: return found
            case .string:
                let inner =
                    text.hasPrefix("\"")
                    ? String(text.dropFirst().dropLast(text.hasSuffix("\"") && text.count > 1 ? 1 : 0)) : text
                if secret(inner) { found.append(token.range) }
            case .bytes, .invalid, .word:
                if secret(text) { found.append(token.range) }
            default:
                continue
            }
        }
    }

    /// True when a value of `type` may be a secret (the option takes a key value).
    private static func acceptsSecret(_ type: ValueType?) -> Bool {
        switch type {
        case .secret?: true
        case .oneOf(let types)?: types.contains { acceptsSecret($0) }
        default: false
        }
    }

    /// A literal argument's text as written (a string without its quotes).
    private static func literalText(_ a: CommandArgument, _ source: Source) -> String {
        let text = source.text(in: a.range)
        return text.hasPrefix("\"") && text.hasSuffix("\"") && text.count >= 2
            ? String(text.dropFirst().dropLast()) : text
    }

    /// An argument written as literal text: a bare word, or a number, bytes or string literal
    /// without interpolation.
    private static func isLiteral(_ a: CommandArgument) -> Bool {
        switch a {
        case .word: true
        case .expression(let e): isLiteral(e)
        }
    }

    private static func isLiteral(_ e: Expr) -> Bool {
        switch e.kind {
        case .integer, .bytes: true
        case .string(let parts): parts.allSatisfy { if case .text = $0 { true } else { false } }
        default: false
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
