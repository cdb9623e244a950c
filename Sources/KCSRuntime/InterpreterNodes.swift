// The resolved tree the interpreter runs.
//
// `Compiler` (InterpreterCompiler.swift) turns the parser's AST into these nodes once:
// variables become slot numbers, builtins are looked up, literals become constants. Each node
// is a small final class whose `eval`/`exec` is one virtual call, and integer arithmetic
// stays on unboxed `Int`s until it overflows. Nodes never change after compilation.
import BigInt
import KCSErrors
import KCSSyntax

/// A frame's base pointer: local `slot` is `fp[slot]`.
typealias Frame = UnsafeMutablePointer<Value>

/// How a statement finished.
enum Flow: UInt8 {
    case next, breakLoop, continueLoop, returned
}

// MARK: - Bases

/// An expression node. Immutable after compilation.
class ExprNode {
    let range: SourceRange
    init(range: SourceRange) { self.range = range }

    func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value { fatalError("abstract") }

    /// The value as a condition; only a bool is one.
    func evalCondition(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Bool {
        let v = try eval(env, fp)
        if case .bool(let b) = v { return b }
        throw RuntimeError(.notABool(context: "condition", got: v.typeName), at: range)
    }
}

/// A statement node.
class StmtNode {
    let range: SourceRange
    init(range: SourceRange) { self.range = range }

