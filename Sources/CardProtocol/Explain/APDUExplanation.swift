import WalletCrypto

/// `apdu.explain`: one command (and its answer) decoded offline, as the card trace explains a live
/// one (docs/card-explained.md, "Offline").
public enum APDUExplanation {
    /// Why bytes are not an APDU.
    public enum Failure: WalletError, Equatable {
        case tooShort(what: String, count: Int)
        case lengthMismatch(lc: Int, data: Int)

        public var id: String { "apdu.malformed" }
        /// Said after the command's name, as `apdu.explain: Lc says …`.
        public var followsCommandName: Bool { true }
        public var description: String {
            switch self {
            case .tooShort(let what, let n):
                "\(what) is \(n) byte\(n == 1 ? "" : "s"); it needs at least \(what == "the command" ? 4 : 2)"
            case .lengthMismatch(let lc, let data):
                "Lc says \(lc) data bytes but \(data) follow (expected CLA INS P1 P2 [Lc data] [Le])"
            }
        }
    }

    /// The lines, joined.
    public static func explain(
        command bytes: [UInt8], response: [UInt8]?, generation: KeycardGeneration
    ) throws(Failure) -> String {
        guard bytes.count >= 4 else { throw .tooShort(what: "the command", count: bytes.count) }
        var data: [UInt8] = []
        var le: UInt8?
        if bytes.count == 5 {
            le = bytes[4]
        } else if bytes.count > 5 {
            let lc = Int(bytes[4])
            let rest = bytes.count - 5
            guard rest == lc || rest == lc + 1 else { throw .lengthMismatch(lc: lc, data: rest) }
            data = Array(bytes[5..<5 + lc])
            if rest == lc + 1 { le = bytes.last }
        }
        // The secret rule of the trace holds here too: a PIN typed in is not echoed (docs/card-explained.md).
        let apdu = CommandAPDU(cla: bytes[0], ins: bytes[1], p1: bytes[2], p2: bytes[3], data: data)
        let sensitivity = TraceSensitivity.of(apdu, generation: generation)
        let kept = sensitivity.command.kept(data, reveal: false)
        let command = TraceCommand(header: Array(bytes[0..<4]), data: kept, count: data.count)
        let explainer = KeycardExplainer(generation: generation)
        let shown =
            kept == nil
            ? spaced(Array(bytes.prefix(5))) + " "
                + (sensitivity.command == .pin ? TraceView.bullets(data.count) : TraceView.masked(data.count))
            : spaced(bytes)
        var lines = ["command \(shown)"] + explainer.explain(command).map { "  " + $0.description }
        if let le { lines.append("  Le \(hexByte(le)) (the applet ignores it)") }
        if let response {
            guard response.count >= 2 else { throw .tooShort(what: "the answer", count: response.count) }
            let sw = UInt16(response[response.count - 2]) << 8 | UInt16(response[response.count - 1])
            let body = Array(response.dropLast(2))
            let answer = TraceAnswer(data: sensitivity.answer.kept(body, reveal: false), count: body.count, sw: sw)
            lines.append(
                "answer "
                    + (answer.data == nil
                        ? TraceView.masked(body.count) + " " + spaced(Array(response.suffix(2))) : spaced(response)))
            lines += explainer.explain(answer, to: command).map { "  " + $0.description }
            var state = CardTraceState()
            lines += state.apply(command, answer, generation: generation, view: TraceView()).map { "  card: " + $0 }
        }
        return lines.joined(separator: "\n")
    }
}
