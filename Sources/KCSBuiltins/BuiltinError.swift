import WalletCrypto

/// Errors the builtins raise themselves (the wallet core's typed errors pass through as they
/// are). Cases carry facts; the sentence is written once, in `description`, in the same voice
/// as `ArgumentError`: the command, what was expected, what was given. Secrets are never quoted.
public enum BuiltinError: WalletError, Equatable {
    /// A string that is not a decimal or `0x` hex integer.
    case notAnInteger(text: String)
    /// A negative integer where only 0 and up make sense (`hex`, `bytes`).
    case negative(value: String)
    /// A value that does not fit the length asked for.
    case tooLong(needed: Int, length: Int)
    /// A value outside the range a parameter accepts.
    case outOfRange(name: String, expected: String, got: String)
    /// A `range` that would hold more items than a list may.
    case rangeTooLarge(count: String, limit: Int)
    /// A `range` step of zero.
    case zeroStep
    /// A secret whose bytes are not UTF-8 text where text is needed.
    case secretNotText(kind: String)
    /// A secret made by another namespace that this command cannot open.
    case foreignSecret(kind: String)
    /// An option value that is not one of the listed choices.
    case badChoice(option: String, expected: [String], got: String)
    /// `derive` without `--from` while the session has no current HD key.
    case noCurrentKey
    /// An option that makes no sense with the arguments given.
    case optionNotApplicable(option: String, reason: String)
    /// An option that is needed here, and why nothing stands in for it.
    case optionNeeded(option: String, reason: String)
    /// A private serialisation asked for without `--private`.
    case privateNeedsFlag(version: String)
    /// `help TOPIC` for a name that is neither a command nor a namespace.
    case noHelpTopic(topic: String, suggestion: String?)
    /// `keys` without a map: it lists a map's keys; the store's key list is `key.list`.
    case keysNeedsMap
    /// `env NAME --secret KIND` for a variable that is not set.
    case unsetVariable(name: String)

    /// Stable identifier.
    /// Its sentences follow the command's name (`IdentifiableError.followsCommandName`).
    public var followsCommandName: Bool { true }

    public var id: String {
        switch self {
        case .notAnInteger: "builtin.notAnInteger"
        case .negative: "builtin.negative"
        case .tooLong: "builtin.tooLong"
        case .outOfRange: "builtin.outOfRange"
        case .rangeTooLarge: "builtin.rangeTooLarge"
        case .zeroStep: "builtin.zeroStep"
        case .secretNotText: "builtin.secretNotText"
        case .foreignSecret: "builtin.foreignSecret"
        case .badChoice: "builtin.badChoice"
        case .noCurrentKey: "builtin.noCurrentKey"
        case .optionNotApplicable: "builtin.optionNotApplicable"
        case .optionNeeded: "builtin.optionNeeded"
        case .privateNeedsFlag: "builtin.privateNeedsFlag"
        case .noHelpTopic: "builtin.noHelpTopic"
        case .keysNeedsMap: "builtin.keysNeedsMap"
        case .unsetVariable: "builtin.unsetVariable"
        }
    }

    /// One sentence naming the command.
    public var description: String {
        switch self {
        case .keysNeedsMap:
            "expected a map (keys MAP lists its keys); the store's key list is key.list"
        case .unsetVariable(let name):
            "environment variable \(name) is not set (a secret must come from somewhere: export \(name)=… first)"
        case .notAnInteger(let text):
            "expected a decimal or 0x hex integer, got \"\(text)\""
        case .negative(let value):
            "expected an integer of 0 or more, got \(value)"
        case .tooLong(let needed, let length):
            "the value needs \(needed) byte\(needed == 1 ? "" : "s"), more than --length \(length)"
        case .outOfRange(let name, let expected, let got):
            "\(name) must be \(expected), got \(got)"
        case .rangeTooLarge(let count, let limit):
            "a range may hold at most \(limit) items, this one holds \(count)"
        case .zeroStep:
            "the step must not be 0"
        case .secretNotText(let kind):
            "the secret \(kind) must be UTF-8 text, got bytes that are not"
        case .foreignSecret(let kind):
            "cannot use a secret \(kind) here"
        case .badChoice(let option, let expected, let got):
            "--\(option) must be one of \(expected.joined(separator: ", ")), got \(got)"
        case .noCurrentKey:
            "no current HD key; pass one with --from KEY (e.g. --from (hd.master $m))"
        case .optionNotApplicable(let option, let reason):
            "--\(option) does not apply here: \(reason)"
        case .optionNeeded(let option, let reason):
            "--\(option) is needed: \(reason)"
        case .privateNeedsFlag(let version):
            "\(version) holds the private key; add --private to export it (as a secret)"
        case .noHelpTopic(let topic, let suggestion):
            "no command or namespace called \(topic)" + (suggestion.map { "; did you mean \($0)?" } ?? "")
        }
    }
}
