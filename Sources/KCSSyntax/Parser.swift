// The parser: tokens to AST, recursive descent, with recovery at statement boundaries.
//
// Shape of the loop (see docs/language.md for the grammar):
// - A statement that fails throws `ParseAbort` up to the statement loop, which skips to the
//   next newline, `;` or `}` ("synchronises") and carries on, so one pass finds many errors.
// - At most one diagnostic is kept per statement; the first is nearly always the useful one.
//   "Unexpected end of input" is the exception: it is always kept (once), because the REPL
//   looks for its ID to decide whether to ask for another line.
// - Every loop consumes a token or stops; the statement loop forces progress if a statement
//   consumed nothing, so no input can make the parser spin.
import Foundation

/// Thrown inside the parser when a statement cannot be parsed; the diagnostic is already
/// recorded. Never escapes `Parser.parse`.
struct ParseAbort: Error {}

/// Parses a `Source` into a `Program`, collecting diagnostics instead of stopping at the first.
public struct Parser {
    /// Parses `source`. Commands are recognised by the names in `commands`.
    ///
    /// Never fails and never traps: statements with errors are left out of `program` and each
    /// is explained by one entry of `diagnostics`, in source order.
    public static func parse(
        source: Source, commands: CommandTable = .empty
    ) -> (program: Program, diagnostics: [Diagnostic]) {
        if let bad = source.invalidUTF8 {
            // Replacement characters would run as if they were the text: refuse the whole source.
            return (
                Program(source: source, statements: []),
                [Diagnostic(.invalidUTF8(byte: source.invalidUTF8Byte ?? 0), at: SourceRange(start: bad, end: bad + 3))]
            )
        }
        var parser = Parser(source: source, commands: commands)
        let statements = parser.parseStatements(inBlock: false)
        return (Program(source: source, statements: statements), parser.diagnostics)
    }

    /// How deep expressions and blocks may nest before the parser refuses (protects the stack).
    public static let nestingLimit = 128

    private let source: Source
    private let commands: CommandTable
    private var lexer: Lexer
    /// One token of lookahead, fetched lazily so the lexer can switch mode after a command name.
    private var current: Token?
    /// Tokens consumed so far; the statement loop compares it to guarantee progress.
    private var consumed = 0
    private var diagnostics: [Diagnostic] = []
    private var statementHasError = false
    private var reportedEndOfInput = false
    /// Open `(`, `[` and map `{`: inside them line breaks are blanks.
    private var nesting = 0
    /// Recursion depth of expressions and blocks.
    private var depth = 0
    private var loopDepth = 0
    private var functionDepth = 0
    /// Set while parsing the condition of `if`/`while`/`for`, where `{` starts the body.
    private var noMapLiteral = false
    private var interpolationDepth = 0

    private init(source: Source, commands: CommandTable) {
        self.source = source
        self.commands = commands
        self.lexer = Lexer(source: source)
    }

    // MARK: - Tokens

    private mutating func peek() -> Token {
        if let t = current { return t }
        var t = lexer.next()
        drainLexer()
        while nesting > 0, t.kind == .newline {
            t = lexer.next()
            drainLexer()
        }
        current = t
        return t
    }

    @discardableResult
    private mutating func advance() -> Token {
        let t = peek()
        if t.kind != .endOfInput {
            current = nil
            consumed += 1
        }
        return t
    }

    private mutating func check(_ kind: TokenKind) -> Bool { peek().kind == kind }

    private mutating func match(_ kind: TokenKind) -> Bool {
        guard check(kind) else { return false }
        advance()
        return true
    }

    private mutating func expect(_ kind: TokenKind, _ what: String) throws(ParseAbort) -> Token {
        let t = peek()
        guard t.kind == kind else { throw fail(expected: what, at: t) }
        return advance()
    }

    /// Line breaks after a binary operator, `,` or `=` continue the statement.
    private mutating func skipNewlines() {
        while check(.newline) { advance() }
    }

