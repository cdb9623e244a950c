import CardProtocol
import KCSRuntime
import WalletSession

// `card.trace` and `card.step` (docs/card-explained.md): every exchange with a card shown as it
// happens, at the wire, the secure channel and the meaning, and stepped one command at a time.

extension Builtins {
    static let cardTrace: [Builtin] = [
        Builtin(
            "card.trace",
            params: [
                ParamSpec("level", .string, default: .null, choices: TraceLevel.allCases.map(\.rawValue) + ["save"]),
                ParamSpec("file", .string, default: .null),
            ],
            options: [
                OptionSpec(
                    "reveal", nil,
                    "show session keys, pairing and key material (a simulated card only; a PIN or PUK never)"),
                OptionSpec(
                    "diffable", nil, "random values by their role and no timings, so two runs compare with diff"),
                OptionSpec("json", nil, "each exchange as one JSON document on standard error (also under kcs --json)"),
            ],
            summary:
                "Shows every APDU exchanged with the card as it happens: wire (bytes, timing), channel (the secure channel from the inside), explain (the meaning and what changed); save FILE writes the trace as JSON lines.",
            example: "card.trace explain"
        ) { args in
            let session = try args.session()
            guard let word = args.string("level") else { return cardTraceValue(session.cardTraceSettings, session) }
            if word == "save" {
                guard let file = args.string("file") else {
                    throw BuiltinError.outOfRange(
                        name: "the file", expected: "given: card.trace save FILE writes the trace to it", got: "none")
                }
                let count = try session.saveCardTrace(to: file)
                return .map(ValueMap([("saved", .string(file)), ("exchanges", .int(count))]))
            }
            let settings = try session.setCardTrace(
                TraceLevel(rawValue: word) ?? .off, reveal: args.flag("reveal"), diffable: args.flag("diffable"),
                json: args.flag("json") ? true : nil)
            return cardTraceValue(settings, session)
        },

        Builtin(
            "card.step", params: [ParamSpec("mode", .string, default: .null, choices: ["on", "off"])],
            summary:
                "on: before each APDU, shows what is about to be sent and asks (Enter sends, abort stops the command; at a terminal only); off: sends without asking.",
            example: "card.step on"
        ) { args in
            let session = try args.session()
            guard let mode = args.string("mode") else { return cardTraceValue(session.cardTraceSettings, session) }
            return cardTraceValue(session.setCardStep(mode == "on"), session)
        },
    ]

    static func cardTraceValue(_ s: CardTraceSettings, _ session: Session) -> Value {
        .map(
            ValueMap([
                ("level", .string(s.level.rawValue)), ("reveal", .bool(s.view.reveal)),
                ("diffable", .bool(s.view.diffable)), ("json", .bool(s.json)), ("step", .bool(s.step)),
                ("exchanges", .int(session.cardTraceCount)),
            ]))
    }
}
