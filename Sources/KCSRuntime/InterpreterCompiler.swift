// The resolver: parser AST → slot-resolved node tree (InterpreterNodes.swift).
//
// Scoping (docs/language.md §6):
// - The module scope (top level of a script, a module or a REPL line) holds globals.
// - Every block opens a scope; `let` declares in the innermost one. Locals get slots in the
//   current frame (the function's, or the top-level code's for blocks at the top level); a
//   slot is reused once its block has ended.
// - A function sees its parameters, its own locals and the globals; never the locals of an
//   enclosing function, so frames are flat arrays and nothing is captured.
// - A `def` is bound when its block starts, so it is visible in the whole block.
// Names that are not locals resolve to global slots, which may be declared later (or never:
// reading one then is `runtime.undefinedVariable`).
import BigInt
import KCSSyntax

/// A compiled program (script, module or REPL line), ready to run.
struct CompiledProgram {
    let body: StmtNode
    /// Locals of the top-level code's frame (variables of blocks at the top level).
    let slotCount: Int

    /// Runs the program in a fresh top-level frame.
    func run(_ env: Environment) throws(RuntimeError) {
        guard let fp = env.pushFrame(slotCount) else { throw RuntimeError(.stackOverflow, at: body.range) }
        defer { env.popFrame(fp, slotCount) }
        _ = try body.exec(env, fp)
    }
}

/// Resolves one source's AST. Not reused across sources.
final class Compiler {
    private let env: Environment
    private let unit: Unit
    private let recordsResults: Bool
    /// Local scopes of the current frame, innermost last; empty at module scope.
    private var scopes: [[String: Int]] = []
    private var nextSlot = 0
    private var maxSlot = 0

    private init(env: Environment, unit: Unit, recordsResults: Bool) {
        self.env = env
        self.unit = unit
        self.recordsResults = recordsResults
    }

    /// Compiles `program`; with `recordsResults`, top-level expression statements store their
    /// value for `_`.
    static func compile(_ program: Program, unit: Unit, env: Environment, recordsResults: Bool) -> CompiledProgram {
        let c = Compiler(env: env, unit: unit, recordsResults: recordsResults)
        let range = SourceRange(start: 0, end: program.source.utf8.count)
        let (hoisted, body) = c.statements(program.statements, topLevel: true)
        return CompiledProgram(body: BlockNode.make(hoisted: hoisted, body: body, range: range), slotCount: c.maxSlot)
    }

    // MARK: Scopes

    private func declare(_ name: String) -> VariableRef {
        guard !scopes.isEmpty else { return .global(env.globalSlot(name), name) }
        let slot = nextSlot
        nextSlot += 1
        maxSlot = max(maxSlot, nextSlot)
        scopes[scopes.count - 1][name] = slot
        return .local(slot)
    }

    private func declareLocal(_ name: String) -> Int {
        if scopes.isEmpty { scopes.append([:]) }
        guard case .local(let slot) = declare(name) else { fatalError("unreachable") }
        return slot
    }

    private func resolve(_ name: String) -> VariableRef {
        for scope in scopes.reversed() {
            if let s = scope[name] { return .local(s) }
        }
        return .global(env.globalSlot(name), name)
    }

    private func set(_ ref: VariableRef, _ value: ExprNode, range: SourceRange) -> StmtNode {
        switch ref {
        case .local(let slot): SetLocal(slot: slot, value: value, range: range)
        case .global(let slot, _): DefineGlobal(slot: slot, value: value, range: range)
        }
    }

    // MARK: Blocks and functions

    private func block(
        _ b: Block, declaring name: String? = nil, as slotOut: UnsafeMutablePointer<Int>? = nil
    ) -> StmtNode {
        let savedNext = nextSlot
        scopes.append([:])
        if let name { slotOut?.pointee = declareLocal(name) }
        let (hoisted, body) = statements(b.statements, topLevel: false)
        scopes.removeLast()
        nextSlot = savedNext
        return BlockNode.make(hoisted: hoisted, body: body, range: b.range)
    }

    /// Compiles a statement list: `def`s first (declared, then compiled), then the rest.
    private func statements(_ list: [Stmt], topLevel: Bool) -> (hoisted: [StmtNode], body: [StmtNode]) {
        var refs: [VariableRef] = []
        for s in list {
            if case .function(let name, _, _) = s.kind { refs.append(declare(name.name)) }
        }
        var hoisted: [StmtNode] = []
        var i = 0
        for s in list {
            if case .function(let name, let params, let body) = s.kind {
                let f = function(name.name, params.map(\.name), body)
                hoisted.append(set(refs[i], ConstNode(.domain(f), range: s.range), range: s.range))
                i += 1
            }
        }
        var body: [StmtNode] = []
        for s in list {
            if let node = statement(s, topLevel: topLevel) { body.append(node) }
        }
        return (hoisted, body)
    }

