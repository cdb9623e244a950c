// Statement nodes: variables, control flow, functions, errors, output and modules.
import BigInt
import KCSSyntax

/// `{ … }`: the block's `def`s are bound first (a `def` is visible in its whole scope), then
/// the statements run in order until one breaks, continues or returns.
final class BlockNode: StmtNode {
    let hoisted: [StmtNode]
    let body: [StmtNode]
    private let hasHoisted: Bool
    /// Short bodies run as one chain of `SequenceNode`s: a call through a non-optional `let`
    /// field of a final class needs no retain/release, while reading an array element (or
    /// binding an optional) costs both — and this is the hottest path of the interpreter.
    let chain: StmtNode
    let isChained: Bool
    /// Longer bodies than this loop over the array (a chain recurses once per statement).
    static let maxChain = 8
    init(hoisted: [StmtNode], body: [StmtNode], range: SourceRange) {
        self.hoisted = hoisted
        self.body = body
        hasHoisted = !hoisted.isEmpty
        isChained = body.count <= BlockNode.maxChain
        if !isChained || body.isEmpty {
            chain = EmptyStmt(range: range)
        } else {
            var node = body[body.count - 1]
            for s in body.dropLast().reversed() { node = SequenceNode(s, node) }
            chain = node
        }
        super.init(range: range)
    }
    /// The node for a block: its statement chain itself when nothing is hoisted (one virtual
    /// call less per block run), else a `BlockNode`.
    static func make(hoisted: [StmtNode], body: [StmtNode], range: SourceRange) -> StmtNode {
        let block = BlockNode(hoisted: hoisted, body: body, range: range)
        return hoisted.isEmpty && block.isChained ? block.chain : block
    }

    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        if hasHoisted { for h in hoisted { _ = try h.exec(env, fp) } }
        if isChained { return try chain.exec(env, fp) }
        for s in body {
            let flow = try s.exec(env, fp)
            if flow != .next { return flow }
        }
        return .next
    }
}

/// Two statements in order (see `BlockNode.chain`).
final class SequenceNode: StmtNode {
    let first: StmtNode, rest: StmtNode
    init(_ first: StmtNode, _ rest: StmtNode) {
        self.first = first
        self.rest = rest
        super.init(range: first.range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        let flow = try first.exec(env, fp)
        if flow != .next { return flow }
        return try rest.exec(env, fp)
    }
}

/// Does nothing: the empty block, the missing `else`.
final class EmptyStmt: StmtNode {
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow { .next }
}

/// An expression or command used as a statement; at the top level its value is kept for `_`.
final class ExprStmt: StmtNode {
    let expr: ExprNode
    let recordsResult: Bool
    init(_ expr: ExprNode, recordsResult: Bool) {
        self.expr = expr
        self.recordsResult = recordsResult
        super.init(range: expr.range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        let v = try expr.eval(env, fp)
        if recordsResult {
            env.lastResult = v
            if let show = env.show { show(v) }
        }
        return .next
    }
}

// MARK: - Variables

/// `let` (and `def`, `for`, `catch`) into a local slot; also assignment to a local.
final class SetLocal: StmtNode {
    let slot: Int
    let value: ExprNode
    init(slot: Int, value: ExprNode, range: SourceRange) {
        self.slot = slot
        self.value = value
        super.init(range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        fp[slot] = try value.eval(env, fp)
        return .next
    }
}

/// `let` of a top-level name: declares the global.
final class DefineGlobal: StmtNode {
    let slot: Int
    let value: ExprNode
    init(slot: Int, value: ExprNode, range: SourceRange) {
        self.slot = slot
        self.value = value
        super.init(range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        env.setGlobal(slot, try value.eval(env, fp))
        env.globalDefined[slot] = true
        return .next
    }
}

/// `x = v` where `x` is a global: it must have been declared.
final class AssignGlobal: StmtNode {
    let slot: Int
    let name: String
    let nameRange: SourceRange
    let value: ExprNode
    init(slot: Int, name: String, nameRange: SourceRange, value: ExprNode, range: SourceRange) {
        self.slot = slot
        self.name = name
        self.nameRange = nameRange
        self.value = value
        super.init(range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        let v = try value.eval(env, fp)
        guard env.globalDefined[slot] else {
            throw RuntimeError(
                .undefinedVariable(name, suggestion: suggestion(for: name, among: env.definedGlobalNames)),
                at: nameRange)
        }
        env.setGlobal(slot, v)
        return .next
    }
}

/// Where a variable lives.
enum VariableRef {
    case local(Int)
    case global(Int, String)
}

/// One step of an assignment target below its variable: `.field` or `[index]`.
enum PathStep {
    case field(String, SourceRange)
    case index(ExprNode)
}

/// `x.f = v`, `x[i] = v`, `x.a[0].b = v`: updates the value in place inside the variable.
/// The variable's value is moved out while it is updated, so lists and maps are not copied.
final class AssignPath: StmtNode {
    let root: VariableRef
    let rootRange: SourceRange
    let steps: [PathStep]
    let value: ExprNode
    init(root: VariableRef, rootRange: SourceRange, steps: [PathStep], value: ExprNode, range: SourceRange) {
        self.root = root
        self.rootRange = rootRange
        self.steps = steps
        self.value = value
        super.init(range: range)
    }

    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        let newValue = try value.eval(env, fp)
        var keys: [Value] = []
        for s in steps {
            if case .index(let e) = s { keys.append(try e.eval(env, fp)) } else { keys.append(.null) }
        }
        let storage: UnsafeMutablePointer<Value>
        switch root {
        case .local(let slot): storage = fp + slot
        case .global(let slot, let name):
            guard env.globalDefined[slot] else {
                throw RuntimeError(
                    .undefinedVariable(name, suggestion: suggestion(for: name, among: env.definedGlobalNames)),
                    at: rootRange)
            }
            storage = env.globals + slot
        }
        var current = storage.move()
        storage.initialize(to: .null)
        defer { storage.pointee = current }
        try update(&current, 0, keys, newValue)
        return .next
    }

