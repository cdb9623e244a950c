// The interpreter names the command (docs/language.md): a builtin body reads its own name from
// `CallArguments.command` and never writes it, so an error names the command in whichever form
// it was called — `ns.verb(…)`, `ns.verb …` or the namespace form `ns verb …`.
import KCSRuntime
import KCSSyntax
import Testing

/// One builtin that fails naming itself only through `args.command`.
private let named = BuiltinRegistry([
    Builtin(
        "keystore.load", params: [ParamSpec("file", .string)], summary: "Load a keystore.",
        example: "keystore load wallet.json"
    ) { args in
        guard case .string(let file) = args["file"] else { return .null }
        if file == "name" { return .string(args.command) }
        throw ToyError(id: "toy.unreadable", description: "\(args.command): cannot read \(file)")
    }
])

@Suite struct CommandNameTests {
    @Test func bind_givesTheBodyTheTableName() throws {
        let b = try #require(named.lookup("keystore.load"))
        #expect(try b.bind([.string("w.json")], options: []).command == "keystore.load")
    }

    @Test(arguments: ["keystore load \"w.json\"", "keystore.load \"w.json\"", "keystore.load(\"w.json\")"])
    func error_namesTheCommand_inEveryCallForm(_ code: String) throws {
        let host = BufferHost()
        let interpreter = Interpreter(registry: named, host: host)
        let (_, error) = runScript(code, host: host, interpreter: interpreter)
        let e = try #require(error)
        #expect(e.id == "toy.unreadable")
        #expect(e.message == "keystore.load: cannot read w.json")
        guard case .builtin(_, let command, _) = e.kind else {
            Issue.record("expected a builtin error, got \(e.kind)")
            return
        }
        #expect(command == "keystore.load")
    }

    @Test func body_readsTheName_theInterpreterPassed() {
        let host = BufferHost()
        let interpreter = Interpreter(registry: named, host: host)
        let (output, error) = runScript("let n = keystore load \"name\"\nprint n", host: host, interpreter: interpreter)
        #expect(error == nil)
        #expect(output == "keystore.load\n")
    }
}