    private func function(_ name: String, _ params: [String], _ body: Block) -> FunctionValue {
        let saved = (scopes, nextSlot, maxSlot)
        var scope: [String: Int] = [:]
        for (i, p) in params.enumerated() { scope[p] = i }
        scopes = [scope]
        nextSlot = params.count
        maxSlot = params.count
        let node = block(body)
        let expression = expressionBody(body)
        let f = FunctionValue(
            name: name, parameters: params, slotCount: maxSlot, body: node, expression: expression,
            unit: unit)
        (scopes, nextSlot, maxSlot) = saved
        return f
    }

    /// A body made only of guard returns and a final return — `if c { return a } … return b`
    /// — as one expression (`c ? a : …b`): a call then evaluates it directly, without
    /// statement dispatch or the return slot. Other bodies give nil.
    private func expressionBody(_ body: Block) -> ExprNode? {
        let statements = body.statements
        guard let last = statements.last, case .returnValue(let final?) = last.kind else { return nil }
        var guards: [(condition: Expr, value: Expr, range: SourceRange)] = []
        for s in statements.dropLast() {
            guard case .ifElse(let branches, nil) = s.kind, branches.count == 1,
                branches[0].body.statements.count == 1,
                case .returnValue(let value?) = branches[0].body.statements[0].kind
            else { return nil }
            guards.append((branches[0].condition, value, s.range))
        }
        var node = expr(final)
        for g in guards.reversed() {
            node = SelectNode(condition: expr(g.condition), then: expr(g.value), otherwise: node, range: g.range)
        }
        return node
    }

    // MARK: Statements

    private func statement(_ s: Stmt, topLevel: Bool) -> StmtNode? {
        switch s.kind {
        case .letBinding(let name, let value):
            let v = expr(value)
            return set(declare(name.name), v, range: s.range)
        case .assignment(let target, let value):
            return assignment(target, expr(value), range: s.range)
        case .ifElse(let branches, let elseBlock):
            return IfNode.chain(
                conditions: branches.map { expr($0.condition) }, blocks: branches.map { block($0.body) },
                elseBlock: elseBlock.map { block($0) }, range: s.range)
        case .forIn(let variable, let sequence, let body):
            var slot = 0
            if case .binary(let op, let lo, let hi) = sequence.kind, op == .halfOpenRange || op == .closedRange {
                let l = expr(lo), h = expr(hi)
                let b = block(body, declaring: variable.name, as: &slot)
                return ForRangeNode(
                    slot: slot, lower: l, upper: h, isClosed: op == .closedRange, body: b,
                    rangeExpr: sequence.range, range: s.range)
            }
            let seq = expr(sequence)
            let b = block(body, declaring: variable.name, as: &slot)
            return ForNode(slot: slot, sequence: seq, body: b, range: s.range)
        case .whileLoop(let condition, let body):
            return WhileNode(condition: expr(condition), body: block(body), range: s.range)
        case .breakLoop:
            return BreakNode(range: s.range)
        case .continueLoop:
            return ContinueNode(range: s.range)
        case .function:
            return nil  // bound when the block starts
        case .returnValue(let value):
            return ReturnNode(value: value.map(expr), range: s.range)
        case .tryCatch(let body, let errorName, let handler):
            let b = block(body)
            var slot = 0
            let h = block(handler, declaring: errorName.name, as: &slot)
            return TryNode(body: b, slot: slot, handler: h, unit: unit, range: s.range)
        case .assertion(let condition, let message):
            return AssertNode(condition: expr(condition), message: message.map(expr), range: s.range)
        case .print(let values):
            return PrintNode(values: values.map(expr), range: s.range)
        case .use(let module):
            return UseNode(name: module, unit: unit, range: s.range)
        case .command(let command):
            return ExprStmt(self.command(command), recordsResult: topLevel && recordsResults)
        case .expression(let e):
            return ExprStmt(expr(e), recordsResult: topLevel && recordsResults)
        }
    }

    private func assignment(_ target: Expr, _ value: ExprNode, range: SourceRange) -> StmtNode {
        if case .identifier(let name) = target.kind {
            switch resolve(name) {
            case .local(let slot): return SetLocal(slot: slot, value: value, range: range)
            case .global(let slot, _):
                return AssignGlobal(slot: slot, name: name, nameRange: target.range, value: value, range: range)
            }
        }
        var steps: [PathStep] = []
        var e = target
        while true {
            switch e.kind {
            case .member(let base, let field):
                steps.append(.field(field.name, field.range))
                e = base
                continue
            case .index(let base, let index):
                steps.append(.index(expr(index)))
                e = base
                continue
            case .identifier(let name):
                return AssignPath(
                    root: resolve(name), rootRange: e.range, steps: steps.reversed(), value: value, range: range)
            default:
                return FailNode(.notAssignable(type: "a temporary value"), range: e.range)
            }
        }
    }

    // MARK: Expressions

