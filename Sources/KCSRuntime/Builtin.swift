/// Builtins are tables (STYLE §3): each namespace file in KCSBuiltins owns a list of
/// `Builtin`s, and everything else — arity and type checks, argument errors, help, completion,
/// history redaction — is derived from those entries here, once.

import KCSErrors
import KCSSyntax

/// What a parameter or option accepts.
public indirect enum ValueType: Sendable, Equatable, CustomStringConvertible {
    case any
    case bool, int, string, bytes, list, map
    /// A secret of the given kind (nil: any kind).
    case secret(String?)
    /// A value a namespace registered, by its type name ("path", "address", …).
    case domain(String)
    /// Any of several types.
    case oneOf([ValueType])

    /// True when `value` is of this type.
    public func accepts(_ value: Value) -> Bool {
        switch (self, value) {
        case (.any, _): true
        case (.bool, .bool), (.string, .string), (.bytes, .bytes), (.list, .list), (.map, .map): true
        case (.int, .int), (.int, .bigInt): true
        case (.secret(let kind), .secret(let s)): kind == nil || kind == s.kind
        case (.domain(let name), .domain(let d)): d.typeName == name
        case (.oneOf(let types), _): types.contains { $0.accepts(value) }
        default: false
        }
    }

    /// The phrase used in argument errors: "a string", "an int", "a derivation path".
    public var description: String {
        switch self {
        case .any: "a value"
        case .bool: "a bool"
        case .int: "an int"
        case .string: "a string"
        case .bytes: "bytes"
        case .list: "a list"
        case .map: "a map"
        case .secret(let kind): kind.map { "a secret \($0)" } ?? "a secret"
        case .domain(let name): (name.first.map { "aeiou".contains($0) } == true ? "an " : "a ") + name
        case .oneOf(let types): types.map(\.description).joined(separator: " or ")
        }
    }
}

/// One positional parameter of a builtin.
public struct ParamSpec: Sendable, Equatable {
    public let name: String
    public let type: ValueType
    /// Used when the argument is left out; nil means required (unless `isSecret` and the host
    /// can ask for it).
    public let defaultValue: Value?
    /// A secret parameter: asked without echo at a terminal when left out, and replaced by
    /// `<secret>` in the history.
    public let isSecret: Bool
    /// The only values accepted (a string, or an int by its decimal text); empty: any. Checked
    /// by `bind`, shown by `help`, offered by Tab completion (docs/language.md §4).
    public let choices: [String]

    public init(
        _ name: String, _ type: ValueType, default defaultValue: Value? = nil, secret: Bool = false,
        choices: [String] = []
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.isSecret = secret
        self.choices = choices
    }
}

/// How an option stands to the command's other arguments, declared in the table and checked by
/// `bind` before the body runs (the error: "--NAME does not apply here: WHY",
/// `builtin.optionNotApplicable`). A name is an option's or a positional parameter's; it is
/// given when the call wrote it.
public enum OptionRule: Sendable, Equatable {
    /// The option needs `other` beside it (`--tweak` only with `--schnorr`).
    case onlyWith(String, because: String)
    /// The option cannot go with any of `others` (`--pinless` with `--path`).
    case notWith([String], because: String)
    /// The option needs `other` — an option, or a parameter with its default — to be one of
    /// `values` (`card.load`'s `--chain-code` only when it loads a keypair).
    case onlyWhen(String, is: [String], because: String)

    /// The names the rule speaks of.
    public var names: [String] {
        switch self {
        case .onlyWith(let other, _): [other]
        case .notWith(let others, _): others
        case .onlyWhen(let other, _, _): [other]
        }
    }
}

/// One `--name value` option or `--flag`.
public struct OptionSpec: Sendable, Equatable {
    public let name: String
    /// nil for a flag (present or not).
    public let type: ValueType?
    public let summary: String
    public let isSecret: Bool
    /// The only values accepted (a string, or an int by its decimal text); empty: any.
    public let choices: [String]
    /// The integers accepted, for an int option; nil: any.
    public let range: ClosedRange<Int>?
    /// What it needs beside it or cannot go with (`OptionRule`).
    public let rules: [OptionRule]

