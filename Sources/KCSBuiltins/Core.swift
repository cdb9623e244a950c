import BigInt
import KCSRuntime
import WalletCore
import WalletCrypto

// The language's own functions, without a namespace word: conversions, hashes, and string,
// list and map helpers (docs/language.md §5). `print` is a statement, not a builtin.

extension Builtins {
    static let core: [Builtin] = [
        Builtin(
            "len", params: [ParamSpec("value", .oneOf([.string, .bytes, .list, .map]))],
            summary: "Number of characters of a string, bytes of bytes, items of a list or entries of a map.",
            example: "len [1, 2, 3]   # 3"
        ) { args in
            switch args.value("value") {
            case .string(let s): .int(s.count)
            case .bytes(let b): .int(b.count)
            case .list(let l): .int(l.count)
            case .map(let m): .int(m.count)
            default: .null
            }
        },

        Builtin(
            "type", params: [ParamSpec("value", .any)],
            summary: "The type name of a value: int, string, bytes, list, map, path, hdkey, secret mnemonic, ….",
            example: "type 0x00   # \"bytes\""
        ) { args in
            .string((args["value"] ?? .null).typeName)
        },

        Builtin(
            "json", params: [ParamSpec("value", .any)],
            summary:
                "The JSON text of any value, as --json prints it: maps in order, bytes as \"0x…\", big integers as strings, secrets as \"<secret KIND>\".",
            example: "json {\"to\": 0x35, \"n\": 2}   # {\"to\":\"0x35\",\"n\":2}"
        ) { args in
            .string((args["value"] ?? .null).json)
        },

        Builtin(
            "str", params: [ParamSpec("value", .any)],
            summary: "A value as a one-line string (secrets stay <secret KIND>).",
            example: "str 42   # \"42\""
        ) { args in
            .string((args["value"] ?? .null).inlineText)
        },

        Builtin(
            "int", params: [ParamSpec("value", .oneOf([.int, .string, .bytes]))],
            summary: "An integer from a decimal or 0x hex string (at most 4096 digits), or from bytes read big-endian.",
            example: "int \"0xff\"   # 255"
        ) { args in
            switch args.value("value") {
            case .string(let s): return try .integer(parseInteger(s))
            case .bytes(let b): return .integer(integer(bigEndian: b))
            case let v?: return v
            case nil: return .null
            }
        },

        Builtin(
            "hex", params: [ParamSpec("value", .oneOf([.int, .bytes]))],
            summary: "Lower-case 0x hex text of a non-negative integer or of bytes.",
            example: "hex 255   # \"0xff\""
        ) { args in
            switch args.value("value") {
            case .bytes(let b): return .string(Hex.encodePrefixed(b))
            case let v?:
                let n = v.bigIntValue ?? 0
                guard n.sign == .plus || n.isZero else { throw BuiltinError.negative(value: String(n)) }
                return .string("0x" + String(n, radix: 16))
            case nil: return .null
            }
        },

        Builtin(
            "bytes", params: [ParamSpec("value", .oneOf([.string, .int, .bytes]))],
            options: [
                OptionSpec("utf8", nil, "take a string starting with 0x as text, not hex"),
                OptionSpec("length", .int, "pad an integer to this many bytes (big-endian)"),
            ],
            summary: "Bytes from 0x hex text, from the UTF-8 of any other string, or from an integer (big-endian).",
            example: "bytes \"0x1c8a\"   # 0x1c8a; bytes \"hi\" is 0x6869"
        ) { args in
            switch args.value("value") {
            case .string(let s):
                if !args.flag("utf8"), s.hasPrefix("0x") || s.hasPrefix("0X") { return .bytes(try Hex.decode(s)) }
                return .bytes(Array(s.utf8))
            case .bytes(let b): return .bytes(b)
            case let v?:
                let n = v.bigIntValue ?? 0
                guard n.sign == .plus || n.isZero else { throw BuiltinError.negative(value: String(n)) }
                var out = bigEndian(n)
                if let length = args.integer("length") {
                    let want = try smallInt(length, "--length", in: 1...4096)
                    if out.count > want, out.first == 0 { out.removeFirst() }
                    guard out.count <= want else { throw BuiltinError.tooLong(needed: out.count, length: want) }
                    out = [UInt8](repeating: 0, count: want - out.count) + out
                }
                return .bytes(out)
            case nil: return .null
            }
        },

        Builtin(
            "sha256", params: [ParamSpec("data", .oneOf([.bytes, .string]))],
            summary: "SHA-256 of bytes, or of a string's UTF-8.",
            example: "sha256 \"abc\"   # 0xba7816bf…"
        ) { args in
            .bytes(Hash.sha256(dataBytes(args["data"])))
        },

        Builtin(
            "keccak256", params: [ParamSpec("data", .oneOf([.bytes, .string]))],
            summary: "Keccak-256 (Ethereum's hash, not SHA3-256) of bytes, or of a string's UTF-8.",
            example: "keccak256 \"\"   # 0xc5d2460186f7…"
        ) { args in
            .bytes(Hash.keccak256(dataBytes(args["data"])))
        },

        Builtin(
            "range",
            params: [
                ParamSpec("start", .int), ParamSpec("end", .int, default: .null),
                ParamSpec("step", .int, default: .int(1)),
            ],
            summary: "A list of integers: range N is 0…N-1; range A B [STEP] counts from A up to (not including) B.",
            example: "range 1 10 3   # [1, 4, 7]"
        ) { args in
            var start = args.integer("start") ?? 0
            var end = args.integer("end") ?? 0
            if args.value("end") == nil { (start, end) = (0, start) }
            let step = args.integer("step") ?? 1
            guard !step.isZero else { throw BuiltinError.zeroStep }
            let span = end - start
            var count = (span + step - (step.sign == .plus ? 1 : -1)) / step
            if count.sign == .minus { count = 0 }
            guard count <= BigInt(rangeLimit) else {
                throw BuiltinError.rangeTooLarge(count: String(count), limit: rangeLimit)
            }
            var out: [Value] = []
            out.reserveCapacity(Int(count))
            var i = start
            for _ in 0..<Int(count) {
                out.append(.integer(i))
                i += step
            }
            return .list(out)
        },

        Builtin(
            "keys", params: [ParamSpec("map", .map, default: .null)],
            summary: "The keys of a map, in insertion order (the key list of the store is key.list).",
            example: "keys {\"a\": 1, \"b\": 2}   # [\"a\", \"b\"]"
        ) { args in
            // One name, one meaning (docs/language.md §4): the dashboard is key.list.
            guard case .map(let m)? = args["map"] else { throw BuiltinError.keysNeedsMap }
            return .list(m.keys.map { .string($0) })
        },

        Builtin(
            "values", params: [ParamSpec("map", .map)],
            summary: "The values of a map, in insertion order.",
            example: "values {\"a\": 1, \"b\": 2}   # [1, 2]"
        ) { args in
            .list(args.map("map").pairs.map(\.value))
        },

        Builtin(
            "contains",
            params: [ParamSpec("collection", .oneOf([.string, .bytes, .list, .map])), ParamSpec("item", .any)],
            summary: "True when a list holds the item, a map has the key, or a string or bytes holds the part.",
            example: "contains [1, 2] 2   # true"
        ) { args in
            let item = args["item"] ?? .null
            func wrong(_ expected: ValueType) -> ArgumentError {
                .wrongType(position: 2, name: "item", expected: expected, got: item.typeName)
            }
            switch (args.value("collection"), item) {
            case (.list(let l), _): return .bool(l.contains(item))
            case (.map(let m), .string(let k)): return .bool(m[k] != nil)
            case (.map, _): throw wrong(.string)
            case (.string(let s), .string(let part)): return .bool(part.isEmpty || s.contains(part))
            case (.string, _): throw wrong(.string)
            case (.bytes(let b), .bytes(let part)): return .bool(contains(b, part))
            case (.bytes(let b), .int(let n)): return .bool((0...255).contains(n) && b.contains(UInt8(n)))
            case (.bytes, _): throw wrong(.oneOf([.bytes, .int]))
            default: return .bool(false)
            }
        },

        Builtin(
            "append", params: [ParamSpec("list", .list), ParamSpec("item", .any)],
            summary: "A new list: the list with the item added at the end (the original is unchanged).",
            example: "let l = append [1, 2] 3   # [1, 2, 3]"
        ) { args in
            .list(args.list("list") + [args["item"] ?? .null])
        },

        Builtin(
            "join", params: [ParamSpec("list", .list), ParamSpec("separator", .string, default: .string(" "))],
            summary: "The items of a list as one string, separated by SEPARATOR (a space unless given).",
            example: "join [\"a\", \"b\", 3] \", \"   # \"a, b, 3\""
        ) { args in
            .string(args.list("list").map(\.inlineText).joined(separator: args.string("separator") ?? " "))
        },

        Builtin(
            "split", params: [ParamSpec("text", .string), ParamSpec("separator", .string, default: .null)],
            summary:
                "A list of the parts of a string: at runs of whitespace, or at each SEPARATOR (\"\" for characters).",
            example: "split \"a,b,,c\" \",\"   # [\"a\", \"b\", \"\", \"c\"]"
        ) { args in
            let text = args.string("text") ?? ""
            guard let sep = args.string("separator") else {
                return .list(text.split(whereSeparator: \.isWhitespace).map { .string(String($0)) })
            }
            if sep.isEmpty { return .list(text.map { .string(String($0)) }) }
            return .list(text.split(separator: sep, omittingEmptySubsequences: false).map { .string(String($0)) })
        },

        Builtin(
            "upper", params: [ParamSpec("text", .string)],
            summary: "The string in upper case.",
            example: "upper \"eth\"   # \"ETH\""
        ) { args in
            .string((args.string("text") ?? "").uppercased())
        },

        Builtin(
            "lower", params: [ParamSpec("text", .string)],
            summary: "The string in lower case.",
            example: "lower \"0xABC\"   # \"0xabc\""
        ) { args in
            .string((args.string("text") ?? "").lowercased())
        },

        Builtin(
            "reveal", params: [ParamSpec("secret", .secret(nil))],
            summary:
                "The one deliberate way to show a secret: its text (a mnemonic's words, an xprv), or 0x hex for a seed.",
            example: "print (reveal $m)   # shows the words: only where nobody can see the screen"
        ) { args in
            guard case .secret(let s)? = args["secret"] else { return .null }
            return .string(try reveal(s))
        },
    ]
}

