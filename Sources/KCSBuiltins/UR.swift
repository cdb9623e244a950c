import KCSRuntime
import WalletCore
import WalletSession

// The `ur` namespace: Uniform Resources as text (docs/ur.md) — the parts of a UR made from CBOR,
// and what a UR (single or multi-part, parts in any order) holds.

extension Builtins {
    static let ur: [Builtin] = [
        Builtin(
            "ur.encode", params: [ParamSpec("type", .string), ParamSpec("cbor", .bytes)],
            options: [
                OptionSpec(
                    "fragment", .int, "the largest fragment in bytes (default 200, as MetaMask and Keycard Shell read)",
                    in: 10...10_000),
                OptionSpec(
                    "parts", .int, "how many parts (default: one per fragment; more adds fountain parts)",
                    in: 1...10_000),
            ],
            summary: "The parts of a UR of TYPE holding CBOR: one part when it fits, else ur:TYPE/N-M/… parts.",
            example: "ur.encode \"bytes\" 0x4401020304"
        ) { args in
            guard let type = args.string("type"), case .bytes(let cbor)? = args["cbor"] else { return .null }
            guard !cbor.isEmpty else { throw BuiltinError.outOfRange(name: "cbor", expected: "CBOR bytes", got: "0x") }
            let resource = try UniformResource(type: type, cbor: cbor)
            let fragment = args.int("fragment") ?? 200
            var encoder = UREncoder(resource, maxFragmentLength: fragment)
            let count = args.int("parts") ?? encoder.sequenceLength
            return .list((0..<(encoder.isSinglePart ? 1 : count)).map { _ in .string(encoder.nextPart()) })
        },

        Builtin(
            "ur.decode", params: [ParamSpec("parts", .oneOf([.string, .list]))],
            summary:
                "What a UR holds (type, CBOR and its meaning), from one part or the parts of a multi-part UR in any order.",
            example: "ur.decode \"ur:crypto-seed/oeadgdstaslplabghydrpfmkbggufgludprfgmaotpiecffltnlpqdenos\""
        ) { args in
            let parts = try pathList(args["parts"])
            let resource = try URDecoder.decodeParts(parts)
            guard case .map(var fields) = scannedValue(try Session.interpret(resource)) else { return .null }
            if fields["type"] == nil { fields["type"] = .string(resource.type) }
            if fields["cbor"] == nil { fields["cbor"] = .bytes(resource.cbor) }
            return .map(fields)
        },
    ]
}