    public init(
        _ name: String, _ type: ValueType?, _ summary: String, secret: Bool = false,
        choices: [String] = [], in range: ClosedRange<Int>? = nil, rules: [OptionRule] = []
    ) {
        self.name = name
        self.type = type
        self.summary = summary
        self.isSecret = secret
        self.choices = choices
        self.range = range
        self.rules = rules
    }

    /// What `help` shows after the name: the type, and the choices or the range when declared.
    public var valueDescription: String? {
        guard let type else { return nil }
        if !choices.isEmpty { return "one of " + choices.joined(separator: ", ") }
        if let range { return "\(type), \(range.lowerBound) to \(range.upperBound)" }
        return type.description
    }
}

/// The text a value is matched against declared choices by: a string as it is, an integer in
/// decimal; nil for any other value (which no choice matches).
func choiceText(_ value: Value) -> String? {
    switch value {
    case .string(let s): s
    case .int(let n): String(n)
    case .bigInt(let n): String(n)
    default: nil
    }
}

/// What the host lends builtins besides their arguments: the console's session (store,
/// vault, active signer, clock, prompts). The runtime only passes it along; the builtins
/// module defines the concrete type (STYLE §3: the body gets the arguments and the session).
public protocol BuiltinContext: AnyObject {
    /// Runs one builtin body, `command`'s: the place a context watches what a command does
    /// (the session's effects log, a test aid). The default just runs it.
    func running(_ command: String, _ body: () throws -> Value) throws -> Value
}

extension BuiltinContext {
    public func running(_ command: String, _ body: () throws -> Value) throws -> Value { try body() }
}

/// The checked arguments a builtin body receives, and the session it runs in.
public struct CallArguments {
    /// The full name of the command being run (`card.pair`), filled in by whoever calls the
    /// body (`Builtin.bind`, the interpreter): bodies name themselves in errors through it and
    /// never write their own name.
    public let command: String
    /// Positional parameters by name (defaults filled in; absent optional secrets are missing).
    public let values: [String: Value]
    /// Options given (flags map to `.bool(true)`).
    public let options: [String: Value]
    /// The host's session, when it has one (the console always does; bare interpreters in
    /// tests may not).
    public let context: (any BuiltinContext)?

    public init(
        command: String, values: [String: Value], options: [String: Value], context: (any BuiltinContext)? = nil
    ) {
        self.command = command
        self.values = values
        self.options = options
        self.context = context
    }

    /// The argument `name`.
    public subscript(name: String) -> Value? { values[name] }

    /// True when the flag `name` was given.
    public func flag(_ name: String) -> Bool { options[name] == .bool(true) }
}

/// What a command does beyond its value that someone must know before it runs (a batch run's
/// pre-check): declared in its table entry. The runtime defines no members; the tables that
/// need a trait define it (`KCSBuiltins`), and a test holds the declarations to the behaviour.
public struct BuiltinTraits: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// The part of a command's value with a natural QR form, which its `--qr` option draws.
public enum QRField: Sendable, Equatable {
    /// The value itself.
    case value
    /// This field of the value.
    case field(String)
}

/// A command or function the language can call.
public struct Builtin: Sendable {
    /// Full dotted name: `card.pair`, `derive`, `keystore.load`.
    public let name: String
    public let params: [ParamSpec]
    public let options: [OptionSpec]
    /// One line for `help`.
    public let summary: String
    /// One example line for `help NAME`.
    public let example: String
    /// The body: checked arguments in, a value out; it does not print.
    public let body: @Sendable (CallArguments) throws -> Value
    /// Other spellings that call this builtin (older names kept working, docs/language.md §4);
    /// `help` and errors use `name`.
    public let aliases: [String]
    /// What it does beyond its value (`BuiltinTraits`).
    public let traits: BuiltinTraits
    /// The part of its value `--qr` draws, when it has one.
    public let qr: QRField?