    private func expr(_ e: Expr) -> ExprNode {
        switch e.kind {
        case .integer(let digits):
            let value: Value = Int(digits).map(Value.int) ?? .integer(BigInt(digits) ?? 0)
            return ConstNode(value, range: e.range)
        case .bytes(let b):
            if b.count == 20, let check = env.registry.addressLiteralCheck,
                let error = check(unit.source.text(in: e.range))
            {
                return FailExpr(
                    .builtin(id: error.id, command: "0x literal", message: error.description), range: e.range)
            }
            return ConstNode(.bytes(b), range: e.range)
        case .string(let parts):
            var nodes: [ExprNode] = []
            var allText = true
            var text = ""
            for p in parts {
                switch p {
                case .text(let t, let r):
                    text += t
                    nodes.append(ConstNode(.string(t), range: r))
                case .interpolation(let x):
                    allText = false
                    nodes.append(expr(x))
                }
            }
            return allText ? ConstNode(.string(text), range: e.range) : InterpolationNode(parts: nodes, range: e.range)
        case .boolean(let b):
            return ConstNode(.bool(b), range: e.range)
        case .nil:
            return ConstNode(.null, range: e.range)
        case .list(let items):
            return ListNode(items: items.map(expr), range: e.range)
        case .map(let entries):
            return MapNode(keys: entries.map { expr($0.key) }, values: entries.map { expr($0.value) }, range: e.range)
        case .identifier(let name):
            switch resolve(name) {
            case .local(let slot): return LocalGet(slot: slot, range: e.range)
            case .global(let slot, _): return GlobalGet(slot: slot, name: name, range: e.range)
            }
        case .unary(let op, let x):
            switch op {
            case .negate: return NegateNode(expr(x), range: e.range)
            case .not: return NotNode(expr(x), range: e.range)
            }
        case .binary(let op, let l, let r):
            switch op {
            case .and: return LogicalNode(isAnd: true, expr(l), expr(r), range: e.range)
            case .or: return LogicalNode(isAnd: false, expr(l), expr(r), range: e.range)
            default: return binary(op, expr(l), expr(r), range: e.range)
            }
        case .call(let callee, let arguments):
            return call(callee, arguments.map(expr), range: e.range)
        case .member(let base, let field):
            return MemberNode(expr(base), name: field.name, range: field.range)
        case .index(let base, let index):
            return IndexNode(expr(base), expr(index), range: e.range)
        case .command(let c):
            return command(c)
        }
    }

    /// A binary operator; with an integer constant on the right (`n < 2`, `i + 1`), one of
    /// the nodes that compare or add without evaluating the constant.
    private func binary(_ op: BinaryOperator, _ lhs: ExprNode, _ rhs: ExprNode, range: SourceRange) -> ExprNode {
        guard IntConstNode.handles(op), let k = rhs as? ConstNode, case .int(let c) = k.value else {
            return BinaryNode(op, lhs, rhs, range: range)
        }
        if let local = lhs as? LocalGet { return LocalIntConstNode(op, slot: local.slot, c, range: range) }
        return IntConstNode(op, lhs, c, range: range)
    }

    /// `f(args)`: a local function value, a global function (or else a builtin of that name),
    /// a dotted builtin `a.b(args)` (unless `a` is a variable), or any callable expression.
    private func call(_ callee: Expr, _ args: [ExprNode], range: SourceRange) -> ExprNode {
        if case .identifier(let name) = callee.kind, case .global(let slot, _) = resolve(name) {
            return CallGlobalNode(
                slot: slot, name: name, nameRange: callee.range, builtin: env.registry.lookup(name),
                args: args, unit: unit, range: range)
        }
        if let (root, dotted) = dottedName(callee), case .global(let slot, _) = resolve(root),
            let b = env.registry.lookup(dotted)
        {
            return CallDottedNode(
                rootSlot: slot, callee: expr(callee), builtin: b, args: args, unit: unit, range: range)
        }
        return CallValueNode(callee: expr(callee), args: args, unit: unit, range: range)
    }

    /// `a.b.c` as ("a", "a.b.c"), or nil when the expression is not a chain of names.
    private func dottedName(_ e: Expr) -> (String, String)? {
        switch e.kind {
        case .identifier(let n): return (n, n)
        case .member(let base, let field):
            guard let (root, path) = dottedName(base) else { return nil }
            return (root, path + "." + field.name)
        default: return nil
        }
    }

    private func command(_ c: Command) -> ExprNode {
        func argument(_ a: CommandArgument) -> ExprNode {
            switch a {
            case .expression(let e): expr(e)
            case .word(let w, let r): ConstNode(.string(w), range: r)
            }
        }
        return CommandNode(
            name: c.name, nameRange: c.nameRange, builtin: env.registry.lookup(c.name),
            args: c.arguments.map(argument), optionNames: c.options.map(\.name),
            optionValues: c.options.map { $0.value.map(argument) }, range: c.range)
    }
}
