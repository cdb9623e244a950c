import KCSSyntax
// Diagnostics: several errors in one pass, exact rendering, incomplete input, and checks the
// parser makes itself (loops, functions, assignment targets).
import Testing

@Suite("Diagnostics")
struct DiagnosticTests {
    @Test func severalErrors_reportedInOnePass_oncePerStatement() {
        let text = """
            let = 5
            print 1 2
            let ok = 1
            x = )
            if y { print ( }
            let b = 0xabc + 1
            print "x" +
            """
        #expect(
            rendered(text) == """
                test.kcs:1:5: error: expected a variable name, found `=`
                  1 | let = 5
                    |     ^
                test.kcs:2:9: error: expected end of statement, found integer `2`
                  2 | print 1 2
                    |         ^
                test.kcs:4:5: error: expected an expression, found `)`
                  4 | x = )
                    |     ^
                test.kcs:5:16: error: expected an expression, found `}`
                  5 | if y { print ( }
                    |                ^
                test.kcs:6:9: error: hex bytes need an even number of digits, got 3
                  6 | let b = 0xabc + 1
                    |         ^~~~~
                  hint: each byte is two hex digits, e.g. `0x0a` rather than `0xa`
                test.kcs:7:12: error: unexpected end of input, expected an expression
                  7 | print "x" +
                    |            ^

                """)
        // The good statement survives, and so does the `if` whose inner statement failed.
        #expect(parse(text).program.statements.count == 2)
    }

    @Test func caret_underTabsAndWideSpans() {
        #expect(
            rendered("\tprint 1 +* 2") == """
                test.kcs:1:11: error: expected an expression, found `*`
                  1 | \tprint 1 +* 2
                    | \t         ^

                """)
        #expect(
            rendered("x = \"é\" + @") == """
                test.kcs:1:11: error: unexpected character `@`
                  1 | x = "é" + @
                    |           ^

                """)
    }

    @Test(arguments: [
        "if x {", "if x {\n  print 1\n", "print (1", "print \"abc", "let x = 1 +", "let v = [1, 2",
        "def f(a,", "print \"{x\"", "while true { if y { ", "let m = {\"a\":", "try { } catch e {",
        "x = card.pair (1 +",
    ])
    func incompleteInput_isUnexpectedEndOfInput(_ text: String) {
        let ids = parse(text).diagnostics.map(\.id)
        #expect(ids.contains("parse.unexpectedEndOfInput"), "\(ids)")
    }

    @Test(arguments: ["if x { }", "print (1)", "let x = 1 + 2", "print \"{x}\"", "x = 1 +\n 2", ""])
    func completeInput_hasNoDiagnostics(_ text: String) {
        #expect(parse(text).diagnostics.isEmpty)
    }

    @Test func breakAndReturn_outsideTheirBlocks_areReported() {
        #expect(parse("break").diagnostics.map(\.id) == ["parse.outsideLoop"])
        #expect(parse("for i in x { def f() { continue } }").diagnostics.map(\.id) == ["parse.outsideLoop"])
        #expect(parse("return 1").diagnostics.map(\.id) == ["parse.returnOutsideFunction"])
        #expect(parse("def f() { while x { return 1 } }").diagnostics.isEmpty)
    }

    @Test func invalidTargets_duplicateParameters_interpolatedUse() {
        #expect(
            rendered("f(x) = 1") == """
                test.kcs:1:1: error: cannot assign to this expression
                  1 | f(x) = 1
                    | ^~~~
                  hint: assign to a name (`x`), a field (`x.f`) or an element (`x[i]`)

                """)
        #expect(parse("def f(a, a) { }").diagnostics.map(\.id) == ["parse.duplicateParameter"])
        #expect(parse("use \"a{b}\"").diagnostics.map(\.id) == ["parse.interpolatedUse"])
    }

    @Test func namespaceWithoutVerb_isReportedWithHint() {
        #expect(
            rendered("let k = keystore") == """
                test.kcs:1:9: error: expected a command name after `keystore`
                  1 | let k = keystore
                    |         ^~~~~~~~
                  hint: write `keystore.verb` or `keystore verb`

                """)
    }

    @Test func elseOnNextLine_isAStrayElse() {
        #expect(parse("if x { }\nelse { }").diagnostics.map(\.message) == ["expected an expression, found `else`"])
    }

    @Test func strayClosingBrace_isReportedAndSkipped() {
        #expect(parse("}\nprint 1").diagnostics.map(\.message) == ["expected a statement, found `}`"])
        #expect(parse("}\nprint 1").program.statements.count == 1)
    }
}