    public init(
        _ name: String, traits: BuiltinTraits = [], qr: QRField? = nil, aliases: [String] = [],
        params: [ParamSpec] = [], options: [OptionSpec] = [],
        summary: String, example: String, body: @escaping @Sendable (CallArguments) throws -> Value
    ) {
        self.name = name
        self.traits = traits
        self.qr = qr
        self.aliases = aliases
        self.params = params
        self.options = options
        self.summary = summary
        self.example = example
        self.body = body
    }

    /// This builtin under another of its spellings (an alias), as `lookup` returns it.
    func spelled(_ alias: String) -> Builtin {
        Builtin(
            alias, traits: traits, qr: qr, aliases: [name] + aliases.filter { $0 != alias }, params: params,
            options: options, summary: summary, example: example, body: body)
    }

    /// The namespace word (`card` for `card.pair`), or nil for a top-level command.
    public var namespace: String? {
        name.firstIndex(of: ".").map { String(name[..<$0]) }
    }

    /// `card.sign HASH [PATH] [--pinless]` — the usage line help prints.
    public var usage: String {
        var parts = [name]
        for p in params {
            let n = p.name.uppercased()
            parts.append(p.defaultValue == nil && !p.isSecret ? n : "[\(n)]")
        }
        for o in options { parts.append(o.type == nil ? "[--\(o.name)]" : "[--\(o.name) \(o.name.uppercased())]") }
        return parts.joined(separator: " ")
    }
}

/// Why arguments do not fit a builtin; rendered in one voice ("card.sign: argument 2 (path)
/// must be a derivation path, got string").
public enum ArgumentError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooMany(max: Int, got: Int)
    case missing(position: Int, name: String, type: ValueType)
    case wrongType(position: Int, name: String, expected: ValueType, got: String)
    case unknownOption(option: String, known: [String])
    case optionNeedsValue(option: String, type: ValueType)
    case flagTakesNoValue(option: String)
    case optionWrongType(option: String, expected: ValueType, got: String)
    /// A value outside the declared choices; `option` is the option's or the parameter's name.
    case badChoice(option: String, expected: [String], got: String)
    /// An integer outside the declared range; `name` is `--option`.
    case outOfRange(name: String, expected: String, got: String)
    /// An option given against one of its declared rules (`OptionRule`).
    case notApplicable(option: String, reason: String)

    /// Stable identifier.
    public var id: String {
        switch self {
        case .tooMany: "call.tooManyArguments"
        case .missing: "call.missingArgument"
        case .wrongType: "call.wrongType"
        case .unknownOption: "call.unknownOption"
        case .optionNeedsValue: "call.optionNeedsValue"
        case .flagTakesNoValue: "call.flagTakesNoValue"
        case .optionWrongType: "call.optionWrongType"
        // These two were raised by builtin bodies before the tables declared choices and
        // ranges; scripts catch them by these ids.
        case .badChoice: "builtin.badChoice"
        case .outOfRange: "builtin.outOfRange"
        case .notApplicable: "builtin.optionNotApplicable"
        }
    }

    public var description: String {
        switch self {
        case .tooMany(let max, let got):
            "takes at most \(max) argument\(max == 1 ? "" : "s"), got \(got)"
        case .missing(let pos, let name, let type):
            "argument \(pos) (\(name)) is missing; expected \(type)"
        case .wrongType(let pos, let name, let expected, let got):
            "argument \(pos) (\(name)) must be \(expected), got \(got)"
        case .unknownOption(let option, let known):
            known.isEmpty
                ? "takes no options, got --\(option)"
                : "unknown option --\(option); expected one of \(known.map { "--" + $0 }.joined(separator: ", "))"
        case .optionNeedsValue(let option, let type):
            "option --\(option) needs a value (\(type))"
        case .flagTakesNoValue(let option):
            "--\(option) is a flag and takes no value"
        case .optionWrongType(let option, let expected, let got):
            "option --\(option) must be \(expected), got \(got)"
        case .badChoice(let option, let expected, let got):
            "--\(option) must be one of \(expected.joined(separator: ", ")), got \(got)"
        case .outOfRange(let name, let expected, let got):
            "\(name) must be \(expected), got \(got)"
        case .notApplicable(let option, let reason):
            "--\(option) does not apply here: \(reason)"
        }
    }
}