extension Builtins {
    /// Largest list `range` builds.
    static let rangeLimit = 10_000_000

    // MARK: - Helpers of the core table

    /// The longest digit string `int` converts (after a sign and `0x`, separators counted): far
    /// above any wallet quantity (2^256 has 78 decimal digits), and converted at once; a million
    /// digits took seconds.
    static let maximumIntegerDigits = 4096

    /// Parses `[-+]digits` (with `_` separators) or `[-]0x hex`, surrounding blanks ignored.
    static func parseInteger(_ text: String) throws(BuiltinError) -> BigInt {
        var s = Substring(text.trimmed(" \t\n"))
        var negative = false
        if let first = s.first, first == "-" || first == "+" {
            negative = first == "-"
            s = s.dropFirst()
        }
        var radix = 10
        if s.hasPrefix("0x") || s.hasPrefix("0X") {
            radix = 16
            s = s.dropFirst(2)
        }
        // Checked first, so a long text is neither converted (quadratic in its length) nor quoted.
        guard s.utf8.count <= maximumIntegerDigits else {
            throw .outOfRange(
                name: "argument 1 (value)",
                expected: "at most \(maximumIntegerDigits) digits long", got: String(s.utf8.count))
        }
        let digits = s.filter { $0 != "_" }
        guard !digits.isEmpty, !s.hasPrefix("_"), !s.hasSuffix("_"),
            digits.allSatisfy({ $0.isASCII && $0.isHexDigit && (radix == 16 || $0.isNumber) }),
            let magnitude = BigUInt(digits, radix: radix)
        else { throw .notAnInteger(text: text) }
        let n = BigInt(magnitude)
        return negative ? -n : n
    }

