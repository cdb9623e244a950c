// A stable text form of the AST, for `kcs parse FILE` and for golden tests.
//
// One node per line, children indented by two spaces, S-expression parentheses, and the start
// of each node as `@line:col`. Example for `let x = 1 + 2`:
//
//     (program demo.kcs
//       (let x @1:1
//         (binary + @1:9
//           (integer 1 @1:9)
//           (integer 2 @1:13))))
//
// The format is part of the contract (tests compare it verbatim); change it deliberately.
import Foundation

/// Prints a `Program` (or one statement or expression) in the stable text form above.
public struct ASTPrinter {
    private let lines: LineTable
    private var out: [String] = []
    private var indent = 0

    private init(source: Source) {
        lines = LineTable(source)
    }

    /// The whole program, ending in a newline.
    public static func print(_ program: Program) -> String {
        var p = ASTPrinter(source: program.source)
        p.open("program \(program.source.name)", nil)
        for s in program.statements { p.statement(s) }
        p.close()
        return p.out.joined(separator: "\n") + "\n"
    }

    /// One statement of `source`, ending in a newline.
    public static func print(_ statement: Stmt, source: Source) -> String {
        var p = ASTPrinter(source: source)
        p.statement(statement)
        return p.out.joined(separator: "\n") + "\n"
    }

    /// One expression of `source`, ending in a newline.
    public static func print(_ expression: Expr, source: Source) -> String {
        var p = ASTPrinter(source: source)
        p.expression(expression)
        return p.out.joined(separator: "\n") + "\n"
    }

    // MARK: - Lines

    private mutating func open(_ header: String, _ range: SourceRange?) {
        var line = String(repeating: "  ", count: indent) + "(" + header
        if let range { line += " @\(lines.location(of: range.start))" }
        out.append(line)
        indent += 1
    }

    private mutating func close() {
        indent -= 1
        out[out.count - 1] += ")"
    }

    private mutating func leaf(_ header: String, _ range: SourceRange) {
        open(header, range)
        close()
    }

    // MARK: - Nodes

    private mutating func block(_ b: Block) {
        open("block", b.range)
        for s in b.statements { statement(s) }
        close()
    }

    private mutating func statement(_ s: Stmt) {
        switch s.kind {
        case .letBinding(let name, let value):
            open("let \(name.name)", s.range)
            expression(value)
        case .assignment(let target, let value):
            open("assign", s.range)
            expression(target)
            expression(value)
        case .ifElse(let branches, let elseBlock):
            open("if", s.range)
            for b in branches {
                open("branch", b.condition.range)
                expression(b.condition)
                block(b.body)
                close()
            }
            if let elseBlock {
                open("else", elseBlock.range)
                block(elseBlock)
                close()
            }
        case .forIn(let variable, let sequence, let body):
            open("for \(variable.name)", s.range)
            expression(sequence)
            block(body)
        case .whileLoop(let condition, let body):
            open("while", s.range)
            expression(condition)
            block(body)
        case .breakLoop:
            open("break", s.range)
        case .continueLoop:
            open("continue", s.range)
        case .function(let name, let parameters, let body):
            open("def \(name.name) (\(parameters.map(\.name).joined(separator: " ")))", s.range)
            block(body)
        case .returnValue(let value):
            open("return", s.range)
            if let value { expression(value) }
        case .tryCatch(let body, let errorName, let handler):
            open("try", s.range)
            block(body)
            open("catch \(errorName.name)", errorName.range)
            block(handler)
            close()
        case .assertion(let condition, let message):
            open("assert", s.range)
            expression(condition)
            if let message { expression(message) }
        case .print(let values):
            open("print", s.range)
            for v in values { expression(v) }
        case .use(let module):
            open("use \(quoted(module))", s.range)
        case .command(let c):
            command(c)
            return
        case .expression(let e):
            open("expr", s.range)
            expression(e)
        }
        close()
    }

    private mutating func command(_ c: Command) {
        open("command \(c.name)", c.range)
        for a in c.arguments { argument(a) }
        for o in c.options {
            if let value = o.value {
                open("option \(o.name)", o.range)
                argument(value)
                close()
            } else {
                leaf("flag \(o.name)", o.range)
            }
        }
        close()
    }

    private mutating func argument(_ a: CommandArgument) {
        switch a {
        case .expression(let e): expression(e)
        case .word(let w, let r): leaf("word \(quoted(w))", r)
        }
    }

    private mutating func expression(_ e: Expr) {
        switch e.kind {
        case .integer(let digits): leaf("integer \(digits)", e.range)
        case .bytes(let b): leaf("bytes 0x" + b.map { String($0, radix: 16).leftPadded(2) }.joined(), e.range)
        case .string(let parts):
            if parts.count == 1, case .text(let s, _) = parts[0] {
                leaf("string \(quoted(s))", e.range)
                return
            }
            open("string", e.range)
            for part in parts {
                switch part {
                case .text(let s, let r): leaf("text \(quoted(s))", r)
                case .interpolation(let inner): expression(inner)
                }
            }
            close()
        case .boolean(let b): leaf(b ? "true" : "false", e.range)
        case .nil: leaf("nil", e.range)
        case .list(let items):
            open("list", e.range)
            for i in items { expression(i) }
            close()
        case .map(let entries):
            open("map", e.range)
            for entry in entries {
                open("entry", entry.key.range)
                expression(entry.key)
                expression(entry.value)
                close()
            }
            close()
        case .identifier(let name): leaf("name \(name)", e.range)
        case .unary(let op, let operand):
            open("unary \(op.rawValue)", e.range)
            expression(operand)
            close()
        case .binary(let op, let lhs, let rhs):
            open("binary \(op.rawValue)", e.range)
            expression(lhs)
            expression(rhs)
            close()
        case .call(let callee, let arguments):
            open("call", e.range)
            expression(callee)
            for a in arguments { expression(a) }
            close()
        case .member(let base, let name):
            open("member \(name.name)", e.range)
            expression(base)
            close()
        case .index(let base, let index):
            open("index", e.range)
            expression(base)
            expression(index)
            close()
        case .command(let c): command(c)
        }
    }

    /// A string in double quotes with `\` `"` `{` and control characters escaped.
    private func quoted(_ s: String) -> String {
        var r = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\\": r += "\\\\"
            case "\"": r += "\\\""
            case "{": r += "\\{"
            case "\n": r += "\\n"
            case "\t": r += "\\t"
            case _ where u.value < 0x20 || u.value == 0x7F: r += "\\u{\(String(u.value, radix: 16))}"
            default: r.unicodeScalars.append(u)
            }
        }
        return r + "\""
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
