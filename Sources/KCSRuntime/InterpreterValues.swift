// Values the interpreter itself creates: ranges, functions and caught errors.
//
// They are `DomainValue`s so the `Value` enum (shared with the builtins) stays as it is:
// `type(x)` shows "range", "function" or "error", and `x.field` reads their fields.
import BigInt
import KCSSyntax

/// `a..<b` or `a...b`: integers, iterated lazily (no list is built).
public struct RangeValue: DomainValue, Equatable {
    /// First integer.
    public let lower: BigInt
    /// Last integer (`...`) or one past it (`..<`).
    public let upper: BigInt
    /// True for `...`.
    public let isClosed: Bool

    public init(lower: BigInt, upper: BigInt, isClosed: Bool) {
        self.lower = lower
        self.upper = upper
        self.isClosed = isClosed
    }

    public var typeName: String { "range" }
    public var text: String { "\(lower)\(isClosed ? "..." : "..<")\(upper)" }

    /// Number of integers in the range (0 when empty).
    public var count: BigInt {
        let n = (isClosed ? upper + 1 : upper) - lower
        return n.sign == .minus ? 0 : n
    }
}

/// A function made by `def`. Compiled once; calling it needs no lookup by name.
///
/// `@unchecked Sendable`: every property is a `let` and the compiled body is never mutated
/// after compilation, so sharing it is safe.
public final class FunctionValue: DomainValue, @unchecked Sendable {
    /// The name after `def`.
    public let name: String
    /// Parameter names, in order.
    public let parameters: [String]
    /// `parameters.count`.
    let parameterCount: Int
    /// Locals (parameters first) in one frame.
    let slotCount: Int
    /// The body, resolved to slots.
    let body: StmtNode
    /// The source the body came from (for error positions).
    let unit: Unit

    /// The body as one expression when it is only guard returns and a final return
    /// (`Compiler.expressionBody`); `isExpression` says whether `expression` is it. Not
    /// optional, so a call reads it without retain/release.
    let expression: ExprNode
    let isExpression: Bool

    init(name: String, parameters: [String], slotCount: Int, body: StmtNode, expression: ExprNode? = nil, unit: Unit) {
        self.expression = expression ?? ConstNode(.null, range: body.range)
        isExpression = expression != nil
        self.name = name
        self.parameters = parameters
        parameterCount = parameters.count
        self.slotCount = slotCount
        self.body = body
        self.unit = unit
    }

    public var typeName: String { "function" }
    public var text: String { "def \(name)(\(parameters.joined(separator: ", ")))" }
}

/// The value `try … catch e` binds: fields `kind` (the error ID), `message`, `file`, `line`,
/// `column`, `position` (`file:line:col`) and `hint` (nil when none).
public struct ErrorValue: DomainValue {
    /// The error caught.
    public let error: RuntimeError

    public init(_ error: RuntimeError) { self.error = error }

    public var typeName: String { "error" }
    public var text: String {
        let loc = error.location
        return "\(error.fileName):\(loc.line):\(loc.column): \(error.message)"
    }
    public var fields: [(name: String, value: Value)] {
        let loc = error.location
        return [
            ("kind", .string(error.id)),
            ("message", .string(error.message)),
            ("file", .string(error.fileName)),
            ("line", .int(loc.line)),
            ("column", .int(loc.column)),
            ("position", .string("\(error.fileName):\(loc.line):\(loc.column)")),
            ("hint", error.hint.map(Value.string) ?? .null),
        ]
    }
}

/// One compiled source (a script, a REPL line, a module): what error positions refer to.
final class Unit: Sendable {
    let source: Source
    init(source: Source) { self.source = source }
}

// MARK: - Helpers on Value used by the interpreter

extension Value {
    /// The value as a condition: only booleans are conditions (docs/language.md §5).
    @inline(__always)
    var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// A function value, if this is one.
    var functionValue: FunctionValue? {
        if case .domain(let d) = self { return d as? FunctionValue }
        return nil
    }
}
