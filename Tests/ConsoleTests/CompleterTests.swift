// Tab completion as a function of the line: what each position offers.
import KCSBuiltins
import KCSConsole
import Testing

@Suite struct CompleterTests {
    let completer = Completer(
        registry: Builtins.registry(), variables: { ["wallet", "window"] }, extraWords: { ["savings", "spare"] },
        listDirectory: { dir in
            switch dir {
            case ".": [("examples", true), ("phrase.txt", false), (".hidden", false)]
            case "examples/": [("presets.kcs", false), ("tour.kcs", false)]
            default: []
            }
        })

    func complete(_ line: String) -> Completer.Result { completer.complete(line: line, cursor: line.utf8.count) }

    @Test func commandNames_dottedAndBare() {
        #expect(complete("mnemonic.ch").candidates == ["mnemonic.check"])
        #expect(
            complete("mnemonic.").candidates == [
                "mnemonic.check", "mnemonic.explain", "mnemonic.generate", "mnemonic.seed",
            ])
        #expect(complete("key.re").candidates == ["key.rename", "key.reveal"])
        #expect(complete("key.re").commonPrefix == "key.re")
        #expect(complete("xk").commonPrefix == "xkey.")
    }

    @Test func variablesKeywordsAndStoredKeyNames() {
        #expect(complete("print wi").candidates == ["window"])
        #expect(complete("let x = wa").candidates == ["wallet", "wallet.discover", "wallet.select"])
        #expect(complete("whi").candidates == ["while"])
        #expect(complete("key.show sav").candidates == ["savings"])
    }

    @Test func optionsOfTheLinesCommand() {
        #expect(complete("derive \"m/0\" --").candidates == ["--from", "--qr", "--reveal", "--trace"])
        #expect(complete("import.mnemonic $m --pre").candidates == ["--preset"])
        #expect(complete("len --").candidates == [])
    }

    @Test func pathsInStringsAndAfterRead() {
        #expect(complete("file.read \"ph").candidates == ["phrase.txt"])
        #expect(complete("file.read \"examples/t").candidates == ["examples/tour.kcs"])
        #expect(complete(".read ex").candidates == ["examples/"])
        #expect(complete("file.read \"").candidates == ["examples/", "phrase.txt"], "hidden files only when asked")
    }

    @Test func metaCommandsAtTheStartOfTheLine() {
        #expect(complete(".b").candidates == [".bail"])
        #expect(complete(".").candidates == Completer.metaCommands.sorted())
    }

    @Test func severalCandidates_areListedInColumns() {
        #expect(Completer.columns(["a", "bb", "ccc"], width: 10) == "a    bb\nccc")
        #expect(Completer.columns(["mnemonic.check", "mnemonic.seed"]) == "mnemonic.check  mnemonic.seed")
        #expect(Completer.columns([]) == "")
    }

    @Test func theWordIsWhatTabReplaces() {
        let r = complete("print mnemonic.ge")
        #expect(r.word == "mnemonic.ge")
        #expect(r.wordStart == 6)
    }
}