    private mutating func drainLexer() {
        for d in lexer.diagnostics { report(d) }
        lexer.diagnostics.removeAll()
    }

    private func isTerminator(_ kind: TokenKind) -> Bool {
        switch kind {
        case .newline, .semicolon, .rightBrace, .endOfInput: true
        default: false
        }
    }

    // MARK: - Diagnostics

    private mutating func report(_ d: Diagnostic) {
        if d.id == "parse.unexpectedEndOfInput" {
            statementHasError = true
            guard !reportedEndOfInput else { return }
            reportedEndOfInput = true
            diagnostics.append(d)
            return
        }
        guard !statementHasError else { return }
        statementHasError = true
        diagnostics.append(d)
    }

    private mutating func report(_ kind: DiagnosticKind, _ range: SourceRange) {
        report(Diagnostic(kind, at: range))
    }

    /// Records "expected …" for `token` and returns the abort to throw.
    private mutating func fail(expected: String, at token: Token) -> ParseAbort {
        switch token.kind {
        case .invalid:
            break  // the lexer has explained it
        case .endOfInput where interpolationDepth == 0:
            report(.unexpectedEndOfInput(expected: expected), token.range)
        case .endOfInput:
            report(
                .unexpectedToken(expected: expected, found: "`}`"), SourceRange(start: lexer.end, end: lexer.end + 1))
        default:
            report(.unexpectedToken(expected: expected, found: token.kind.display), token.range)
        }
        return ParseAbort()
    }

    private mutating func enter(_ range: SourceRange) throws(ParseAbort) {
        depth += 1
        if depth > Parser.nestingLimit {
            report(.nestingTooDeep(limit: Parser.nestingLimit), range)
            depth -= 1
            throw ParseAbort()
        }
    }

    // MARK: - Statement lists

    private mutating func parseStatements(inBlock: Bool) -> [Stmt] {
        var statements: [Stmt] = []
        while true {
            statementHasError = false
            while check(.newline) || check(.semicolon) { advance() }
            let t = peek()
            if t.kind == .endOfInput { return statements }
            if t.kind == .rightBrace {
                if inBlock { return statements }
                report(.unexpectedToken(expected: "a statement", found: "`}`"), t.range)
                advance()
                continue
            }
            let before = consumed
            let saved = (nesting, depth, noMapLiteral)
            do {
                let s = try parseStatement()
                let end = peek()
                guard isTerminator(end.kind) else {
                    // `prnt 1`, `improt mnemonic …`: a mistyped first word reads as a variable
                    // followed by more; name the command or keyword it is close to instead.
                    if case .expression(let e) = s.kind, case .identifier(let word) = e.kind,
                        let near = Parser.statementWordSuggestion(for: word, commands: commands)
                    {
                        report(.unknownCommand(word, suggestion: near), e.range)
                        throw ParseAbort()
                    }
                    throw fail(expected: "end of statement", at: end)
                }
                statements.append(s)
            } catch {
                (nesting, depth, noMapLiteral) = saved
                synchronize()
            }
            if consumed == before, peek().kind != .endOfInput, !(inBlock && check(.rightBrace)) { advance() }
        }
    }

    /// The command or statement keyword (`print`, `let`, `use`, …) closest to `word`, when a
    /// statement starts with `word` and it is not a name the program could mean.
    static func statementWordSuggestion(for word: String, commands: CommandTable) -> String? {
        let keywords: [Keyword] = [.let, .if, .for, .while, .def, .return, .try, .assert, .print, .use]
        let firstWords = commands.commands.filter { !$0.contains(".") } + commands.namespaces
        return suggestion(for: word, among: firstWords + keywords.map(\.rawValue))
    }

