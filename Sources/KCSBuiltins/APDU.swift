import CardProtocol
import KCSRuntime
import WalletCrypto

// The `apdu` namespace (docs/card-explained.md, "Offline"): any Keycard command and answer
// decoded without a card.

extension Builtins {
    static let apdu: [Builtin] = [
        Builtin(
            "apdu.explain", params: [ParamSpec("command", .oneOf([.string, .bytes]))],
            options: [
                OptionSpec("response", .oneOf([.string, .bytes]), "the answer: data ‖ SW1 SW2"),
                OptionSpec(
                    "profile", .string, "the applet generation whose tables decode it (default 3.1)",
                    choices: KeycardGeneration.allCases.map(\.rawValue)),
            ],
            summary:
                "Decodes a Keycard command APDU (and its answer) offline: class, instruction, P1/P2, the data, the TLV tree, the status word; bytes it does not know are said to be unknown.",
            example: "apdu.explain \"80 F2 00 00\" --response \"A309020103020105010100 9000\""
        ) { args in
            let generation = KeycardGeneration(rawValue: args.string("profile") ?? "3.1") ?? .v3
            let command = try apduBytes(args, "command")
            let response = try args.value("response").map { _ in try apduBytes(args, "response") }
            return .string(try APDUExplanation.explain(command: command, response: response, generation: generation))
        }
    ]

    /// Hex text (spaces allowed) or bytes.
    static func apduBytes(_ args: CallArguments, _ name: String) throws -> [UInt8] {
        switch args.value(name) {
        case .bytes(let b)?: return b
        case .string(let text)?:
            let compact = text.filter { !$0.isWhitespace }
            guard let bytes = try? Hex.decode(compact) else {
                throw BuiltinError.outOfRange(name: name, expected: "hex bytes (spaces allowed)", got: text)
            }
            return bytes
        default: return []
        }
    }
}
