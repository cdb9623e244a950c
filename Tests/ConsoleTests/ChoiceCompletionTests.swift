// Tab completion of the values a builtin's table declares (docs/language.md §4).
import KCSBuiltins
import KCSConsole
import Testing

@Suite struct ChoiceCompletionTests {
    let completer = Completer(registry: Builtins.registry(), listDirectory: { _ in [] })

    func complete(_ line: String) -> [String] { completer.complete(line: line, cursor: line.utf8.count).candidates }

    @Test func positionalAndOptionChoices() {
        #expect(complete("card.change ") == ["pairing", "pin", "puk"])
        #expect(complete("card.change p") == ["pairing", "pin", "puk"])
        #expect(complete("card.change pu") == ["puk"])
        #expect(complete("card change pa") == ["pairing"])
        #expect(complete("key.generate --type ") == ["ecdsa", "hd", "hd-master"])
        #expect(complete("key.generate --type hd --words ") == ["12", "24"])
        #expect(complete("card.load s") == ["seed"])
    }

    @Test func noChoices_fallsBackToNames() {
        // After the declared parameter, and for options without choices, names are offered as before.
        #expect(complete("card.change pin wa").contains("wallet.discover"))
        #expect(complete("key.generate --name wa").contains("wallet.discover"))
        #expect(complete("eth.chainId --") == ["--rpc"])
    }
}