    /// Skips to the next statement boundary (not consuming it). Braces opened while skipping
    /// are skipped whole, so `if m == {"a": 1} { … }` gives one error, not a second one for
    /// the `}` that closes a block the parser never entered.
    private mutating func synchronize() {
        var open = 0
        while true {
            let kind = peek().kind
            switch kind {
            case .endOfInput: return
            case .leftBrace: open += 1
            case .rightBrace:
                if open == 0 { return }
                open -= 1
            case .newline, .semicolon:
                if open == 0 { return }
            default: break
            }
            advance()
        }
    }

    private mutating func parseBlock() throws(ParseAbort) -> Block {
        let open = try expect(.leftBrace, "`{`")
        try enter(open.range)
        defer { depth -= 1 }
        let outerHadError = statementHasError
        let statements = parseStatements(inBlock: true)
        statementHasError = outerHadError
        let close = try expect(.rightBrace, "`}`")
        return Block(statements, range: open.range.union(close.range))
    }

    private mutating func parseLoopBody() throws(ParseAbort) -> Block {
        loopDepth += 1
        defer { loopDepth -= 1 }
        return try parseBlock()
    }

    // MARK: - Statements

    private mutating func parseStatement() throws(ParseAbort) -> Stmt {
        let t = peek()
        let start = t.range
        switch t.kind {
        case .keyword(.let):
            advance()
            let name = try parseIdentifier("a variable name")
            _ = try expect(.equal, "`=`")
            skipNewlines()
            let value = try parseValue()
            return Stmt(.letBinding(name, value: value), range: start.union(value.range))
        case .keyword(.if):
            return try parseIf()
        case .keyword(.for):
            advance()
            let variable = try parseIdentifier("a loop variable name")
            _ = try expect(.keyword(.in), "`in`")
            let sequence = try parseCondition()
            let body = try parseLoopBody()
            return Stmt(.forIn(variable: variable, sequence: sequence, body: body), range: start.union(body.range))
        case .keyword(.while):
            advance()
            let condition = try parseCondition()
            let body = try parseLoopBody()
            return Stmt(.whileLoop(condition: condition, body: body), range: start.union(body.range))
        case .keyword(let k) where k == .break || k == .continue:
            advance()
            if loopDepth == 0 { report(.outsideLoop(keyword: k.rawValue), t.range) }
            return Stmt(k == .break ? .breakLoop : .continueLoop, range: start)
        case .keyword(.def):
            return try parseFunction()
        case .keyword(.return):
            advance()
            if functionDepth == 0 { report(.returnOutsideFunction, t.range) }
            if isTerminator(peek().kind) { return Stmt(.returnValue(nil), range: start) }
            let value = try parseValue()
            return Stmt(.returnValue(value), range: start.union(value.range))
        case .keyword(.try):
            advance()
            let body = try parseBlock()
            _ = try expect(.keyword(.catch), "`catch`")
            let name = try parseIdentifier("a name for the error")
            let handler = try parseBlock()
            return Stmt(.tryCatch(body: body, errorName: name, handler: handler), range: start.union(handler.range))
        case .keyword(.assert):
            advance()
            let condition = try parseExpression()
            var message: Expr?
            if match(.comma) {
                skipNewlines()
                message = try parseExpression()
            }
            return Stmt(
                .assertion(condition: condition, message: message), range: start.union((message ?? condition).range))
        case .keyword(.print):
            advance()
            var values: [Expr] = []
            if !isTerminator(peek().kind) {
                repeat {
                    skipNewlines()
                    values.append(try parseExpression())
                } while match(.comma)
            }
            return Stmt(.print(values), range: values.last.map { start.union($0.range) } ?? start)
        case .keyword(.use)
        where word(after: start.end).map({ commands.contains("use." + source.text(in: $0)) }) == true:
            // `use key NAME`: the namespace word `use` with a verb, not a module.
            let command = try parseCommand(nested: false)
            return Stmt(.command(command), range: command.range)
        case .keyword(.use):
            advance()
            let name = peek()
            guard case .string(let segments) = name.kind else {
                throw fail(expected: "a module name in quotes", at: name)
            }
            advance()
            guard segments.count == 1, case .text(let module, _) = segments[0] else {
                report(.interpolatedUse, name.range)
                throw ParseAbort()
            }
            return Stmt(.use(module: module), range: start.union(name.range))
        case .identifier(let word) where startsCommand(word):
            let command = try parseCommand(nested: false)
            return Stmt(.command(command), range: command.range)
        default:
            let expr = try parseExpression()
            guard check(.equal) else { return Stmt(.expression(expr), range: expr.range) }
            switch expr.kind {
            case .identifier, .member, .index: break
            default:
                report(.invalidAssignmentTarget, expr.range)
                throw ParseAbort()
            }
            advance()
            skipNewlines()
            let value = try parseValue()
            return Stmt(.assignment(target: expr, value: value), range: start.union(value.range))
        }
    }