extension Builtin {
    /// Checks positional arguments and options against the table entry. `options` maps a
    /// name to its value, or to nil when the option was written without one.
    /// Absent secret parameters without a default are left out of the result: the caller asks
    /// for them (terminal) or reports how to supply them (batch).
    public func bind(_ positional: [Value], options given: [(String, Value?)]) throws(ArgumentError) -> CallArguments {
        guard positional.count <= params.count else {
            throw .tooMany(max: params.count, got: positional.count)
        }
        var values: [String: Value] = [:]
        for (i, p) in params.enumerated() {
            if i < positional.count {
                let v = positional[i]
                guard p.type.accepts(v) else {
                    throw .wrongType(position: i + 1, name: p.name, expected: p.type, got: v.typeName)
                }
                if !p.choices.isEmpty, choiceText(v).map(p.choices.contains) != true {
                    throw .badChoice(option: p.name, expected: p.choices, got: choiceText(v) ?? v.typeName)
                }
                values[p.name] = v
            } else if let d = p.defaultValue {
                values[p.name] = d
            } else if !p.isSecret {
                throw .missing(position: i + 1, name: p.name, type: p.type)
            }
        }
        var opts: [String: Value] = [:]
        for (key, value) in given {
            guard let spec = options.first(where: { $0.name == key }) else {
                throw .unknownOption(option: key, known: options.map(\.name))
            }
            switch (spec.type, value) {
            case (nil, nil): opts[key] = .bool(true)
            case (nil, .some): throw .flagTakesNoValue(option: key)
            case (.some(let t), nil): throw .optionNeedsValue(option: key, type: t)
            case (.some(let t), .some(let v)):
                guard t.accepts(v) else { throw .optionWrongType(option: key, expected: t, got: v.typeName) }
                if !spec.choices.isEmpty, choiceText(v).map(spec.choices.contains) != true {
                    throw .badChoice(option: key, expected: spec.choices, got: choiceText(v) ?? v.typeName)
                }
                if let range = spec.range, let text = choiceText(v) {
                    guard let n = Int(text), range.contains(n) else {
                        throw .outOfRange(
                            name: "--" + key,
                            expected: "\(range.lowerBound) to \(range.upperBound)", got: text)
                    }
                }
                opts[key] = v
            }
        }
        // The declared rules, in the table's order of options.
        let written = Set(opts.keys).union(params.prefix(positional.count).map(\.name))
        for spec in options where opts[spec.name] != nil {
            for rule in spec.rules {
                switch rule {
                case .onlyWith(let other, let reason) where !written.contains(other):
                    throw .notApplicable(option: spec.name, reason: reason)
                case .notWith(let others, let reason) where others.contains(where: written.contains):
                    throw .notApplicable(option: spec.name, reason: reason)
                case .onlyWhen(let other, let allowed, let reason)
                where (opts[other] ?? values[other]).flatMap(choiceText).map(allowed.contains) != true:
                    throw .notApplicable(option: spec.name, reason: reason)
                default: break
                }
            }
        }
        return CallArguments(command: name, values: values, options: opts)
    }

    /// The parameters (by position) and options whose values must never reach the history.
    public var secretPositions: [Int] { params.indices.filter { params[$0].isSecret } }
}

