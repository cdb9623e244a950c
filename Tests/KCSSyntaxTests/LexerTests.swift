import KCSSyntax
// Lexer: tokens with their columns, literals, and lexical errors at the right column.
import Testing

@Suite("Lexer")
struct LexerTests {
    @Test func letStatement_tokensWithColumns() {
        let (list, diagnostics) = tokens("let x = a.b + 42 # comment\nprint x")
        #expect(
            list == [
                "`let`@1:1", "`x`@1:5", "`=`@1:7", "`a`@1:9", "`.`@1:10", "`b`@1:11", "`+`@1:13", "integer `42`@1:15",
                "end of line@1:27", "`print`@2:1", "`x`@2:7", "end of input@2:8",
            ])
        #expect(diagnostics.isEmpty)
    }

    @Test func operators_allSpellings_lexAsOneTokenEach() {
        let (list, diagnostics) = tokens("== != <= >= < > ..< ... ( ) [ ] { } , : ; * / % -")
        #expect(
            list.dropLast().map { $0.split(separator: "@")[0] } == [
                "`==`", "`!=`", "`<=`", "`>=`", "`<`", "`>`", "`..<`", "`...`", "`(`", "`)`", "`[`", "`]`", "`{`",
                "`}`",
                "`,`", "`:`", "`;`", "`*`", "`/`", "`%`", "`-`",
            ])
        #expect(diagnostics.isEmpty)
    }

    @Test func integer_withSeparatorsAndBeyond64Bits_keepsAllDigits() {
        var lexer = Lexer(
            source: Source(
                name: "t",
                text:
                    "115_792_089_237_316_195_423_570_985_008_687_907_853_269_984_665_640_564_039_457_584_007_913_129_639_935"
            ))
        #expect(
            lexer.next().kind
                == .integer("115792089237316195423570985008687907853269984665640564039457584007913129639935"))
    }

    @Test func hexBytes_evenDigits_decodeToBytes() {
        var lexer = Lexer(source: Source(name: "t", text: "0x1c8A00"))
        #expect(lexer.next().kind == .bytes([0x1C, 0x8A, 0x00]))
        #expect(lexer.diagnostics.isEmpty)
    }

    @Test func hexBytes_oddDigits_errorAtLiteralColumn() {
        let (list, diagnostics) = tokens("let b = 0xabc")
        #expect(list[3] == "an invalid token@1:9")
        #expect(diagnostics == ["lex.oddHexDigits@1:9"])
        #expect(
            rendered("let b = 0xabc") == """
                test.kcs:1:9: error: hex bytes need an even number of digits, got 3
                  1 | let b = 0xabc
                    |         ^~~~~
                  hint: each byte is two hex digits, e.g. `0x0a` rather than `0xa`

                """)
    }

    @Test func hexBytes_nonHexDigit_errorAtThatCharacter() {
        #expect(tokens("  0x12g4").diagnostics == ["lex.invalidHexDigit@1:7"])
        #expect(tokens("0x").diagnostics == ["lex.missingHexDigits@1:1"])
    }

    @Test func number_followedByLetters_isOneInvalidNumber() {
        let (list, diagnostics) = tokens("x = 12ab")
        #expect(list == ["`x`@1:1", "`=`@1:3", "an invalid token@1:5", "end of input@1:9"])
        #expect(diagnostics == ["lex.invalidNumber@1:5"])
    }

    @Test func string_escapes_areResolved() {
        var lexer = Lexer(source: Source(name: "t", text: #""a\n\t\\\"\{b}""#))
        guard case .string(let segments) = lexer.next().kind else {
            Issue.record("not a string")
            return
        }
        #expect(segments == [.text("a\n\t\\\"{b}", range: SourceRange(start: 1, end: 14))])
        #expect(lexer.diagnostics.isEmpty)
    }

    @Test func string_unknownEscape_errorAtBackslash() {
        #expect(tokens(#"print "ok\q""#).diagnostics == ["lex.invalidEscape@1:10"])
    }

    @Test func string_interpolation_segmentsCoverTheInnerExpression() {
        let text = #""a{f("}")}b""#
        var lexer = Lexer(source: Source(name: "t", text: text))
        guard case .string(let segments) = lexer.next().kind else {
            Issue.record("not a string")
            return
        }
        #expect(
            segments == [
                .text("a", range: SourceRange(start: 1, end: 2)),
                .interpolation(range: SourceRange(start: 3, end: 9)),
                .text("b", range: SourceRange(start: 10, end: 11)),
            ])
    }

    @Test func string_unterminated_isUnexpectedEndOfInput() {
        #expect(tokens("print \"abc").diagnostics == ["parse.unexpectedEndOfInput@1:7"])
        #expect(tokens("print \"a{b").diagnostics == ["parse.unexpectedEndOfInput@1:9"])
    }

    @Test func foreignOperators_suggestOurs() {
        #expect(
            rendered("a && b") == """
                test.kcs:1:3: error: `&&` is not an operator here; use `and`
                  1 | a && b
                    |   ^~

                """)
        #expect(tokens("!a || b").diagnostics == ["lex.foreignOperator@1:1", "lex.foreignOperator@1:4"])
    }

    @Test func unexpectedCharacter_nonASCII_columnCountsScalars() {
        #expect(tokens("\"é\" é").diagnostics == ["lex.unexpectedCharacter@1:5"])
    }

    @Test func commandArguments_wordsOptionsVariablesAndLiterals() {
        let source = Source(
            name: "t", text: "wallet.json m/44'/60'/0' --preset metamask $k.key 44 0x0a true \"s\" 44' (x)\n")
        var lexer = Lexer(source: source)
        var kinds: [TokenKind] = []
        while true {
            let t = lexer.nextCommandArgument()
            kinds.append(t.kind)
            if t.kind == .leftParen || t.kind == .endOfInput { break }
        }
        #expect(
            kinds == [
                .word("wallet.json"), .word("m/44'/60'/0'"), .option("preset"), .word("metamask"),
                .variable(["k", "key"]),
                .integer("44"), .bytes([0x0A]), .keyword(.true),
                .string([.text("s", range: SourceRange(start: 64, end: 65))]),
                .word("44'"), .leftParen,
            ])
    }

    @Test func lineTable_offsetsToLineAndColumn() {
        let source = Source(name: "t", text: "ab\r\nçd\n\nx")
        let lines = LineTable(source)
        #expect(lines.location(of: 0) == SourceLocation(line: 1, column: 1))
        #expect(lines.location(of: 6) == SourceLocation(line: 2, column: 2))  // after the two bytes of ç
        #expect(lines.location(of: 9) == SourceLocation(line: 4, column: 1))
        #expect(lines.lineText(1) == "ab")
        #expect(lines.lineCount == 4)
    }
}