    private mutating func parseIf() throws(ParseAbort) -> Stmt {
        let start = advance().range
        var branches = [ConditionalBranch(condition: try parseCondition(), body: try parseBlock())]
        var elseBlock: Block?
        while match(.keyword(.else)) {
            if match(.keyword(.if)) {
                branches.append(ConditionalBranch(condition: try parseCondition(), body: try parseBlock()))
            } else {
                elseBlock = try parseBlock()
                break
            }
        }
        let end = elseBlock?.range ?? branches.last!.body.range
        return Stmt(.ifElse(branches: branches, elseBlock: elseBlock), range: start.union(end))
    }

    private mutating func parseFunction() throws(ParseAbort) -> Stmt {
        let start = advance().range
        let name = try parseIdentifier("a function name")
        _ = try expect(.leftParen, "`(`")
        var parameters: [Identifier] = []
        do {
            nesting += 1
            defer { nesting -= 1 }
            while !check(.rightParen) {
                let p = try parseIdentifier("a parameter name")
                if parameters.contains(where: { $0.name == p.name }) { report(.duplicateParameter(p.name), p.range) }
                parameters.append(p)
                if !match(.comma) { break }
            }
            _ = try expect(.rightParen, "`,` or `)`")
        }
        // A function body is not inside the loop around the `def`.
        let savedLoops = loopDepth
        loopDepth = 0
        functionDepth += 1
        defer {
            loopDepth = savedLoops
            functionDepth -= 1
        }
        let body = try parseBlock()
        return Stmt(.function(name: name, parameters: parameters, body: body), range: start.union(body.range))
    }

    private mutating func parseIdentifier(_ what: String) throws(ParseAbort) -> Identifier {
        let t = peek()
        guard case .identifier(let name) = t.kind else { throw fail(expected: what, at: t) }
        advance()
        return Identifier(name, range: t.range)
    }

    /// Where the identifier written after blanks from byte `offset` stands, if there is one
    /// (one-line lookahead: `use key`, `keystore load`).
    private func word(after offset: Int) -> SourceRange? {
        let bytes = source.utf8
        var i = offset
        while i < bytes.count, bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t") { i += 1 }
        guard i > offset, i < bytes.count, isIdentifierStart(bytes[i]) else { return nil }
        var j = i
        while j < bytes.count, isIdentifierByte(bytes[j]) { j += 1 }
        return SourceRange(start: i, end: j)
    }

    /// True when the current identifier `word` begins a command: it is a command or namespace
    /// word and is not written as a call (`len(x)`, `append(list, v)`: a `(` right after the
    /// name, with no space, makes it a function call in expression syntax).
    private mutating func startsCommand(_ word: String) -> Bool {
        guard commands.startsCommand(word) else { return false }
        // `name(…)` and `a.b.c(…)` right after the dotted name are calls, not commands.
        var end = peek().range.end
        let bytes = source.utf8
        while end + 1 < bytes.count, bytes[end] == UInt8(ascii: "."), isIdentifierStart(bytes[end + 1]) {
            end += 1
            while end < bytes.count, isIdentifierByte(bytes[end]) { end += 1 }
        }
        return !(end < bytes.count && bytes[end] == UInt8(ascii: "("))
    }