    private func update(_ v: inout Value, _ i: Int, _ keys: [Value], _ newValue: Value) throws(RuntimeError) {
        let last = i == steps.count - 1
        switch steps[i] {
        case .field(let name, let r):
            guard case .map(var m) = v else { throw RuntimeError(.notAssignable(type: v.typeName), at: r) }
            v = .null
            defer { v = .map(m) }
            if last {
                m[name] = newValue
                return
            }
            guard var child = m[name] else {
                throw RuntimeError(
                    .noSuchField(field: name, type: "map", suggestion: suggestion(for: name, among: m.keys)), at: r)
            }
            m[name] = .null
            defer { m[name] = child }
            try update(&child, i + 1, keys, newValue)
        case .index(let e):
            let key = keys[i]
            switch v {
            case .list(var items):
                let n = try IndexNode.position(key, count: items.count, container: "list", range: e.range)
                v = .null
                defer { v = .list(items) }
                if last {
                    items[n] = newValue
                    return
                }
                var child = items[n]
                items[n] = .null
                defer { items[n] = child }
                try update(&child, i + 1, keys, newValue)
            case .map(var m):
                guard case .string(let k) = key else {
                    throw RuntimeError(
                        .invalidIndexType(container: "map", expected: "a string", got: key.typeName), at: e.range)
                }
                v = .null
                defer { v = .map(m) }
                if last {
                    m[k] = newValue
                    return
                }
                guard var child = m[k] else { throw RuntimeError(.missingKey(k), at: e.range) }
                m[k] = .null
                defer { m[k] = child }
                try update(&child, i + 1, keys, newValue)
            default:
                throw RuntimeError(.notAssignable(type: v.typeName), at: e.range)
            }
        }
    }
}

/// An assignment whose target is not rooted in a variable (`f().x = 1`).
final class FailNode: StmtNode {
    let error: RuntimeErrorKind
    init(_ error: RuntimeErrorKind, range: SourceRange) {
        self.error = error
        super.init(range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        throw RuntimeError(error, at: range)
    }
}

/// An expression the compiler already knows to fail (an address literal with a wrong
/// checksum): it throws when evaluated, like the call it stands in would.
final class FailExpr: ExprNode {
    let error: RuntimeErrorKind
    init(_ error: RuntimeErrorKind, range: SourceRange) {
        self.error = error
        super.init(range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        throw RuntimeError(error, at: range)
    }
}

// MARK: - Control flow

final class IfNode: StmtNode {
    let condition: ExprNode
    let then: StmtNode
    /// The rest of an `if … else if … else` chain (another `IfNode`), the `else` block, or
    /// an `EmptyStmt`: never optional, so no retain on the way (see `BlockNode.chain`).
    let otherwise: StmtNode
    init(condition: ExprNode, then: StmtNode, otherwise: StmtNode, range: SourceRange) {
        self.condition = condition
        self.then = then
        self.otherwise = otherwise
        super.init(range: range)
    }
    /// `if c0 {b0} else if c1 {b1} … else {e}` as a chain of two-way nodes.
    static func chain(conditions: [ExprNode], blocks: [StmtNode], elseBlock: StmtNode?, range: SourceRange) -> IfNode {
        var tail: StmtNode = elseBlock ?? EmptyStmt(range: range)
        for i in conditions.indices.dropFirst().reversed() {
            tail = IfNode(condition: conditions[i], then: blocks[i], otherwise: tail, range: range)
        }
        return IfNode(condition: conditions[0], then: blocks[0], otherwise: tail, range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        if try condition.evalCondition(env, fp) { return try then.exec(env, fp) }
        return try otherwise.exec(env, fp)
    }
}

final class WhileNode: StmtNode {
    let condition: ExprNode
    let body: StmtNode
    init(condition: ExprNode, body: StmtNode, range: SourceRange) {
        self.condition = condition
        self.body = body
        super.init(range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        while try condition.evalCondition(env, fp) {
            try env.tick(range)
            switch try body.exec(env, fp) {
            case .breakLoop: return .next
            case .returned: return .returned
            case .next, .continueLoop: continue
            }
        }
        return .next
    }
}

/// `for x in a..<b` / `a...b` written in place: counts without building a range value.
final class ForRangeNode: StmtNode {
    let slot: Int
    let lower: ExprNode, upper: ExprNode
    let isClosed: Bool
    let body: StmtNode
    let rangeExpr: SourceRange
    init(
        slot: Int, lower: ExprNode, upper: ExprNode, isClosed: Bool, body: StmtNode, rangeExpr: SourceRange,
        range: SourceRange
    ) {
        self.slot = slot
        self.lower = lower
        self.upper = upper
        self.isClosed = isClosed
        self.body = body
        self.rangeExpr = rangeExpr
        super.init(range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        let a = try lower.eval(env, fp)
        let b = try upper.eval(env, fp)
        if case .int(let lo) = a, case .int(var hi) = b {
            if !isClosed {
                if hi == .min { return .next }
                hi -= 1
            }
            guard lo <= hi else { return .next }
            var i = lo
            while true {
                fp[slot] = .int(i)
                try env.tick(range)
                switch try body.exec(env, fp) {
                case .breakLoop: return .next
                case .returned: return .returned
                case .next, .continueLoop: break
                }
                if i == hi { return .next }
                i += 1
            }
        }
        let v = try BinaryNode.apply(isClosed ? .closedRange : .halfOpenRange, a, b, range: rangeExpr)
        return try ForNode.iterate(v, slot: slot, body: body, env, fp, range: range, sequenceRange: rangeExpr)
    }
}

/// `for x in seq`: lists (items), maps (keys in order), ranges.
final class ForNode: StmtNode {
    let slot: Int
    let sequence: ExprNode
    let body: StmtNode
    init(slot: Int, sequence: ExprNode, body: StmtNode, range: SourceRange) {
        self.slot = slot
        self.sequence = sequence
        self.body = body
        super.init(range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        try ForNode.iterate(
            try sequence.eval(env, fp), slot: slot, body: body, env, fp, range: range, sequenceRange: sequence.range)
    }

    static func iterate(
        _ seq: Value, slot: Int, body: StmtNode, _ env: Environment, _ fp: Frame, range: SourceRange,
        sequenceRange: SourceRange
    ) throws(RuntimeError) -> Flow {
        func step(_ v: Value) throws(RuntimeError) -> Flow? {
            fp[slot] = v
            try env.tick(range)
            switch try body.exec(env, fp) {
            case .breakLoop: return .next
            case .returned: return .returned
            case .next, .continueLoop: return nil
            }
        }
        switch seq {
        case .list(let items):
            for item in items { if let f = try step(item) { return f } }
        case .map(let m):
            for k in m.keys { if let f = try step(.string(k)) { return f } }
        case .domain(let d as RangeValue):
            var i = d.lower
            let end = d.isClosed ? d.upper + 1 : d.upper
            while i < end {
                if let f = try step(.integer(i)) { return f }
                i += 1
            }
        default:
            throw RuntimeError(.notIterable(type: seq.typeName), at: sequenceRange)
        }
        return .next
    }
}

final class BreakNode: StmtNode {
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow { .breakLoop }
}

final class ContinueNode: StmtNode {
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow { .continueLoop }
}

final class ReturnNode: StmtNode {
    /// The value, or a `nil` constant for a bare `return` (not optional: no retain).
    let value: ExprNode
    init(value: ExprNode?, range: SourceRange) {
        self.value = value ?? ConstNode(.null, range: range)
        super.init(range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        env.returnValue = try value.eval(env, fp)
        return .returned
    }
}

// MARK: - Errors

/// `try { } catch e { }`: any runtime error in the body (however deep) is bound to `e` as an
/// `error` value with `kind`, `message`, `file`, `line`, `column`, `position`, `hint`.
final class TryNode: StmtNode {
    let body: StmtNode
    let slot: Int
    let handler: StmtNode
    let unit: Unit
    init(body: StmtNode, slot: Int, handler: StmtNode, unit: Unit, range: SourceRange) {
        self.body = body
        self.slot = slot
        self.handler = handler
        self.unit = unit
        super.init(range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        do throws(RuntimeError) {
            return try body.exec(env, fp)
        } catch {
            if error.kind.isInterruption { throw error }
            var e = error
            if e.source == nil { e.source = unit.source }
            fp[slot] = .domain(ErrorValue(e))
            return try handler.exec(env, fp)
        }
    }
}

final class AssertNode: StmtNode {
    let condition: ExprNode
    let message: ExprNode?
    init(condition: ExprNode, message: ExprNode?, range: SourceRange) {
        self.condition = condition
        self.message = message
        super.init(range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        if try condition.evalCondition(env, fp) { return .next }
        let why = try message?.eval(env, fp)
        throw RuntimeError(
            .assertionFailed(
                why.map { v in
                    if case .string(let s) = v { return s }
                    return v.text
                }), at: range)
    }
}

// MARK: - Output and modules

final class PrintNode: StmtNode {
    let values: [ExprNode]
    init(values: [ExprNode], range: SourceRange) {
        self.values = values
        super.init(range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        if env.printsJSON {
            var items: [Value] = []
            for e in values { items.append(try e.eval(env, fp)) }
            env.host.write((items.count == 1 ? items[0] : .list(items)).json + "\n")
            return .next
        }
        var line = ""
        for (i, e) in values.enumerated() {
            if i > 0 { line += " " }
            line += try e.eval(env, fp).text(on: env.host.display)
        }
        env.host.write(line + "\n")
        return .next
    }
}

/// `use "name"`: asks the host for the module, runs it once, its top-level names become
/// globals. A module that is still loading when it is used again is a cycle.
final class UseNode: StmtNode {
    let name: String
    let unit: Unit
    init(name: String, unit: Unit, range: SourceRange) {
        self.name = name
        self.unit = unit
        super.init(range: range)
    }
    override func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow {
        let requestKey = unit.source.name + "\u{0}" + name
        let frame = StackFrame(name: "use \"\(name)\"", range: range, source: unit.source)
        let resolved: String
        var loaded: Source?
        if let r = env.moduleRequests[requestKey] {
            resolved = r
        } else {
            do {
                loaded = try env.host.loadModule(name: name, relativeTo: unit.source.name)
            } catch {
                throw RuntimeError(.moduleNotFound(name, reason: String(describing: error)), at: range)
            }
            resolved = loaded!.name
            env.moduleRequests[requestKey] = resolved
        }
        switch env.modules[resolved] {
        case true?: return .next
        case false?:
            let start = env.loadingChain.firstIndex(of: resolved) ?? 0
            throw RuntimeError(.moduleCycle(Array(env.loadingChain[start...]) + [resolved]), at: range)
        case nil: break
        }
        if loaded == nil {
            do {
                loaded = try env.host.loadModule(name: name, relativeTo: unit.source.name)
            } catch {
                throw RuntimeError(.moduleNotFound(name, reason: String(describing: error)), at: range)
            }
        }
        let source = loaded!
        let (program, diagnostics) = Parser.parse(source: source, commands: env.commandTable)
        if let d = diagnostics.first {
            throw RuntimeError(
                .moduleSyntax(id: d.id, message: d.message), at: d.range, source: source, frames: [frame])
        }
        env.modules[resolved] = false
        env.loadingChain.append(resolved)
        var succeeded = false
        defer {
            env.loadingChain.removeLast()
            env.modules[resolved] = succeeded ? true : nil
        }
        let compiled = Compiler.compile(program, unit: Unit(source: source), env: env, recordsResults: false)
        do throws(RuntimeError) {
            try compiled.run(env)
        } catch {
            var e = error
            if e.source == nil { e.source = source }
            e.frames.append(frame)
            throw e
        }
        succeeded = true
        return .next
    }
}
