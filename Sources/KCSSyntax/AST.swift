// The abstract syntax tree.
//
// Each node is a small struct holding a `range` and a `kind`, where the kind is an
// `indirect enum`. The tree only ever holds what parsed; a statement with an error is left
// out, and its diagnostic says why.
import Foundation

/// A parsed source: its statements in order.
public struct Program: Sendable, Equatable {
    /// The text the program came from; ranges in the tree index it.
    public let source: Source
    /// Top-level statements.
    public var statements: [Stmt]

    /// Creates a program.
    public init(source: Source, statements: [Stmt]) {
        self.source = source
        self.statements = statements
    }
}

/// A name as written, with its range (variables, parameters, fields).
public struct Identifier: Sendable, Equatable {
    /// The name.
    public var name: String
    /// Where it was written.
    public var range: SourceRange

    /// Creates an identifier.
    public init(_ name: String, range: SourceRange) {
        self.name = name
        self.range = range
    }
}

/// `{ statements }`.
public struct Block: Sendable, Equatable {
    /// The statements inside the braces.
    public var statements: [Stmt]
    /// From `{` to `}` inclusive.
    public var range: SourceRange

    /// Creates a block.
    public init(_ statements: [Stmt], range: SourceRange) {
        self.statements = statements
        self.range = range
    }
}

// MARK: - Statements

/// A statement and its range.
public struct Stmt: Sendable, Equatable {
    /// What kind of statement.
    public var kind: Kind
    /// From its first to its last token.
    public var range: SourceRange

    /// Creates a statement.
    public init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }

    /// The statements of the language.
    public indirect enum Kind: Sendable, Equatable {
        /// `let name = value`; a new variable in the current scope.
        case letBinding(Identifier, value: Expr)
        /// `target = value`; target is an identifier, a member or an index expression.
        case assignment(target: Expr, value: Expr)
        /// `if c { } else if c { } else { }`: the `if` and `else if` arms in order, then `else`.
        case ifElse(branches: [ConditionalBranch], elseBlock: Block?)
        /// `for variable in sequence { body }`.
        case forIn(variable: Identifier, sequence: Expr, body: Block)
        /// `while condition { body }`.
        case whileLoop(condition: Expr, body: Block)
        /// `break`.
        case breakLoop
        /// `continue`.
        case continueLoop
        /// `def name(parameters) { body }`.
        case function(name: Identifier, parameters: [Identifier], body: Block)
        /// `return` or `return value`.
        case returnValue(Expr?)
        /// `try { body } catch error { handler }`.
        case tryCatch(body: Block, errorName: Identifier, handler: Block)
        /// `assert condition` or `assert condition, message`.
        case assertion(condition: Expr, message: Expr?)
        /// `print a, b, …` (no values prints an empty line).
        case print([Expr])
        /// `use "name"`.
        case use(module: String)
        /// A command on its own: `card.pair`, `keystore load wallet.json`.
        case command(Command)
        /// Any other expression, evaluated for its value (shown at the REPL).
        case expression(Expr)
    }
}

/// One `if`/`else if` arm.
public struct ConditionalBranch: Sendable, Equatable {
    /// The condition.
    public var condition: Expr
    /// What runs when it holds.
    public var body: Block

    /// Creates an arm.
    public init(condition: Expr, body: Block) {
        self.condition = condition
        self.body = body
    }
}

// MARK: - Commands

/// A command invocation: a name, positional arguments and options.
public struct Command: Sendable, Equatable {
    /// The full dotted name: `card.pair`; `keystore load` gives `keystore.load`.
    public var name: String
    /// Where the name was written (both words for `keystore load`).
    public var nameRange: SourceRange
    /// Positional arguments, in order.
    public var arguments: [CommandArgument]
    /// `--name value` and `--flag` options, in order.
    public var options: [CommandOption]
    /// From the name to the last argument.
    public var range: SourceRange

    /// Creates a command.
    public init(
        name: String, nameRange: SourceRange, arguments: [CommandArgument], options: [CommandOption], range: SourceRange
    ) {
        self.name = name
        self.nameRange = nameRange
        self.arguments = arguments
        self.options = options
        self.range = range
    }
}

/// One command argument (or option value).
public enum CommandArgument: Sendable, Equatable {
    /// A literal, a `(expression)`, or a `$variable`.
    case expression(Expr)
    /// A bare word, taken as a string: `wallet.json`, `metamask`, `m/44'/0'`.
    case word(String, range: SourceRange)

    /// Where the argument was written.
    public var range: SourceRange {
        switch self {
        case .expression(let e): e.range
        case .word(_, let r): r
        }
    }
}

/// `--name value` or `--flag`.
public struct CommandOption: Sendable, Equatable {
    /// The name without dashes.
    public var name: String
    /// The value; nil for a flag.
    public var value: CommandArgument?
    /// From `--` to the end of the value.
    public var range: SourceRange

    /// Creates an option.
    public init(name: String, value: CommandArgument?, range: SourceRange) {
        self.name = name
        self.value = value
        self.range = range
    }
}

// MARK: - Expressions

/// An expression and its range.
public struct Expr: Sendable, Equatable {
    /// What kind of expression.
    public var kind: Kind
    /// From its first to its last token.
    public var range: SourceRange

    /// Creates an expression.
    public init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }

    /// The expressions of the language.
    public indirect enum Kind: Sendable, Equatable {
        /// A decimal integer of any size, as its digits (no sign, no `_`).
        case integer(String)
        /// `0x…` bytes.
        case bytes([UInt8])
        /// A string: text pieces and `{expr}` interpolations in order.
        case string([StringPart])
        /// `true` or `false`.
        case boolean(Bool)
        /// `nil`.
        case `nil`
        /// `[a, b]`.
        case list([Expr])
        /// `{"k": v}`.
        case map([MapEntry])
        /// A variable or function name.
        case identifier(String)
        /// `-x`, `not x`.
        case unary(UnaryOperator, Expr)
        /// `a + b`, `a and b`, `a..<b`, ….
        case binary(BinaryOperator, Expr, Expr)
        /// `f(a, b)`.
        case call(callee: Expr, arguments: [Expr])
        /// `x.name`.
        case member(Expr, Identifier)
        /// `x[i]`.
        case index(Expr, Expr)
        /// A command used for its value: `let k = derive "m/0"`.
        case command(Command)
    }
}

/// One piece of a string literal.
public enum StringPart: Sendable, Equatable {
    /// Literal text, escapes resolved.
    case text(String, range: SourceRange)
    /// `{expr}`.
    case interpolation(Expr)
}

/// `key: value` in a map literal.
public struct MapEntry: Sendable, Equatable {
    /// The key expression.
    public var key: Expr
    /// The value expression.
    public var value: Expr

    /// Creates an entry.
    public init(key: Expr, value: Expr) {
        self.key = key
        self.value = value
    }
}

/// Prefix operators.
public enum UnaryOperator: String, Sendable, Equatable {
    case negate = "-"
    case not = "not"
}

/// Infix operators, spelled as in source.
public enum BinaryOperator: String, Sendable, Equatable {
    case or, and
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case halfOpenRange = "..<", closedRange = "..."
    case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
}