    /// The right side of `let x =`, `x =` and `return`: a command or an expression.
    private mutating func parseValue() throws(ParseAbort) -> Expr {
        if case .identifier(let word) = peek().kind, startsCommand(word) {
            let command = try parseCommand(nested: false)
            return Expr(.command(command), range: command.range)
        }
        return try parseExpression()
    }

    // MARK: - Commands

    /// Parses a command whose first word is the current token. The name is read from the raw
    /// text (so `card.pair` must be written without blanks), then the arguments are lexed in
    /// command-argument mode up to the end of the statement (or the `)` when `nested`).
    private mutating func parseCommand(nested: Bool) throws(ParseAbort) -> Command {
        let first = peek()
        let bytes = source.utf8
        func wordEnd(_ from: Int) -> Int {
            var i = from
            while i < bytes.count, isIdentifierByte(bytes[i]) { i += 1 }
            return i
        }
        // `vault.change-passphrase`: a `-word` continues the name when the longer name (after
        // `prefix`, the namespace of a verb written apart) is a command.
        func hyphenated(_ start: Int, _ end: Int, prefix: String = "") -> Int {
            var end = end
            while end + 1 < bytes.count, bytes[end] == UInt8(ascii: "-"), isIdentifierStart(bytes[end + 1]) {
                let longer = wordEnd(end + 1)
                let text = source.text(in: SourceRange(start: start, end: longer))
                guard commands.contains(prefix + text) else { break }
                end = longer
            }
            return end
        }
        var nameEnd = wordEnd(first.range.start)
        while nameEnd + 1 < bytes.count, bytes[nameEnd] == UInt8(ascii: "."), isIdentifierStart(bytes[nameEnd + 1]) {
            nameEnd = wordEnd(nameEnd + 1)
        }
        nameEnd = hyphenated(first.range.start, nameEnd)
        var name = source.text(in: SourceRange(start: first.range.start, end: nameEnd))
        if !name.contains("."), commands.namespaces.contains(name) {
            // `keystore load`, `vault change-passphrase`: a verb word on the same line, followed
            // by a blank or the end.
            if let verb = word(after: nameEnd) {
                let k = hyphenated(verb.start, verb.end, prefix: name + ".")
                let full = name + "." + source.text(in: SourceRange(start: verb.start, end: k))
                if k == bytes.count || isVerbStop(bytes[k]), commands.contains(full) || !commands.contains(name) {
                    name = full
                    nameEnd = k
                }
            }
            if !name.contains("."), !commands.contains(name) {
                report(.missingCommandVerb(namespace: name), first.range)
                throw ParseAbort()
            }
        }
        let nameRange = SourceRange(start: first.range.start, end: nameEnd)
        lexer.reset(to: nameEnd)
        current = nil
        consumed += 1

        var arguments: [CommandArgument] = []
        var options: [CommandOption] = []
        var pending: (name: String, range: SourceRange)?
        var end = nameRange
        while true {
            let t = lexer.nextCommandArgument(skipNewlines: nested)
            drainLexer()
            switch t.kind {
            case .newline, .semicolon, .rightBrace, .rightParen, .endOfInput:
                current = t
                if let p = pending { options.append(CommandOption(name: p.name, value: nil, range: p.range)) }
                return Command(
                    name: name, nameRange: nameRange, arguments: arguments, options: options,
                    range: nameRange.union(end))
            case .option(let o):
                consumed += 1
                if let p = pending { options.append(CommandOption(name: p.name, value: nil, range: p.range)) }
                pending = (o, t.range)
                end = t.range
            default:
                consumed += 1
                let argument = try parseCommandArgument(t)
                end = argument.range
                if let p = pending {
                    options.append(CommandOption(name: p.name, value: argument, range: p.range.union(argument.range)))
                    pending = nil
                } else {
                    arguments.append(argument)
                }
            }
        }
    }

