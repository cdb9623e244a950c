import WalletCrypto

/// Errors the builtins raise themselves (the wallet core's typed errors pass through as they
/// are). Cases carry facts; the sentence is written once, in `description`, in the same voice
/// as `ArgumentError`: the command, what was expected, what was given. Secrets are never quoted.
public enum BuiltinError: WalletError, Equatable {
    /// A string that is not a decimal or `0x` hex integer.
    case notAnInteger(command: String, text: String)
    /// A negative integer where only 0 and up make sense (`hex`, `bytes`).
    case negative(command: String, value: String)
    /// A value that does not fit the length asked for.
    case tooLong(command: String, needed: Int, length: Int)
    /// A value outside the range a parameter accepts.
    case outOfRange(command: String, name: String, expected: String, got: String)
    /// A `range` that would hold more items than a list may.
    case rangeTooLarge(command: String, count: String, limit: Int)
    /// A `range` step of zero.
    case zeroStep(command: String)
    /// A secret whose bytes are not UTF-8 text where text is needed.
    case secretNotText(command: String, kind: String)
    /// A secret made by another namespace that this command cannot open.
    case foreignSecret(command: String, kind: String)
    /// An option value that is not one of the listed choices.
    case badChoice(command: String, option: String, expected: [String], got: String)
    /// `derive` without `--from` while the session has no current HD key.
    case noCurrentKey(command: String)
    /// An option that makes no sense with the arguments given.
    case optionNotApplicable(command: String, option: String, reason: String)
    /// A private serialisation asked for without `--private`.
    case privateNeedsFlag(command: String, version: String)
    /// `help TOPIC` for a name that is neither a command nor a namespace.
    case noHelpTopic(topic: String, suggestion: String?)
    /// `keys` without a map: it lists a map's keys; the store's key list is `key.list`.
    case keysNeedsMap(command: String)

    /// Stable identifier.
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
        case .privateNeedsFlag: "builtin.privateNeedsFlag"
        case .noHelpTopic: "builtin.noHelpTopic"
        case .keysNeedsMap: "builtin.keysNeedsMap"
        }
    }

    /// One sentence naming the command.
    public var description: String {
        switch self {
        case .keysNeedsMap(let c):
            "\(c): expected a map (keys MAP lists its keys); the store's key list is key.list"
        case .notAnInteger(let c, let text):
            "\(c): expected a decimal or 0x hex integer, got \"\(text)\""
        case .negative(let c, let value):
            "\(c): expected an integer of 0 or more, got \(value)"
        case .tooLong(let c, let needed, let length):
            "\(c): the value needs \(needed) byte\(needed == 1 ? "" : "s"), more than --length \(length)"
        case .outOfRange(let c, let name, let expected, let got):
            "\(c): \(name) must be \(expected), got \(got)"
        case .rangeTooLarge(let c, let count, let limit):
            "\(c): a range may hold at most \(limit) items, this one holds \(count)"
        case .zeroStep(let c):
            "\(c): the step must not be 0"
        case .secretNotText(let c, let kind):
            "\(c): the secret \(kind) must be UTF-8 text, got bytes that are not"
        case .foreignSecret(let c, let kind):
            "\(c): cannot use a secret \(kind) here"
        case .badChoice(let c, let option, let expected, let got):
            "\(c): --\(option) must be one of \(expected.joined(separator: ", ")), got \(got)"
        case .noCurrentKey(let c):
            "\(c): no current HD key; pass one with --from KEY (e.g. --from (hd.master $m))"
        case .optionNotApplicable(let c, let option, let reason):
            "\(c): --\(option) does not apply here: \(reason)"
        case .privateNeedsFlag(let c, let version):
            "\(c): \(version) holds the private key; add --private to export it (as a secret)"
        case .noHelpTopic(let topic, let suggestion):
            "help: no command or namespace called \(topic)" + (suggestion.map { "; did you mean \($0)?" } ?? "")
        }
    }
}
