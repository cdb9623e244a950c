/// Every command invocation in a program, in source order — what `kcs check` compares with
/// the builtin table (unknown commands, with a "did you mean" hint) without running anything —
/// and every call of a (dotted) name, which the REPL's history redaction checks as well.
extension Program {
    /// The commands written anywhere in the program, including inside blocks, arguments and
    /// string interpolations.
    public var commands: [Command] { CommandWalker.walk(self).commands }

    /// The calls whose callee is a name or a dotted name — `len(x)`, `mnemonic.check("…")` —
    /// written anywhere in the program, in source order, with the name as written.
    public var namedCalls: [(name: String, arguments: [Expr])] { CommandWalker.walk(self).calls }
}

enum CommandWalker {
    /// What a walk finds.
    struct Found {
        var commands: [Command] = []
        var calls: [(name: String, arguments: [Expr])] = []
    }

    static func walk(_ program: Program) -> Found {
        var out = Found()
        for s in program.statements { visit(s, into: &out) }
        return out
    }

    /// `a` or `a.b.c`, when `e` is an identifier or a chain of members over one.
    static func dottedName(_ e: Expr) -> String? {
        switch e.kind {
        case .identifier(let name): name
        case .member(let base, let field): dottedName(base).map { $0 + "." + field.name }
        default: nil
        }
    }

    static func visit(_ s: Stmt, into out: inout Found) {
        switch s.kind {
        case .letBinding(_, let value): visit(value, into: &out)
        case .assignment(let target, let value):
            visit(target, into: &out)
            visit(value, into: &out)
        case .ifElse(let branches, let elseBlock):
            for b in branches {
                visit(b.condition, into: &out)
                visit(b.body, into: &out)
            }
            if let elseBlock { visit(elseBlock, into: &out) }
        case .forIn(_, let sequence, let body):
            visit(sequence, into: &out)
            visit(body, into: &out)
        case .whileLoop(let condition, let body):
            visit(condition, into: &out)
            visit(body, into: &out)
        case .function(_, _, let body): visit(body, into: &out)
        case .returnValue(let e): if let e { visit(e, into: &out) }
        case .tryCatch(let body, _, let handler):
            visit(body, into: &out)
            visit(handler, into: &out)
        case .assertion(let condition, let message):
            visit(condition, into: &out)
            if let message { visit(message, into: &out) }
        case .print(let values): for v in values { visit(v, into: &out) }
        case .command(let c): visit(c, into: &out)
        case .expression(let e): visit(e, into: &out)
        case .breakLoop, .continueLoop, .use: break
        }
    }

    static func visit(_ b: Block, into out: inout Found) {
        for s in b.statements { visit(s, into: &out) }
    }

    static func visit(_ c: Command, into out: inout Found) {
        out.commands.append(c)
        for a in c.arguments { visit(a, into: &out) }
        for o in c.options { if let v = o.value { visit(v, into: &out) } }
    }

    static func visit(_ a: CommandArgument, into out: inout Found) {
        if case .expression(let e) = a { visit(e, into: &out) }
    }

    static func visit(_ e: Expr, into out: inout Found) {
        switch e.kind {
        case .integer, .bytes, .boolean, .nil, .identifier: break
        case .string(let parts):
            for p in parts { if case .interpolation(let inner) = p { visit(inner, into: &out) } }
        case .list(let items): for i in items { visit(i, into: &out) }
        case .map(let entries):
            for m in entries {
                visit(m.key, into: &out)
                visit(m.value, into: &out)
            }
        case .unary(_, let x): visit(x, into: &out)
        case .binary(_, let a, let b):
            visit(a, into: &out)
            visit(b, into: &out)
        case .call(let callee, let arguments):
            if let name = dottedName(callee) { out.calls.append((name, arguments)) }
            visit(callee, into: &out)
            for a in arguments { visit(a, into: &out) }
        case .member(let base, _): visit(base, into: &out)
        case .index(let base, let index):
            visit(base, into: &out)
            visit(index, into: &out)
        case .command(let c): visit(c, into: &out)
        }
    }
}