    /// One argument whose first token `t` was read in command-argument mode (and consumed).
    private mutating func parseCommandArgument(_ t: Token) throws(ParseAbort) -> CommandArgument {
        switch t.kind {
        case .word(let w):
            return .word(w, range: t.range)
        case .variable(let path):
            var offset = t.range.start + 1
            var expr: Expr?
            for part in path {
                let r = SourceRange(start: offset, end: offset + part.utf8.count)
                if let base = expr {
                    expr = Expr(.member(base, Identifier(part, range: r)), range: base.range.union(r))
                } else {
                    expr = Expr(.identifier(part), range: SourceRange(start: t.range.start, end: r.end))
                }
                offset = r.end + 1
            }
            return .expression(expr!)
        case .leftParen:
            return .expression(try parseParenthesized(open: t))
        case .leftBracket:
            return .expression(try parseList(open: t))
        case .leftBrace:
            return .expression(try parseMap(open: t))
        default:
            guard let literal = try literal(t) else { throw fail(expected: "a command argument", at: t) }
            return .expression(literal)
        }
    }

    // MARK: - Expressions

    /// An expression where `{` would start a block: map literals need parentheses there.
    private mutating func parseCondition() throws(ParseAbort) -> Expr {
        let saved = noMapLiteral
        noMapLiteral = true
        defer { noMapLiteral = saved }
        return try parseExpression()
    }

    /// Parses an expression at the lowest precedence (`or`).
    private mutating func parseExpression() throws(ParseAbort) -> Expr {
        try enter(peek().range)
        defer { depth -= 1 }
        return try parseOr()
    }

    private mutating func binary(_ op: BinaryOperator, _ lhs: Expr, _ rhs: Expr) -> Expr {
        Expr(.binary(op, lhs, rhs), range: lhs.range.union(rhs.range))
    }

    /// One left-associative precedence level: `operand (op operand)*`, where `op` maps the
    /// current token to an operator (nil ends the level). Each operator deepens the
    /// left-leaning tree, so it counts against the nesting limit: later recursive walks
    /// (printer, interpreter) stay within the stack.
    private mutating func parseLeftAssociative(
        _ op: (TokenKind) -> BinaryOperator?, operand: (inout Parser) throws(ParseAbort) -> Expr
    ) throws(ParseAbort) -> Expr {
        var lhs = try operand(&self)
        var levels = 0
        defer { depth -= levels }
        while let found = op(peek().kind) {
            advance()
            try enter(lhs.range)
            levels += 1
            skipNewlines()
            lhs = binary(found, lhs, try operand(&self))
        }
        return lhs
    }

    private mutating func parseOr() throws(ParseAbort) -> Expr {
        try parseLeftAssociative(
            { $0 == .keyword(.or) ? .or : nil }, operand: { (p: inout Parser) throws(ParseAbort) in try p.parseAnd() })
    }

    private mutating func parseAnd() throws(ParseAbort) -> Expr {
        try parseLeftAssociative(
            { $0 == .keyword(.and) ? .and : nil }, operand: { (p: inout Parser) throws(ParseAbort) in try p.parseNot() }
        )
    }

    private mutating func parseNot() throws(ParseAbort) -> Expr {
        let t = peek()
        guard t.kind == .keyword(.not) else { return try parseComparison() }
        advance()
        try enter(t.range)
        defer { depth -= 1 }
        let operand = try parseNot()
        return Expr(.unary(.not, operand), range: t.range.union(operand.range))
    }

    private mutating func parseComparison() throws(ParseAbort) -> Expr {
        try parseLeftAssociative(
            { kind in
                switch kind {
                case .equalEqual: .equal
                case .bangEqual: .notEqual
                case .less: .less
                case .lessEqual: .lessOrEqual
                case .greater: .greater
                case .greaterEqual: .greaterOrEqual
                default: nil
                }
            }, operand: { (p: inout Parser) throws(ParseAbort) in try p.parseRange() })
    }