    /// Bytes of a `bytes` or `string` (UTF-8) argument.
    static func dataBytes(_ value: Value?) -> [UInt8] {
        switch value {
        case .bytes(let b): b
        case .string(let s): Array(s.utf8)
        default: []
        }
    }

    /// True when `part` occurs in `bytes`.
    static func contains(_ bytes: [UInt8], _ part: [UInt8]) -> Bool {
        guard !part.isEmpty else { return true }
        guard part.count <= bytes.count else { return false }
        return (0...bytes.count - part.count).contains { bytes[$0..<$0 + part.count].elementsEqual(part) }
    }

    /// The text of a secret: UTF-8 for text kinds (a mnemonic in its display form), 0x hex
    /// for byte kinds (a seed).
    static func reveal(_ s: SecretValue) throws(BuiltinError) -> String {
        let secret = try secretBytes(s)
        if s.kind == SecretKind.mnemonic.rawValue, let m = try? Mnemonic(phrase: secret) {
            return m.withDisplayPhrase { $0 }
        }
        if SecretKind(rawValue: s.kind)?.isText ?? true,
            let text = secret.withUnsafeBytes({ String(validating: $0, as: UTF8.self) })
        {
            return text
        }
        return secret.withUnsafeBytes { Hex.encodePrefixed($0) }
    }
}

extension String {
    fileprivate func trimmed(_ set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
