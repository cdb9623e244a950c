// The builtin table: binding and its errors (STYLE §3 "argument errors are phrased once"),
// help and completion derived from the entries.
import KCSRuntime
import Testing

struct PathValue: DomainValue {
    let text: String
    var typeName: String { "derivation path" }
}

private let sign = Builtin(
    "card.sign",
    params: [ParamSpec("hash", .bytes), ParamSpec("path", .domain("derivation path"), default: .null)],
    options: [OptionSpec("pinless", nil, "sign with the PIN-less path"), OptionSpec("reader", .string, "reader name")],
    summary: "Sign a 32-byte hash on the card.", example: "card.sign 0x1c8a… \"m/44'/60'/0'/0/0\""
) { args in
    args["hash"]!
}
private let verify = Builtin(
    "card.verifyPIN", params: [ParamSpec("pin", .secret("PIN"), secret: true)],
    summary: "Verify the PIN.", example: "card.verifyPIN"
) { _ in .null }
private let derive = Builtin(
    "derive", params: [ParamSpec("path", .string)], summary: "Derive a key.",
    example: "derive \"m/44'/60'/0'/0/0\""
) { _ in .null }
private let registry = BuiltinRegistry([sign, verify, derive])

@Suite("Builtin tables")
struct BuiltinTests {
    @Test func bind_checksTypesAndFillsDefaults() throws {
        let args = try sign.bind([.bytes([1, 2])], options: [("pinless", nil)])
        #expect(args["hash"] == .bytes([1, 2]) && args["path"] == .null && args.flag("pinless"))
        #expect(try sign.bind([.bytes([1]), .domain(PathValue(text: "m/0"))], options: [])["path"]?.text == "m/0")
    }

    @Test func bind_errorsNameTheArgumentExpectedAndGiven() {
        #expect(
            throws: ArgumentError.wrongType(
                position: 2, name: "path",
                expected: .domain("derivation path"), got: "string")
        ) {
            try sign.bind([.bytes([1]), .string("m/0")], options: [])
        }
        #expect(
            ArgumentError.wrongType(
                position: 2, name: "path", expected: .domain("derivation path"),
                got: "string"
            ).rendered(by: "card.sign")
                == "card.sign: argument 2 (path) must be a derivation path, got string")
        #expect(throws: ArgumentError.missing(position: 1, name: "hash", type: .bytes)) {
            try sign.bind([], options: [])
        }
        #expect(throws: ArgumentError.tooMany(max: 1, got: 2)) {
            try derive.bind([.string("a"), .string("b")], options: [])
        }
        #expect(
            ArgumentError.unknownOption(option: "pinles", known: ["pinless", "reader"]).rendered(by: "card.sign")
                == "card.sign: unknown option --pinles; expected one of --pinless, --reader")
        #expect(throws: ArgumentError.optionNeedsValue(option: "reader", type: .string)) {
            try sign.bind([.bytes([1])], options: [("reader", nil)])
        }
        #expect(throws: ArgumentError.flagTakesNoValue(option: "pinless")) {
            try sign.bind([.bytes([1])], options: [("pinless", .string("yes"))])
        }
    }

    /// Rules declared in the table are checked by `bind`, before any body runs: an option that
    /// needs another, and one that cannot go with others (an option's or a parameter's name).
    @Test func bind_checksTheDeclaredRules() throws {
        let node = Builtin(
            "node", params: [ParamSpec("url", .string, default: .null)],
            options: [
                OptionSpec("schnorr", nil, "s"),
                OptionSpec("tweak", .string, "t", rules: [.onlyWith("schnorr", because: "it goes with --schnorr")]),
                OptionSpec("clear", nil, "c", rules: [.notWith(["url", "tweak"], because: "it forgets the node")]),
            ],
            summary: "A node.", example: "node"
        ) { _ in .null }
        #expect(throws: ArgumentError.notApplicable(option: "tweak", reason: "it goes with --schnorr")) {
            try node.bind([], options: [("tweak", .string("taproot"))])
        }
        #expect(try node.bind([], options: [("tweak", .string("taproot")), ("schnorr", nil)]).flag("schnorr"))
        #expect(throws: ArgumentError.notApplicable(option: "clear", reason: "it forgets the node")) {
            try node.bind([.string("http://n")], options: [("clear", nil)])
        }
        #expect(try node.bind([], options: [("clear", nil)]).flag("clear"))
        let error = ArgumentError.notApplicable(option: "clear", reason: "it forgets the node")
        #expect(error.id == "builtin.optionNotApplicable")
        #expect(error.rendered(by: "node") == "node: --clear does not apply here: it forgets the node")
    }

    /// `.onlyWhen`: an option that goes with some values of another option or of a parameter,
    /// its default counted (`card.load mnemonic … --passphrase`, `card.ndef write --uri`).
    @Test func bind_checksARuleOnAnotherArgumentsValue() throws {
        let load = Builtin(
            "load",
            params: [ParamSpec("what", .string, default: .string("seed"), choices: ["mnemonic", "seed", "keypair"])],
            options: [
                OptionSpec(
                    "chain-code", .bytes, "c",
                    rules: [.onlyWhen("what", is: ["keypair"], because: "it goes with a keypair")]),
                OptionSpec("kind", .string, "k"),
                OptionSpec(
                    "path", .string, "p",
                    rules: [.onlyWhen("kind", is: ["custom"], because: "it goes with --kind custom")]),
            ],
            summary: "Loads.", example: "load"
        ) { _ in .null }
        #expect(throws: ArgumentError.notApplicable(option: "chain-code", reason: "it goes with a keypair")) {
            try load.bind([.string("mnemonic")], options: [("chain-code", .bytes([1]))])
        }
        // The parameter's default (seed) is not a keypair either.
        #expect(throws: ArgumentError.notApplicable(option: "chain-code", reason: "it goes with a keypair")) {
            try load.bind([], options: [("chain-code", .bytes([1]))])
        }
        #expect(
            try load.bind([.string("keypair")], options: [("chain-code", .bytes([1]))]).options["chain-code"]
                == .bytes([1]))
        #expect(throws: ArgumentError.notApplicable(option: "path", reason: "it goes with --kind custom")) {
            try load.bind([], options: [("path", .string("m/0"))])
        }
        #expect(throws: ArgumentError.notApplicable(option: "path", reason: "it goes with --kind custom")) {
            try load.bind([], options: [("path", .string("m/0")), ("kind", .string("metamask"))])
        }
        #expect(
            try load.bind([], options: [("path", .string("m/0")), ("kind", .string("custom"))]).options["path"]
                == .string("m/0"))
    }

    @Test func bind_missingSecretIsLeftForTheHostToAsk() throws {
        let args = try verify.bind([], options: [])
        #expect(args["pin"] == nil)
        #expect(verify.secretPositions == [0])
    }

    @Test func registry_helpAndCompletionComeFromTheTable() {
        #expect(registry.namespaces == ["card"])
        #expect(registry.completions(for: "card.") == ["card.sign", "card.verifyPIN"])
        #expect(registry.help() == "commands: derive\ncard: sign, verifyPIN")
        #expect(
            registry.help("card.sign") == """
                card.sign HASH [PATH] [--pinless] [--reader READER]
                  Sign a 32-byte hash on the card.
                  --pinless  sign with the PIN-less path
                  --reader (a string)  reader name
                  example: card.sign 0x1c8a… "m/44'/60'/0'/0/0"
                """)
        #expect(registry.help("nope") == nil)
    }
}