    /// `a..<b` and `a...b`; ranges do not chain.
    private mutating func parseRange() throws(ParseAbort) -> Expr {
        let lhs = try parseAdditive()
        let op: BinaryOperator
        switch peek().kind {
        case .halfOpenRange: op = .halfOpenRange
        case .closedRange: op = .closedRange
        default: return lhs
        }
        advance()
        skipNewlines()
        return binary(op, lhs, try parseAdditive())
    }

    private mutating func parseAdditive() throws(ParseAbort) -> Expr {
        try parseLeftAssociative(
            { kind in
                switch kind {
                case .plus: .add
                case .minus: .subtract
                default: nil
                }
            }, operand: { (p: inout Parser) throws(ParseAbort) in try p.parseMultiplicative() })
    }

    private mutating func parseMultiplicative() throws(ParseAbort) -> Expr {
        try parseLeftAssociative(
            { kind in
                switch kind {
                case .star: .multiply
                case .slash: .divide
                case .percent: .remainder
                default: nil
                }
            }, operand: { (p: inout Parser) throws(ParseAbort) in try p.parseUnary() })
    }

    private mutating func parseUnary() throws(ParseAbort) -> Expr {
        let t = peek()
        guard t.kind == .minus else { return try parsePostfix() }
        advance()
        try enter(t.range)
        defer { depth -= 1 }
        let operand = try parseUnary()
        return Expr(.unary(.negate, operand), range: t.range.union(operand.range))
    }

    private mutating func parsePostfix() throws(ParseAbort) -> Expr {
        var expr = try parsePrimary()
        var levels = 0
        defer { depth -= levels }
        while true {
            switch peek().kind {
            case .leftParen, .dot, .leftBracket:
                try enter(expr.range)
                levels += 1
            default: break
            }
            switch peek().kind {
            case .leftParen:
                advance()
                let (arguments, close) = try parseElements(closing: .rightParen, "`,` or `)`") { p throws(ParseAbort) in
                    try p.parseExpression()
                }
                expr = Expr(.call(callee: expr, arguments: arguments), range: expr.range.union(close))
            case .dot:
                advance()
                let t = peek()
                let name: String
                switch t.kind {
                case .identifier(let n): name = n
                case .keyword(let k): name = k.rawValue
                default: throw fail(expected: "a field name after `.`", at: t)
                }
                advance()
                expr = Expr(.member(expr, Identifier(name, range: t.range)), range: expr.range.union(t.range))
            case .leftBracket:
                let open = advance()
                nesting += 1
                let saved = noMapLiteral
                noMapLiteral = false
                defer {
                    nesting -= 1
                    noMapLiteral = saved
                }
                let index = try parseExpression()
                let close = try expect(.rightBracket, "`]`")
                _ = open
                expr = Expr(.index(expr, index), range: expr.range.union(close.range))
            default:
                return expr
            }
        }
    }

    private mutating func parsePrimary() throws(ParseAbort) -> Expr {
        let t = peek()
        switch t.kind {
        case .identifier(let name):
            advance()
            return Expr(.identifier(name), range: t.range)
        case .leftParen:
            advance()
            return try parseParenthesized(open: t)
        case .leftBracket:
            advance()
            return try parseList(open: t)
        case .leftBrace where !noMapLiteral:
            advance()
            return try parseMap(open: t)
        default:
            guard let literal = try literal(t) else { throw fail(expected: "an expression", at: t) }
            advance()
            return literal
        }
    }

