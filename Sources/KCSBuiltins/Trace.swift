import CardProtocol
import KCSRuntime
import WalletSession

// The `trace` namespace (docs/card-explained.md, "Replay"): a saved card trace explained again
// without a card.

extension Builtins {
    static let trace: [Builtin] = [
        Builtin(
            "trace.explain", params: [ParamSpec("file", .string)],
            options: [
                OptionSpec(
                    "level", .string, "wire, channel or explain (default explain)",
                    choices: TraceLevel.allCases.filter { $0 > .off }.map(\.rawValue)),
                OptionSpec("diffable", nil, "random values by their role and no timings"),
                OptionSpec("step", nil, "one exchange at a time: Enter goes on, back goes one back (a terminal only)"),
            ],
            summary:
                "Replays a trace saved by card.trace save without a card, each exchange explained again at the level asked.",
            example: "trace.explain \"session.trace\" --level channel"
        ) { args in
            let level = TraceLevel(rawValue: args.string("level") ?? "explain") ?? .explain
            let text = try args.session().explainCardTrace(
                args.string("file") ?? "", level: level, view: TraceView(diffable: args.flag("diffable")),
                step: args.flag("step"))
            return .string(text)
        }
    ]
}