    func exec(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Flow { fatalError("abstract") }
}

// MARK: - Leaves

final class ConstNode: ExprNode {
    let value: Value
    init(_ value: Value, range: SourceRange) {
        self.value = value
        super.init(range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value { value }
}

final class LocalGet: ExprNode {
    let slot: Int
    init(slot: Int, range: SourceRange) {
        self.slot = slot
        super.init(range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value { fp[slot] }
}

final class GlobalGet: ExprNode {
    let slot: Int
    let name: String
    init(slot: Int, name: String, range: SourceRange) {
        self.slot = slot
        self.name = name
        super.init(range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        guard env.globalDefined[slot] else {
            // A variable first; else a command the name is close to (`histroy`, `kyes`).
            let near =
                suggestion(for: name, among: env.definedGlobalNames)
                ?? suggestion(for: name, among: env.builtinNames.filter { !$0.contains(".") })
            throw RuntimeError(.undefinedVariable(name, suggestion: near), at: range)
        }
        return env.globals[slot]
    }
}

// MARK: - Literals

final class InterpolationNode: ExprNode {
    let parts: [ExprNode]
    init(parts: [ExprNode], range: SourceRange) {
        self.parts = parts
        super.init(range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        var s = ""
        for p in parts {
            let v = try p.eval(env, fp)
            if case .string(let t) = v { s += t } else { s += v.inlineText }
        }
        return .string(s)
    }
}

final class ListNode: ExprNode {
    let items: [ExprNode]
    init(items: [ExprNode], range: SourceRange) {
        self.items = items
        super.init(range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        var out: [Value] = []
        out.reserveCapacity(items.count)
        for i in items { out.append(try i.eval(env, fp)) }
        return .list(out)
    }
}

final class MapNode: ExprNode {
    let keys: [ExprNode]
    let values: [ExprNode]
    init(keys: [ExprNode], values: [ExprNode], range: SourceRange) {
        self.keys = keys
        self.values = values
        super.init(range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        var m = ValueMap()
        for i in keys.indices {
            let k = try keys[i].eval(env, fp)
            guard case .string(let key) = k else {
                throw RuntimeError(.invalidMapKey(type: k.typeName), at: keys[i].range)
            }
            m[key] = try values[i].eval(env, fp)
        }
        return .map(m)
    }
}

// MARK: - Operators

final class NegateNode: ExprNode {
    let operand: ExprNode
    init(_ operand: ExprNode, range: SourceRange) {
        self.operand = operand
        super.init(range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        let v = try operand.eval(env, fp)
        if case .int(let n) = v, n != .min { return .int(-n) }
        guard let b = v.bigIntValue else { throw RuntimeError(.invalidOperand(op: "-", type: v.typeName), at: range) }
        return .integer(-b)
    }
}

final class NotNode: ExprNode {
    let operand: ExprNode
    init(_ operand: ExprNode, range: SourceRange) {
        self.operand = operand
        super.init(range: range)
    }
    override func evalCondition(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Bool {
        let v = try operand.eval(env, fp)
        guard case .bool(let b) = v else {
            throw RuntimeError(.notABool(context: "operand of `not`", got: v.typeName), at: operand.range)
        }
        return !b
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        .bool(try evalCondition(env, fp))
    }
}

/// `and` / `or`: both operands must be bools; the right one is evaluated only when needed.
final class LogicalNode: ExprNode {
    let isAnd: Bool
    let lhs: ExprNode, rhs: ExprNode
    init(isAnd: Bool, _ lhs: ExprNode, _ rhs: ExprNode, range: SourceRange) {
        self.isAnd = isAnd
        self.lhs = lhs
        self.rhs = rhs
        super.init(range: range)
    }
    private func operand(_ node: ExprNode, _ env: Environment, _ fp: Frame) throws(RuntimeError) -> Bool {
        let v = try node.eval(env, fp)
        guard case .bool(let b) = v else {
            throw RuntimeError(
                .notABool(context: "operand of `\(isAnd ? "and" : "or")`", got: v.typeName), at: node.range)
        }
        return b
    }
    override func evalCondition(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Bool {
        let l = try operand(lhs, env, fp)
        if isAnd ? !l : l { return l }
        return try operand(rhs, env, fp)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        .bool(try evalCondition(env, fp))
    }
}

/// Binary arithmetic and comparison. `+`, `-` and `<` are the hot ones, with an unboxed path.
final class BinaryNode: ExprNode {
    let op: BinaryOperator
    let lhs: ExprNode, rhs: ExprNode
    init(_ op: BinaryOperator, _ lhs: ExprNode, _ rhs: ExprNode, range: SourceRange) {
        self.op = op
        self.lhs = lhs
        self.rhs = rhs
        super.init(range: range)
    }

    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        let a = try lhs.eval(env, fp)
        let b = try rhs.eval(env, fp)
        if case .int(let x) = a, case .int(let y) = b {
            switch op {
            case .add:
                let (r, o) = x.addingReportingOverflow(y)
                if !o { return .int(r) }
            case .subtract:
                let (r, o) = x.subtractingReportingOverflow(y)
                if !o { return .int(r) }
            case .less: return .bool(x < y)
            case .lessOrEqual: return .bool(x <= y)
            case .greater: return .bool(x > y)
            case .greaterOrEqual: return .bool(x >= y)
            case .equal: return .bool(x == y)
            case .notEqual: return .bool(x != y)
            default: break
            }
        }
        return try BinaryNode.apply(op, a, b, range: range)
    }

    override func evalCondition(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Bool {
        let a = try lhs.eval(env, fp)
        let b = try rhs.eval(env, fp)
        if case .int(let x) = a, case .int(let y) = b {
            switch op {
            case .less: return x < y
            case .lessOrEqual: return x <= y
            case .greater: return x > y
            case .greaterOrEqual: return x >= y
            case .equal: return x == y
            case .notEqual: return x != y
            default: break
            }
        }
        let v = try BinaryNode.apply(op, a, b, range: range)
        if case .bool(let r) = v { return r }
        throw RuntimeError(.notABool(context: "condition", got: v.typeName), at: range)
    }

    /// The general case of every binary operator except `and`/`or`.
    static func apply(_ op: BinaryOperator, _ a: Value, _ b: Value, range: SourceRange) throws(RuntimeError) -> Value {
        func mismatch() -> RuntimeError {
            RuntimeError(.invalidOperands(op: op.rawValue, left: a.typeName, right: b.typeName), at: range)
        }
        func arith(_ f: (Value, Value) throws(Value.ArithmeticError) -> Value) throws(RuntimeError) -> Value {
            do { return try f(a, b) } catch {
                switch error {
                case .divisionByZero: throw RuntimeError(.divisionByZero, at: range)
                case .notIntegers: throw mismatch()
                }
            }
        }
        switch op {
        case .add:
            switch (a, b) {
            case (.string(let x), .string(let y)): return .string(x + y)
            case (.list(let x), .list(let y)): return .list(x + y)
            case (.bytes(let x), .bytes(let y)): return .bytes(x + y)
            default: return try arith(Value.add)
            }
        case .subtract: return try arith(Value.subtract)
        case .multiply: return try arith(Value.multiply)
        case .divide: return try arith(Value.divide)
        case .remainder: return try arith(Value.remainder)
        case .equal: return .bool(a == b)
        case .notEqual: return .bool(a != b)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let c: Int
            switch (a, b) {
            case (.string(let x), .string(let y)): c = x < y ? -1 : (x == y ? 0 : 1)
            default:
                do { c = try Value.compareIntegers(a, b) } catch { throw mismatch() }
            }
            switch op {
            case .less: return .bool(c < 0)
            case .lessOrEqual: return .bool(c <= 0)
            case .greater: return .bool(c > 0)
            default: return .bool(c >= 0)
            }
        case .halfOpenRange, .closedRange:
            guard let x = a.bigIntValue, let y = b.bigIntValue else { throw mismatch() }
            return .domain(RangeValue(lower: x, upper: y, isClosed: op == .closedRange))
        case .and, .or:
            fatalError("logical operators are LogicalNode")
        }
    }
}

// MARK: - Fields and elements

final class MemberNode: ExprNode {
    let base: ExprNode
    let name: String
    init(_ base: ExprNode, name: String, range: SourceRange) {
        self.base = base
        self.name = name
        super.init(range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        let value: Value
        do {
            value = try base.eval(env, fp)
        } catch {
            // `card.lee` where `card` is no variable: a command written as a value (looked at only
            // once the base failed, so a field read costs nothing more).
            if let global = base as? GlobalGet, !env.globalDefined[global.slot],
                env.builtinNames.contains(global.name + "." + name)
            {
                throw RuntimeError(.commandAsValue(global.name + "." + name), at: range)
            }
            throw error
        }
        return try MemberNode.read(value, name, range: range)
    }

    static func read(_ v: Value, _ name: String, range: SourceRange) throws(RuntimeError) -> Value {
        switch v {
        case .map(let m):
            if let x = m[name] { return x }
            throw RuntimeError(
                .noSuchField(
                    field: name, type: "map", suggestion: suggestion(for: name, among: m.keys), fields: m.keys),
                at: range)
        case .domain(let d):
            if let x = d.field(name) { return x }
            let fields = d.fields
            if fields.isEmpty { throw RuntimeError(.noFields(field: name, type: d.typeName), at: range) }
            throw RuntimeError(
                .noSuchField(
                    field: name, type: d.typeName,
                    suggestion: suggestion(for: name, among: fields.map(\.name)), fields: fields.map(\.name)), at: range
            )
        default:
            throw RuntimeError(.noFields(field: name, type: v.typeName), at: range)
        }
    }
}

final class IndexNode: ExprNode {
    let base: ExprNode
    let index: ExprNode
    init(_ base: ExprNode, _ index: ExprNode, range: SourceRange) {
        self.base = base
        self.index = index
        super.init(range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        let b = try base.eval(env, fp)
        let i = try index.eval(env, fp)
        switch b {
        case .list(let items):
            return items[try IndexNode.position(i, count: items.count, container: "list", range: index.range)]
        case .bytes(let bytes):
            return .int(
                Int(bytes[try IndexNode.position(i, count: bytes.count, container: "bytes", range: index.range)]))
        case .string(let s):
            let chars = Array(s)
            return .string(
                String(chars[try IndexNode.position(i, count: chars.count, container: "string", range: index.range)]))
        case .map(let m):
            guard case .string(let key) = i else {
                throw RuntimeError(
                    .invalidIndexType(container: "map", expected: "a string", got: i.typeName), at: index.range)
            }
            guard let v = m[key] else { throw RuntimeError(.missingKey(key), at: index.range) }
            return v
        default:
            throw RuntimeError(.notIndexable(type: b.typeName), at: base.range)
        }
    }

    /// Checks an integer index against `count`: no negative indexes, none past the end.
    static func position(_ i: Value, count: Int, container: String, range: SourceRange) throws(RuntimeError) -> Int {
        switch i {
        case .int(let n):
            if n < 0 { throw RuntimeError(.negativeIndex(n), at: range) }
            if n >= count { throw RuntimeError(.indexOutOfRange(index: String(n), count: count), at: range) }
            return n
        case .bigInt(let n):
            if n.sign == .minus { throw RuntimeError(.indexOutOfRange(index: String(n), count: count), at: range) }
            throw RuntimeError(.indexOutOfRange(index: String(n), count: count), at: range)
        default:
            throw RuntimeError(.invalidIndexType(container: container, expected: "an int", got: i.typeName), at: range)
        }
    }
}

// MARK: - Calls

extension Environment {
    /// Calls script function `f` with the arguments of `node` evaluated in the caller's frame
    /// `fp`. Errors raised inside the body get `f`'s source and a frame for this call.
    @inline(__always)
    func call(
        _ f: FunctionValue, _ node: CallNode, _ fp: Frame, range: SourceRange, unit: Unit
    ) throws(RuntimeError) -> Value {
        guard node.argumentCount == f.parameterCount else {
            throw RuntimeError(
                .wrongArgumentCount(function: f.name, expected: f.parameterCount, got: node.argumentCount),
                at: range)
        }
        guard depth < recursionLimit else { throw RuntimeError(.recursionLimit(recursionLimit), at: range) }
        guard nativeStackBase - Environment.stackAddress() < nativeStackBudget else {
            throw RuntimeError(.stackOverflow, at: range)
        }
        let count = f.slotCount
        guard let frame = pushFrame(count) else { throw RuntimeError(.stackOverflow, at: range) }
        // No `defer`s on this path: each one is a call of its own in the optimised build.
        do throws(RuntimeError) {
            try node.storeArguments(into: frame, self, fp)
        } catch {
            popFrame(frame, count)
            throw error
        }
        depth += 1
        var result = Value.null
        do throws(RuntimeError) {
            if f.isExpression {
                result = try f.expression.eval(self, frame)
            } else if try f.body.exec(self, frame) == .returned {
                swap(&result, &returnValue)
            }
        } catch {
            depth -= 1
            popFrame(frame, count)
            var e = error
            if e.source == nil { e.source = f.unit.source }
            e.frames.append(StackFrame(name: f.name, range: range, source: unit.source))
            throw e
        }
        depth -= 1
        popFrame(frame, count)
        return result
    }

    /// Calls builtin `b`: binds arguments against its table entry, asks the host for missing
    /// secrets (or explains how to give them), runs the body and turns its errors into runtime
    /// errors at `range`. `argRanges[i]` is where positional argument `i` was written.
    func callBuiltin(
        _ b: Builtin, _ positional: [Value], _ options: [(String, Value?)], range: SourceRange,
        argRanges: [SourceRange]
    ) throws(RuntimeError) -> Value {
        let bound: CallArguments
        do {
            bound = try b.bind(positional, options: options)
        } catch {
            var at = range
            if case .wrongType(let pos, _, _, _) = error, pos - 1 < argRanges.count { at = argRanges[pos - 1] }
            // `sign mesage "x"`: a first word close to one of the command's subcommands.
            if case .tooMany = error, case .string(let word)? = positional.first {
                let subcommands = builtinNames.filter { $0.hasPrefix(b.name + ".") }.map {
                    String($0.dropFirst(b.name.count + 1))
                }
                if let near = suggestion(for: word, among: subcommands) {
                    throw RuntimeError(.unknownCommand(b.name + " " + word, suggestion: b.name + " " + near), at: range)
                }
            }
            throw RuntimeError(.argument(error, command: b.name), at: at)
        }
        var values = bound.values
        for (i, p) in b.params.enumerated() where p.isSecret && values[p.name] == nil {
            var secret: SecretValue?
            if host.isInteractive {
                do { secret = try host.readSecret(prompt: "\(p.name): ") } catch is PromptInterrupted {
                    throw RuntimeError(.promptCancelled(command: b.name, note: nil), at: range)
                } catch {
                    throw builtinFailure(error, b, at: range)
                }
            }
            guard var s = secret else {
                throw RuntimeError(.secretNotSupplied(command: b.name, parameter: p.name, position: i + 1), at: range)
            }
            if case .secret(let kind?) = p.type, s.kind != kind { s = SecretValue(kind: kind, payload: s.payload) }
            values[p.name] = .secret(s)
        }
        do {
            let arguments = CallArguments(
                command: b.name, values: values, options: bound.options, context: host.context)
            guard let context = host.context else { return try b.body(arguments) }
            return try context.running(b.name) { try b.body(arguments) }
        } catch let e as RuntimeError {
            throw RuntimeError(e.kind, at: range, exitClass: e.exitClass)
        } catch let e as SecretNotSupplied {
            throw RuntimeError(
                .secretNotSupplied(command: b.name, parameter: e.parameter, position: e.position), at: range)
        } catch let e as PromptInterrupted {
            throw RuntimeError(.promptCancelled(command: b.name, note: e.note), at: range)
        } catch {
            throw builtinFailure(error, b, at: range)
        }
    }

    /// The one place an error thrown under builtin `b` becomes a runtime error: an
    /// `IdentifiableError` (every `WalletError` is one) keeps its `id`, its sentence and its
    /// `exitClass`; anything else is `runtime.builtinFailed`, which
    /// `ErrorVocabularyTests` keeps from happening to the wallet modules' errors.
    func builtinFailure(_ error: any Error, _ b: Builtin, at range: SourceRange) -> RuntimeError {
        guard let e = error as? any IdentifiableError else {
            return RuntimeError(.builtin(id: nil, command: b.name, message: String(describing: error)), at: range)
        }
        return RuntimeError(
            .builtin(id: e.id, command: b.name, message: e.rendered(by: b.name)), at: range,
            exitClass: e.exitClass)
    }

    /// Evaluates call arguments for a builtin.
    func evalArguments(_ args: [ExprNode], _ fp: Frame) throws(RuntimeError) -> [Value] {
        var out: [Value] = []
        out.reserveCapacity(args.count)
        for a in args { out.append(try a.eval(self, fp)) }
        return out
    }

    /// Calls `value` (a function) or fails with `runtime.notCallable`.
    func callValue(
        _ value: Value, _ node: CallNode, _ fp: Frame, range: SourceRange, calleeRange: SourceRange,
        unit: Unit
    ) throws(RuntimeError) -> Value {
        guard let f = value.functionValue else {
            throw RuntimeError(.notCallable(type: value.typeName), at: calleeRange)
        }
        return try call(f, node, fp, range: range, unit: unit)
    }
}

/// A call with argument expressions. The first three arguments are also non-optional fields
/// of the node itself: evaluating them from a method of the node needs no retain/release
/// (see `BlockNode.chain`), which is most of the cost of a small script call.
class CallNode: ExprNode {
    let args: [ExprNode]
    let argumentCount: Int
    private let a0: ExprNode, a1: ExprNode, a2: ExprNode
    let unit: Unit
    init(args: [ExprNode], unit: Unit, range: SourceRange) {
        self.args = args
        self.unit = unit
        argumentCount = args.count
        let none = ConstNode(.null, range: range)
        a0 = args.count > 0 ? args[0] : none
        a1 = args.count > 1 ? args[1] : none
        a2 = args.count > 2 ? args[2] : none
        super.init(range: range)
    }
    /// Evaluates the arguments in the caller's frame `fp` into the callee's `frame`.
    @inline(__always)
    final func storeArguments(into frame: Frame, _ env: Environment, _ fp: Frame) throws(RuntimeError) {
        if argumentCount == 0 { return }
        frame[0] = try a0.eval(env, fp)
        if argumentCount == 1 { return }
        frame[1] = try a1.eval(env, fp)
        if argumentCount == 2 { return }
        frame[2] = try a2.eval(env, fp)
        var i = 3
        while i < argumentCount {
            frame[i] = try args[i].eval(env, fp)
            i += 1
        }
    }
}

/// `name(args)` where `name` is not a local: a script function in a global, else a builtin.
final class CallGlobalNode: CallNode {
    let slot: Int
    let name: String
    let nameRange: SourceRange
    let builtin: Builtin?
    init(
        slot: Int, name: String, nameRange: SourceRange, builtin: Builtin?, args: [ExprNode], unit: Unit,
        range: SourceRange
    ) {
        self.slot = slot
        self.name = name
        self.nameRange = nameRange
        self.builtin = builtin
        super.init(args: args, unit: unit, range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        if let f = env.globalFunctions[slot] { return try env.call(f, self, fp, range: range, unit: unit) }
        if env.globalDefined[slot] {
            return try env.callValue(env.globals[slot], self, fp, range: range, calleeRange: nameRange, unit: unit)
        }
        guard let b = builtin else {
            let s = suggestion(for: name, among: env.definedGlobalNames + env.builtinNames)
            throw RuntimeError(.undefinedFunction(name, suggestion: s), at: nameRange)
        }
        return try env.callBuiltin(b, try env.evalArguments(args, fp), [], range: range, argRanges: args.map(\.range))
    }
}

/// `a.b.c(args)` where `a` is not a local and `a.b.c` is a builtin: the builtin unless a global
/// `a` has been declared, in which case the field is called.
final class CallDottedNode: CallNode {
    let rootSlot: Int
    let callee: ExprNode
    let builtin: Builtin
    init(rootSlot: Int, callee: ExprNode, builtin: Builtin, args: [ExprNode], unit: Unit, range: SourceRange) {
        self.rootSlot = rootSlot
        self.callee = callee
        self.builtin = builtin
        super.init(args: args, unit: unit, range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        if env.globalDefined[rootSlot] {
            return try env.callValue(
                try callee.eval(env, fp), self, fp, range: range, calleeRange: callee.range, unit: unit)
        }
        return try env.callBuiltin(
            builtin, try env.evalArguments(args, fp), [], range: range, argRanges: args.map(\.range))
    }
}

/// `expr(args)` for any other callee.
final class CallValueNode: CallNode {
    let callee: ExprNode
    init(callee: ExprNode, args: [ExprNode], unit: Unit, range: SourceRange) {
        self.callee = callee
        super.init(args: args, unit: unit, range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        try env.callValue(try callee.eval(env, fp), self, fp, range: range, calleeRange: callee.range, unit: unit)
    }
}

/// A command: `derive "m/0" --count 5`. Bare words arrive as string constants.
final class CommandNode: ExprNode {
    let name: String
    let nameRange: SourceRange
    let builtin: Builtin?
    let args: [ExprNode]
    let optionNames: [String]
    let optionValues: [ExprNode?]
    init(
        name: String, nameRange: SourceRange, builtin: Builtin?, args: [ExprNode], optionNames: [String],
        optionValues: [ExprNode?], range: SourceRange
    ) {
        self.name = name
        self.nameRange = nameRange
        self.builtin = builtin
        self.args = args
        self.optionNames = optionNames
        self.optionValues = optionValues
        super.init(range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        guard let b = builtin else {
            throw RuntimeError(
                .unknownCommand(name, suggestion: suggestion(for: name, among: env.builtinNames)), at: nameRange)
        }
        let positional = try env.evalArguments(args, fp)
        var options: [(String, Value?)] = []
        for i in optionNames.indices {
            options.append((optionNames[i], try optionValues[i]?.eval(env, fp)))
        }
        return try env.callBuiltin(b, positional, options, range: range, argRanges: args.map(\.range))
    }
}

// MARK: - Operators with an integer constant

/// `x OP k` for an integer constant `k` (`i + 1`, `n < 2`): the constant is not a node, and
/// the machine-integer case needs no boxing. Anything else falls back to `BinaryNode.apply`.
final class IntConstNode: ExprNode {
    let op: BinaryOperator
    let lhs: ExprNode
    let constant: Int
    init(_ op: BinaryOperator, _ lhs: ExprNode, _ constant: Int, range: SourceRange) {
        self.op = op
        self.lhs = lhs
        self.constant = constant
        super.init(range: range)
    }

    /// The operators with a fast path here.
    static func handles(_ op: BinaryOperator) -> Bool {
        switch op {
        case .add, .subtract, .less, .lessOrEqual, .greater, .greaterOrEqual, .equal, .notEqual: true
        default: false
        }
    }

    /// `x OP k` on machine integers, or nil when it overflows (then `BinaryNode.apply` promotes).
    @inline(__always)
    static func fast(_ op: BinaryOperator, _ x: Int, _ k: Int) -> Value? {
        switch op {
        case .add:
            let (r, o) = x.addingReportingOverflow(k)
            return o ? nil : .int(r)
        case .subtract:
            let (r, o) = x.subtractingReportingOverflow(k)
            return o ? nil : .int(r)
        case .less: return .bool(x < k)
        case .lessOrEqual: return .bool(x <= k)
        case .greater: return .bool(x > k)
        case .greaterOrEqual: return .bool(x >= k)
        case .equal: return .bool(x == k)
        case .notEqual: return .bool(x != k)
        default: return nil
        }
    }

    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        let a = try lhs.eval(env, fp)
        if case .int(let x) = a, let r = IntConstNode.fast(op, x, constant) { return r }
        return try BinaryNode.apply(op, a, .int(constant), range: range)
    }

    override func evalCondition(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Bool {
        let a = try lhs.eval(env, fp)
        if case .int(let x) = a, case .bool(let b)? = IntConstNode.fast(op, x, constant) { return b }
        let v = try BinaryNode.apply(op, a, .int(constant), range: range)
        if case .bool(let r) = v { return r }
        throw RuntimeError(.notABool(context: "condition", got: v.typeName), at: range)
    }
}

/// `local OP k` (`n < 2`, `n - 1`): `IntConstNode` with the local read in place.
final class LocalIntConstNode: ExprNode {
    let op: BinaryOperator
    let slot: Int
    let constant: Int
    init(_ op: BinaryOperator, slot: Int, _ constant: Int, range: SourceRange) {
        self.op = op
        self.slot = slot
        self.constant = constant
        super.init(range: range)
    }

    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        if case .int(let x) = fp[slot], let r = IntConstNode.fast(op, x, constant) { return r }
        return try BinaryNode.apply(op, fp[slot], .int(constant), range: range)
    }

    override func evalCondition(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Bool {
        if case .int(let x) = fp[slot], case .bool(let b)? = IntConstNode.fast(op, x, constant) { return b }
        let v = try BinaryNode.apply(op, fp[slot], .int(constant), range: range)
        if case .bool(let r) = v { return r }
        throw RuntimeError(.notABool(context: "condition", got: v.typeName), at: range)
    }
}

/// `condition ? then : otherwise`, made from `if c { return a }` guards before a final
/// `return` (`Compiler.expressionBody`); the condition must be a bool, as for `if`.
final class SelectNode: ExprNode {
    let condition: ExprNode, then: ExprNode, otherwise: ExprNode
    init(condition: ExprNode, then: ExprNode, otherwise: ExprNode, range: SourceRange) {
        self.condition = condition
        self.then = then
        self.otherwise = otherwise
        super.init(range: range)
    }
    override func eval(_ env: Environment, _ fp: Frame) throws(RuntimeError) -> Value {
        if try condition.evalCondition(env, fp) { return try then.eval(env, fp) }
        return try otherwise.eval(env, fp)
    }
}
