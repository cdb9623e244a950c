// Parser: the design card's commands, every statement kind, precedence, interpolation,
// continuation lines, and how commands are told apart from expressions.
import Foundation
import KCSSyntax
import Testing

@Suite("Parser")
struct ParserTests {
    @Test func designCard_fiveForms_parseAsCommands() {
        let text = """
            card.pair
            derive "m/44'/60'/0'/0/0"
            sign 0x1c8a
            import mnemonic "abandon … about" --preset metamask
            keystore load wallet.json
            """
        #expect(
            printed(text) == """
                (program test.kcs
                  (command card.pair @1:1)
                  (command derive @2:1
                    (string "m/44'/60'/0'/0/0" @2:8))
                  (command sign @3:1
                    (bytes 0x1c8a @3:6))
                  (command import.mnemonic @4:1
                    (string "abandon … about" @4:17)
                    (option preset @4:35
                      (word "metamask" @4:44)))
                  (command keystore.load @5:1
                    (word "wallet.json" @5:15)))

                """)
    }

    @Test func designCard_elidedHex_isABareWord() {
        // The card writes `sign 0x1c8a…`; the ellipsis makes it a word, which `sign` will reject.
        #expect(
            printed("sign 0x1c8a…") == """
                (program test.kcs
                  (command sign @1:1
                    (word "0x1c8a…" @1:6)))

                """)
    }

    @Test func commands_optionsFlagsVariablesAndExpressions() {
        #expect(
            printed("let k = derive m/44'/0' --count 5 --force\nsign $k.key (1 + 2) --json") == """
                (program test.kcs
                  (let k @1:1
                    (command derive @1:9
                      (word "m/44'/0'" @1:16)
                      (option count @1:25
                        (integer 5 @1:33))
                      (flag force @1:35)))
                  (command sign @2:1
                    (member key @2:6
                      (name k @2:6))
                    (binary + @2:13
                      (integer 1 @2:14)
                      (integer 2 @2:18))
                    (flag json @2:21)))

                """)
    }

    @Test func commands_namespaceVerbAndDottedName_areTheSameCommand() {
        let spaced = parse("card pair").program.statements
        let dotted = parse("card.pair").program.statements
        guard case .command(let a) = spaced.first?.kind, case .command(let b) = dotted.first?.kind else {
            Issue.record("not commands")
            return
        }
        #expect(a.name == "card.pair" && b.name == "card.pair")
    }

    @Test func memberAccess_onNonNamespace_isAnExpression() {
        #expect(
            printed("x.address") == """
                (program test.kcs
                  (expr @1:1
                    (member address @1:1
                      (name x @1:1))))

                """)
    }

    @Test func command_inParentheses_isAValue() {
        #expect(
            printed("print (derive \"m/0\").address, (card.status)") == """
                (program test.kcs
                  (print @1:1
                    (member address @1:7
                      (command derive @1:8
                        (string "m/0" @1:15)))
                    (command card.status @1:32)))

                """)
    }

    @Test func command_insideBlock_endsAtBrace() {
        #expect(
            printed("if ok { card.pair }") == """
                (program test.kcs
                  (if @1:1
                    (branch @1:4
                      (name ok @1:4)
                      (block @1:7
                        (command card.pair @1:9)))))

                """)
    }

    @Test func letAndExpressionAndAssignments_parse() {
        #expect(
            printed("let x = 1\nx = x + 1\nx.y = 2\nx[0] = f(1)(2)[3]\nf(x)") == """
                (program test.kcs
                  (let x @1:1
                    (integer 1 @1:9))
                  (assign @2:1
                    (name x @2:1)
                    (binary + @2:5
                      (name x @2:5)
                      (integer 1 @2:9)))
                  (assign @3:1
                    (member y @3:1
                      (name x @3:1))
                    (integer 2 @3:7))
                  (assign @4:1
                    (index @4:1
                      (name x @4:1)
                      (integer 0 @4:3))
                    (index @4:8
                      (call @4:8
                        (call @4:8
                          (name f @4:8)
                          (integer 1 @4:10))
                        (integer 2 @4:13))
                      (integer 3 @4:16)))
                  (expr @5:1
                    (call @5:1
                      (name f @5:1)
                      (name x @5:3))))

                """)
    }

    @Test func ifElseIfElse_parse() {
        #expect(
            printed("if a < b { print 1 } else if c { print 2 } else { print 3 }") == """
                (program test.kcs
                  (if @1:1
                    (branch @1:4
                      (binary < @1:4
                        (name a @1:4)
                        (name b @1:8))
                      (block @1:10
                        (print @1:12
                          (integer 1 @1:18))))
                    (branch @1:30
                      (name c @1:30)
                      (block @1:32
                        (print @1:34
                          (integer 2 @1:40))))
                    (else @1:49
                      (block @1:49
                        (print @1:51
                          (integer 3 @1:57))))))

                """)
    }

    @Test func loops_forWhileBreakContinue_parse() {
        let text = """
            for i in 0..<20 {
              if i == 3 { break }
              continue
            }
            for k in keys { }
            while n >= 1 { n = n - 1 }
            """
        #expect(
            printed(text) == """
                (program test.kcs
                  (for i @1:1
                    (binary ..< @1:10
                      (integer 0 @1:10)
                      (integer 20 @1:14))
                    (block @1:17
                      (if @2:3
                        (branch @2:6
                          (binary == @2:6
                            (name i @2:6)
                            (integer 3 @2:11))
                          (block @2:13
                            (break @2:15))))
                      (continue @3:3)))
                  (for k @5:1
                    (name keys @5:10)
                    (block @5:15))
                  (while @6:1
                    (binary >= @6:7
                      (name n @6:7)
                      (integer 1 @6:12))
                    (block @6:14
                      (assign @6:16
                        (name n @6:16)
                        (binary - @6:20
                          (name n @6:20)
                          (integer 1 @6:24))))))

                """)
    }

    @Test func defReturnTryAssertPrintUse_parse() {
        let text = """
            def add(a, b) {
              return a + b
            }
            def nothing() { return }
            try { sign 0x00 } catch e { print e.message, "!" }
            assert x >= 1, "why"
            assert ok
            print
            use "bip44"
            """
        #expect(
            printed(text) == """
                (program test.kcs
                  (def add (a b) @1:1
                    (block @1:15
                      (return @2:3
                        (binary + @2:10
                          (name a @2:10)
                          (name b @2:14)))))
                  (def nothing () @4:1
                    (block @4:15
                      (return @4:17)))
                  (try @5:1
                    (block @5:5
                      (command sign @5:7
                        (bytes 0x00 @5:12)))
                    (catch e @5:25
                      (block @5:27
                        (print @5:29
                          (member message @5:35
                            (name e @5:35))
                          (string "!" @5:46)))))
                  (assert @6:1
                    (binary >= @6:8
                      (name x @6:8)
                      (integer 1 @6:13))
                    (string "why" @6:16))
                  (assert @7:1
                    (name ok @7:8))
                  (print @8:1)
                  (use "bip44" @9:1))

                """)
    }

    @Test func literals_listsMapsBoolsNil_parse() {
        #expect(
            printed(#"let v = [1, "a", true, false, nil, {"k": [0x01], "n": {}}]"#) == """
                (program test.kcs
                  (let v @1:1
                    (list @1:9
                      (integer 1 @1:10)
                      (string "a" @1:13)
                      (true @1:18)
                      (false @1:24)
                      (nil @1:31)
                      (map @1:36
                        (entry @1:37
                          (string "k" @1:37)
                          (list @1:42
                            (bytes 0x01 @1:43)))
                        (entry @1:50
                          (string "n" @1:50)
                          (map @1:55))))))

                """)
    }

    @Test func precedence_orAndNotComparison() {
        #expect(
            printed("not a == b or c and d") == """
                (program test.kcs
                  (expr @1:1
                    (binary or @1:1
                      (unary not @1:1
                        (binary == @1:5
                          (name a @1:5)
                          (name b @1:10)))
                      (binary and @1:15
                        (name c @1:15)
                        (name d @1:21)))))

                """)
    }

    @Test func precedence_arithmeticBindsTighterThanRange() {
        #expect(
            printed("-x * y + z % 2 ... n - 1") == """
                (program test.kcs
                  (expr @1:1
                    (binary ... @1:1
                      (binary + @1:1
                        (binary * @1:1
                          (unary - @1:1
                            (name x @1:2))
                          (name y @1:6))
                        (binary % @1:10
                          (name z @1:10)
                          (integer 2 @1:14)))
                      (binary - @1:20
                        (name n @1:20)
                        (integer 1 @1:24)))))

                """)
    }

    @Test func precedence_parenthesesAndLeftAssociativity() {
        #expect(
            printed("(a - b) - c * (d / e / f)") == """
                (program test.kcs
                  (expr @1:1
                    (binary - @1:1
                      (binary - @1:1
                        (name a @1:2)
                        (name b @1:6))
                      (binary * @1:11
                        (name c @1:11)
                        (binary / @1:15
                          (binary / @1:16
                            (name d @1:16)
                            (name e @1:20))
                          (name f @1:24))))))

                """)
    }

    @Test func interpolation_nestedStringsAndEscapes() {
        #expect(
            printed(#"print "n={n + 1}\n{f("in{x}")}\{not}""#) == #"""
                (program test.kcs
                  (print @1:1
                    (string @1:7
                      (text "n=" @1:8)
                      (binary + @1:11
                        (name n @1:11)
                        (integer 1 @1:15))
                      (text "\n" @1:17)
                      (call @1:20
                        (name f @1:20)
                        (string @1:22
                          (text "in" @1:23)
                          (name x @1:26)))
                      (text "\{not}" @1:31))))

                """#)
    }

    @Test func continuation_afterOperatorCommaAndInsideBrackets() {
        let text = "let x = 1 +\n  2\nprint f(1,\n  2), [\n 3\n]\nlet m = {\n  \"a\": 1,\n}"
        #expect(
            printed(text) == """
                (program test.kcs
                  (let x @1:1
                    (binary + @1:9
                      (integer 1 @1:9)
                      (integer 2 @2:3)))
                  (print @3:1
                    (call @3:7
                      (name f @3:7)
                      (integer 1 @3:9)
                      (integer 2 @4:3))
                    (list @4:7
                      (integer 3 @5:2)))
                  (let m @7:1
                    (map @7:9
                      (entry @8:3
                        (string "a" @8:3)
                        (integer 1 @8:8)))))

                """)
    }

    @Test func semicolons_separateStatements() {
        #expect(parse("let a = 1; let b = 2;; print a").program.statements.count == 3)
    }

    @Test func mapInCondition_needsParentheses() {
        #expect(parse(#"if ({"a": 1} == m) { }"#).diagnostics.isEmpty)
        #expect(
            rendered(#"if m == {"a": 1} { }"#) == """
                test.kcs:1:9: error: expected an expression, found `{`
                  1 | if m == {"a": 1} { }
                    |         ^

                """)
    }

    @Test func emptyCommandTable_everythingIsAnExpression() {
        #expect(
            printed("card.pair", commands: .empty) == """
                (program test.kcs
                  (expr @1:1
                    (member pair @1:1
                      (name card @1:1))))

                """)
    }

    @Test func suggestion_nearTypo_findsCommand() {
        #expect(suggestion(for: "card.pari", among: demoCommands.commands) == "card.pair")
        #expect(suggestion(for: "keystore.lod", among: demoCommands.commands) == "keystore.load")
        #expect(suggestion(for: "card.verifypin", among: demoCommands.commands) == "card.verifyPIN")
        #expect(suggestion(for: "wallet.burn", among: demoCommands.commands) == nil)
        #expect(demoCommands.suggestion(for: "derivee") == "derive")
    }

    @Test func unknownCommand_diagnostic_rendersHint() {
        let source = Source(name: "s.kcs", text: "card.pari")
        let (program, diagnostics) = Parser.parse(source: source, commands: demoCommands)
        #expect(diagnostics.isEmpty)
        guard case .command(let c) = program.statements.first?.kind else {
            Issue.record("not a command")
            return
        }
        let d = Diagnostic(.unknownCommand(c.name, suggestion: demoCommands.suggestion(for: c.name)), at: c.nameRange)
        #expect(d.id == "check.unknownCommand")
        #expect(
            DiagnosticRenderer.render(d, source: source) == """
                s.kcs:1:1: error: unknown command `card.pari`
                  1 | card.pari
                    | ^~~~~~~~~
                  hint: did you mean `card.pair`?

                """)
    }
}

@Suite("Reference")
struct ReferenceTests {
    /// The opening example of docs/language.md parses without a diagnostic.
    @Test func languageDoc_openingExample_parses() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/language.md"), encoding: .utf8)
        let afterFence = try #require(doc.range(of: "```kcs\n"))
        let close = try #require(doc.range(of: "```", range: afterFence.upperBound..<doc.endIndex))
        let example = String(doc[afterFence.upperBound..<close.lowerBound])
        let (program, diagnostics) = parse(example)
        #expect(diagnostics.isEmpty, "\(DiagnosticRenderer.render(diagnostics, source: program.source))")
        #expect(program.statements.count == 10)
    }
}

@Suite("Commands written as calls")
struct CommandCallSyntaxTests {
    @Test func commandNameFollowedByParen_isACall_withBlankItIsACommand() {
        let table = CommandTable(commands: ["append", "len"])
        let call = Parser.parse(source: Source(name: "t", text: "x = append(a, 1)"), commands: table)
        #expect(call.diagnostics.isEmpty)
        #expect(ASTPrinter.print(call.program).contains("call"))
        let command = Parser.parse(source: Source(name: "t", text: "len (a)"), commands: table)
        #expect(command.diagnostics.isEmpty)
        #expect(ASTPrinter.print(command.program).contains("command len"))
    }
}
