import CardProtocol
import KCSRuntime
import WalletSession

// The `card` namespace, the NDEF message phones read when they tap the card (docs/card-console.md,
// `card.ndef`): the body reads its arguments and calls the session (`WalletSession/Card/CardNDEF.swift`).

extension Builtins {
    static let cardNDEF: [Builtin] = [
        Builtin(
            "card.ndef", traits: [.changesCard],
            params: [
                ParamSpec("action", .string, default: .string("read"), choices: ["read", "write", "clear"]),
                ParamSpec("message", .bytes, default: .null),
            ],
            options: [
                OptionSpec(
                    "uri", .string,
                    "with write: a message of one URI record (what a phone opens when it taps the card)",
                    rules: [
                        .onlyWhen("action", is: ["write"], because: "it goes with card.ndef write"),
                        .notWith(["message"], because: "give the message as BYTES or as --uri, not both"),
                    ])
            ],
            summary:
                "The NDEF message phones read from the card: read (the default; needs the secure channel), write BYTES or --uri URL, clear (both need card.login). Gives {message, length, capacity, uri}.",
            example: "card.ndef write --uri \"https://keycard.tech\""
        ) { args in
            let session = try args.session()
            let action = args.string("action") ?? "read"
            let bytes: [UInt8]? = if case .bytes(let b)? = args.value("message") { b } else { nil }
            let uri = args.string("uri")
            if action != "write", bytes != nil {
                // A parameter's rule (the table declares --uri's).
                throw BuiltinError.optionNotApplicable(
                    option: "message", reason: "only card.ndef write takes a message")
            }
            let ndef: CardNDEF
            switch action {
            case "write": ndef = try session.writeCardNDEF(try ndefMessage(bytes: bytes, uri: uri))
            case "clear": ndef = try session.writeCardNDEF([])
            default: ndef = try session.cardNDEF()
            }
            return .map(
                ValueMap([
                    ("message", .bytes(ndef.message)), ("length", .int(ndef.message.count)),
                    ("capacity", .int(ndef.capacity)), ("uri", ndef.uri.map { .string($0) } ?? .null),
                ]))
        }
    ]

    /// What `card.ndef write` writes: the BYTES given, or one URI record for `--uri` (not both).
    static func ndefMessage(bytes: [UInt8]?, uri: String?) throws -> [UInt8] {
        if let uri { return try NDEFMessage.uri(uri) }
        if let bytes { return bytes }
        throw ArgumentError.missing(position: 2, name: "message", type: .bytes)
    }
}