/// All builtins of a session, checked once: unique names, a summary and an example each.
public struct BuiltinRegistry: Sendable {
    public let builtins: [Builtin]
    /// Name or alias → index into `builtins` (`NameIndex`: no `Dictionary` is made at start-up).
    private let byName: NameIndex
    /// Checks a 20-byte `0x…` literal as it was written, before it becomes bytes: the spelling
    /// carries what the bytes lose (an Ethereum address's EIP-55 letter case). An error it
    /// returns is raised where the literal is evaluated, as a builtin's error would be. The
    /// language knows nothing of addresses; the wallet's tables install this.
    public var addressLiteralCheck: (@Sendable (_ spelling: String) -> (any IdentifiableError)?)?

    /// Builds the registry; two entries with one name is a programming error.
    public init(_ builtins: [Builtin]) {
        var index = NameIndex(capacity: builtins.count + 16)
        for (i, b) in builtins.enumerated() {
            precondition(index.insert(b.name, value: i), "builtin \(b.name) is registered twice")
            precondition(!b.summary.isEmpty && !b.example.isEmpty, "builtin \(b.name) needs a summary and an example")
            let names = Set(b.options.map(\.name) + b.params.map(\.name))
            for o in b.options {
                precondition(
                    o.rules.allSatisfy { $0.names.allSatisfy(names.contains) },
                    "builtin \(b.name): a rule of --\(o.name) names no argument of it")
            }
            for a in b.aliases {
                precondition(index.insert(a, value: i), "alias \(a) of \(b.name) is already a name")
            }
        }
        self.builtins = builtins
        byName = index
    }

    /// Every name the language knows a builtin by: the canonical names, then the aliases.
    public var allNames: [String] { builtins.map(\.name) + builtins.flatMap(\.aliases) }

    /// The builtin called `name`. Under an alias it comes back named as written, so its
    /// errors name the command the way the script spelled it (docs/language.md §4).
    public func lookup(_ name: String) -> Builtin? {
        byName.value(of: name).map { builtins[$0].name == name ? builtins[$0] : builtins[$0].spelled(name) }
    }

    /// The canonical name of `name` (itself, or the builtin it is an alias of).
    public func canonicalName(_ name: String) -> String? { byName.value(of: name).map { builtins[$0].name } }

    /// Namespace words in first-seen order (`card`, `keystore`, …).
    public var namespaces: [String] {
        var seen: [String] = []
        for b in builtins { if let n = b.namespace, !seen.contains(n) { seen.append(n) } }
        return seen
    }

    /// Names starting with `prefix`, sorted: tab completion of command names.
    public func completions(for prefix: String) -> [String] {
        builtins.map(\.name).filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// `help`: one line per namespace with its commands; `help NAME`: usage, summary, options, example.
    public func help(_ topic: String? = nil) -> String? {
        guard let topic else {
            let top = builtins.filter { $0.namespace == nil }.map(\.name)
            var lines = top.isEmpty ? [] : ["commands: " + top.joined(separator: ", ")]
            for ns in namespaces {
                lines.append(
                    "\(ns): "
                        + builtins.filter { $0.namespace == ns }.map { String($0.name.dropFirst(ns.count + 1)) }.joined(
                            separator: ", "))
            }
            return lines.joined(separator: "\n")
        }
        if let b = canonicalName(topic).flatMap(lookup) {
            var lines = [b.usage, "  " + b.summary]
            for p in b.params where !p.choices.isEmpty {
                lines.append("  \(p.name.uppercased()): one of \(p.choices.joined(separator: ", "))")
            }
            for o in b.options {
                lines.append("  --\(o.name)\(o.valueDescription.map { " (\($0))" } ?? "")  \(o.summary)")
            }
            if !b.aliases.isEmpty { lines.append("  also written: " + b.aliases.joined(separator: ", ")) }
            lines.append("  example: " + b.example)
            return lines.joined(separator: "\n")
        }
        let inNamespace = builtins.filter { $0.namespace == topic }
        guard !inNamespace.isEmpty else { return nil }
        let width = inNamespace.map(\.name.count).max() ?? 0
        return inNamespace.map { $0.name.padding(to: width) + "  " + $0.summary }.joined(separator: "\n")
    }
}