    /// The expression for a literal token, or nil if `t` is not a literal. Does not consume.
    private mutating func literal(_ t: Token) throws(ParseAbort) -> Expr? {
        switch t.kind {
        case .integer(let digits): return Expr(.integer(digits), range: t.range)
        case .bytes(let b): return Expr(.bytes(b), range: t.range)
        case .keyword(.true): return Expr(.boolean(true), range: t.range)
        case .keyword(.false): return Expr(.boolean(false), range: t.range)
        case .keyword(.nil): return Expr(.nil, range: t.range)
        case .string(let segments):
            var parts: [StringPart] = []
            for segment in segments {
                switch segment {
                case .text(let s, let r): parts.append(.text(s, range: r))
                case .interpolation(let r): parts.append(.interpolation(try parseInterpolation(r)))
                }
            }
            return Expr(.string(parts), range: t.range)
        default: return nil
        }
    }

    /// Lexes and parses the inside of `{…}` in a string as one expression.
    private mutating func parseInterpolation(_ range: SourceRange) throws(ParseAbort) -> Expr {
        let saved = (lexer, current, nesting, noMapLiteral)
        lexer = Lexer(source: source, range: range)
        current = nil
        nesting = 1
        noMapLiteral = false
        interpolationDepth += 1
        defer {
            (lexer, current, nesting, noMapLiteral) = saved
            interpolationDepth -= 1
        }
        try enter(range)
        defer { depth -= 1 }
        let expr = try parseExpression()
        let t = peek()
        guard t.kind == .endOfInput else { throw fail(expected: "`}` after the interpolated expression", at: t) }
        return expr
    }

    /// After `(`: a command (`(derive "m/0")`) or an expression, then `)`.
    private mutating func parseParenthesized(open: Token) throws(ParseAbort) -> Expr {
        nesting += 1
        let saved = noMapLiteral
        noMapLiteral = false
        defer {
            nesting -= 1
            noMapLiteral = saved
        }
        try enter(open.range)
        defer { depth -= 1 }
        let inner: Expr
        if case .identifier(let word) = peek().kind, startsCommand(word) {
            let command = try parseCommand(nested: true)
            inner = Expr(.command(command), range: command.range)
        } else {
            inner = try parseExpression()
        }
        let close = try expect(.rightParen, "`)`")
        // The parentheses belong to the range, so a caret under `(a + b)` covers them.
        return Expr(inner.kind, range: open.range.union(close.range))
    }

    /// After `[`: elements, then `]`.
    private mutating func parseList(open: Token) throws(ParseAbort) -> Expr {
        try enter(open.range)
        defer { depth -= 1 }
        let (items, close) = try parseElements(closing: .rightBracket, "`,` or `]`") { p throws(ParseAbort) in
            try p.parseExpression()
        }
        return Expr(.list(items), range: open.range.union(close))
    }

    /// After `{` in expression position: `key: value` entries, then `}`.
    private mutating func parseMap(open: Token) throws(ParseAbort) -> Expr {
        try enter(open.range)
        defer { depth -= 1 }
        let (entries, close) = try parseElements(closing: .rightBrace, "`,` or `}`") { p throws(ParseAbort) in
            let key = try p.parseExpression()
            _ = try p.expect(.colon, "`:`")
            return MapEntry(key: key, value: try p.parseExpression())
        }
        return Expr(.map(entries), range: open.range.union(close))
    }

    /// Comma-separated elements up to `closing` (a trailing comma is allowed); line breaks
    /// inside are blanks. Returns the elements and the range of the closing token.
    private mutating func parseElements<T>(
        closing: TokenKind, _ what: String, _ element: (inout Parser) throws(ParseAbort) -> T
    ) throws(ParseAbort) -> ([T], SourceRange) {
        nesting += 1
        let saved = noMapLiteral
        noMapLiteral = false
        defer {
            nesting -= 1
            noMapLiteral = saved
        }
        var items: [T] = []
        while !check(closing) {
            items.append(try element(&self))
            if !match(.comma) { break }
        }
        let close = try expect(closing, what)
        return (items, close.range)
    }
}

/// Bytes that may follow the verb of `keystore load`.
private func isVerbStop(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: ";"),
        UInt8(ascii: "#"), UInt8(ascii: "\""), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "}"):
        true
    default: false
    }
}
