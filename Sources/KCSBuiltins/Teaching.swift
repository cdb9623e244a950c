import CardProtocol
import Foundation
import KCSRuntime
import WalletCore
import WalletCrypto
import WalletSession
import WalletStore

// Teaching BIP-32/44 by hand (docs/wallet-core.md): the reports behind `path.explain`,
// `mnemonic.explain`, `xkey.explain`, `presets.compare`, `path.find` and `derive --trace`. The
// answers are reports: records whose rows read top to bottom as the explanation.

extension Builtins {

    // MARK: - derive --from

    /// What `derive --from` accepts: an HD key, or what makes one (a mnemonic, a seed, an xprv
    /// or xpub).
    static let deriveSourceType = ValueType.oneOf([
        .domain("hdkey"), .secret(SecretKind.mnemonic.rawValue), .secret(SecretKind.seed.rawValue),
        .secret(SecretKind.xprv.rawValue), .string, .bytes,
    ])

    /// Where a derivation starts: the key, its path when known, and the master key's step
    /// when the caller gave a seed (a trace then starts with that HMAC step).
    struct DeriveStart {
        let key: ExtendedKey
        let path: DerivationPath?
        let master: DerivationStep?

        init(key: ExtendedKey, path: DerivationPath?) {
            self.key = key
            self.path = path
            master = nil
        }

        /// The master key of `seed`, at `m`; its step is kept for a trace.
        init(seed: Secret) throws {
            let step = try ExtendedKey.tracedMaster(seed: seed)
            key = step.child
            path = DerivationPath(absolute: true, [])
            master = step
        }
    }

    /// The HD key `derive --from` names, or nil when the option is absent.
    static func deriveSource(_ value: Value?) throws -> HDKeyValue? {
        guard let value else { return nil }
        let start = try deriveStart(value)
        return HDKeyValue(start.key, path: start.path)
    }

    /// An HD key as it is; a mnemonic (secret, or text with spaces) or a seed (secret or
    /// bytes) as its master key; xprv/xpub text (secret or not) decoded.
    static func deriveStart(_ value: Value) throws -> DeriveStart {
        switch value {
        case .domain(let d as HDKeyValue):
            return DeriveStart(key: d.key, path: d.path)
        case .bytes(let b):
            return try DeriveStart(seed: Secret(bytes: b))
        case .secret(let s) where s.kind == SecretKind.mnemonic.rawValue:
            return try DeriveStart(seed: try parseMnemonic(value, language: nil).seed())
        case .secret(let s) where s.kind == SecretKind.seed.rawValue:
            return try DeriveStart(seed: try secretBytes(s))
        case .string, .secret:
            // Text (or a secret xprv): words with blanks between them are a phrase, else an xprv or xpub.
            let text = try extendedKeyText(value) ?? ""
            if text.contains(where: \.isWhitespace) { return try DeriveStart(seed: try Mnemonic(phrase: text).seed()) }
            let key = try ExtendedKey(text)
            return DeriveStart(key: key, path: key.depth == 0 ? DerivationPath(absolute: true, []) : nil)
        default:
            throw ArgumentError.optionWrongType(
                option: "from", expected: deriveSourceType,
                got: value.typeName)
        }
    }

    // MARK: - derive --trace

    /// `derive PATH --trace [--reveal]`: every BIP-32 step from the start key (or from the
    /// seed, with the master key's step) down to PATH.
    static func traceDerive(_ args: CallArguments) throws -> Value {
        let reveal = args.flag("reveal")
        var path = try pathArgument(args["path"])
        let start: DeriveStart
        if let from = args.value("from") {
            start = try deriveStart(from)
        } else {
            let (s, full) = try activeTraceStart(args, path: path)
            start = s
            path = full
        }
        var rows: [(path: String, label: String, value: Value)] = []
        let steps: [DerivationStep]
        if let master = start.master {
            rows += masterRows(master, reveal: reveal)
            steps = try master.child.trace(path)
        } else {
            let base = start.path ?? DerivationPath(absolute: false, [])
            rows.append((traceLabel(base), "start key (xpub)", .string(start.key.publicString)))
            steps = try start.key.trace(path, base: start.path)
        }
        for step in steps { rows += childRows(step, reveal: reveal) }
        // With a seed, the start key is its master key.
        let last = steps.last?.child ?? start.key
        let lastPath = steps.last?.path ?? start.path ?? DerivationPath(absolute: false, [])
        // The address, for a path whose purpose names an address format (BIP-44/49/84/86).
        let c0 = lastPath.components
        if lastPath.isAbsolute, c0.count >= 2, c0[0].hardened, [44, 49, 84, 86].contains(c0[0].index), c0[1].hardened,
            let a = try? pathAddress(last.publicKey, path: lastPath, coin: nil)
        {
            rows.append((traceLabel(lastPath), "address (\(a.coin))", .domain(a)))
        }
        let width = rows.map(\.path.count).max() ?? 0
        return .domain(
            ReportValue(
                typeName: "trace",
                title: "trace of \(lastPath.isAbsolute ? lastPath.description : traceLabel(lastPath))",
                rows: rows.map { ($0.path.padding(to: width) + "  " + $0.label, $0.value) }))
    }

    /// With no --from: the active signer's master seed and the absolute path below it. A card
    /// shows no intermediate values, so a card key as the active signer is an error naming
    /// --trace; an ECDSA key has no chain code.
    static func activeTraceStart(
        _ args: CallArguments, path: DerivationPath
    ) throws
        -> (DeriveStart, DerivationPath)
    {
        guard let session = args.context as? Session, let name = session.activeKey,
            let record = try session.existingStore()?.findKey(named: name)
        else {
            throw BuiltinError.noCurrentKey
        }
        if record.kind == .card {
            throw BuiltinError.optionNotApplicable(
                option: "trace",
                reason: "the active signer \(record.name) is a card key, and a card derives inside without showing "
                    + "its steps; --trace needs host-side keys: pass --from with a mnemonic, seed, xprv or xpub")
        }
        guard record.kind == .hdChild, record.parentID != nil, let own = record.path else {
            throw TeachingError.traceNeedsHDKey(name: record.name, kind: record.kind.rawValue)
        }
        guard let (_, seed) = try session.unlockedStore().read({ tx in try Session.masterSeed(of: record, tx) }) else {
            throw TeachingError.traceNeedsHDKey(name: record.name, kind: record.kind.rawValue)
        }
        let full = path.isAbsolute ? path : own.appending(path)
        return (try DeriveStart(seed: seed), full)
    }

    /// The master key's rows: HMAC-SHA512("Bitcoin seed", S) → I_L = k, I_R = c.
    static func masterRows(_ step: DerivationStep, reveal: Bool) -> [(path: String, label: String, value: Value)] {
        let k = step.child
        var rows: [(path: String, label: String, value: Value)] = [
            (
                "m", "HMAC-SHA512 key",
                .domain(ExplainedValue(.string("Bitcoin seed"), "(BIP-32's fixed key for the master)"))
            ),
            (
                "m", "HMAC-SHA512 data = seed S",
                reveal ? .bytes(plain(step.hmacData)) : masked("seed", step.hmacData.count)
            ),
            ("m", "I_L = master private key k", reveal ? .bytes(plain(step.il)) : masked("private key k", 32)),
            ("m", "I_R = master chain code c", .bytes(step.ir)),
            ("m", "K = k·G (public key)", .bytes(k.publicKey.compressed)),
            ("m", "fingerprint = HASH160(K)[0:4]", .bytes(HDKeyValue.be32(k.fingerprint))),
        ]
        rows.append(("m", "xprv", reveal ? .string((try? k.serialized(.xprv)) ?? "") : masked("xprv", nil)))
        rows.append(("m", "xpub", .string(k.publicString)))
        return rows
    }

    /// One child's rows: CKDpriv (hardened or not) or CKDpub.
    static func childRows(_ step: DerivationStep, reveal: Bool) -> [(path: String, label: String, value: Value)] {
        let p = traceLabel(step.path)
        let child = step.child
        let n = step.index?.index ?? 0
        let hardened = step.kind == .hardened
        var rows: [(path: String, label: String, value: Value)] = [
            (p, "parent fingerprint = HASH160(K_par)[0:4]", .bytes(HDKeyValue.be32(child.parentFingerprint))),
            (
                p, "index i = ser32(i)",
                .domain(
                    ExplainedValue(
                        .bytes(step.serializedIndex),
                        hardened
                            ? "= 0x80000000 + \(n): hardened \(n)'" : "= \(n): not hardened"))
            ),
            (p, "HMAC-SHA512 key = c_par (parent chain code)", .bytes(step.hmacKey)),
        ]
        if hardened {
            rows.append(
                (
                    p, "HMAC-SHA512 data = 0x00 ‖ k_par ‖ ser32(i)",
                    reveal
                        ? .bytes(plain(step.hmacData))
                        : .domain(
                            MaskedValue(
                                text: "0x00 ‖ " + maskedText("k_par", 32) + " ‖ 0x" + Hex.encode(step.serializedIndex)))
                ))
        } else {
            rows.append((p, "HMAC-SHA512 data = serP(K_par) ‖ ser32(i)", .bytes(plain(step.hmacData))))
        }
        rows.append((p, "I_L = I[0:32]", step.ilIsSecret && !reveal ? masked("I_L", 32) : .bytes(plain(step.il))))
        rows.append((p, "I_R = I[32:64]", .bytes(step.ir)))
        if let k = child.privateKey {
            rows.append(
                (p, "k_i = I_L + k_par mod n", reveal ? .bytes(plain(k.secret)) : masked("private key k_i", 32)))
            rows.append((p, "K_i = k_i·G (public key)", .bytes(child.publicKey.compressed)))
        } else {
            rows.append((p, "I_L·G (point of I_L)", .bytes(step.ilPoint.compressed)))
            rows.append((p, "K_i = I_L·G + K_par (public key)", .bytes(child.publicKey.compressed)))
        }
        rows.append((p, "c_i = I_R (chain code)", .bytes(step.ir)))
        if child.isPrivate {
            rows.append(
                (p, "xprv", reveal ? .string((try? child.serialized(child.version)) ?? "") : masked("xprv", nil)))
        }
        rows.append((p, "xpub", .string(child.publicString)))
        return rows
    }

    /// `m/0'/1`, or `…/0/1` for a path below a key whose own path is unknown.
    static func traceLabel(_ path: DerivationPath) -> String {
        if path.isAbsolute { return path.description }
        return path.components.isEmpty ? "…" : "…/" + path.description
    }

    /// The bytes of a secret, for a value the person asked to see with --reveal.
    static func plain(_ secret: Secret) -> [UInt8] { secret.withUnsafeBytes { Array($0) } }

    /// `<masked WHAT (N bytes); --reveal shows it>`.
    static func maskedText(_ what: String, _ byteCount: Int?) -> String {
        "<masked \(what)\(byteCount.map { " (\($0) bytes)" } ?? ""); --reveal shows it>"
    }

    static func masked(_ what: String, _ byteCount: Int?) -> Value {
        .domain(MaskedValue(text: maskedText(what, byteCount)))
    }

    /// `path.find`'s address: text (an Ethereum or Bitcoin address), or a bare `0x…` word, which
    /// arrives as bytes (its EIP-55 spelling was checked when it was read).
    static func pathSearchTarget(_ value: Value?) throws -> PathSearch.Target {
        switch value {
        case .bytes(let b)?:
            return .ethereum(try EthereumAddress(bytes: b))
        case .string(let text)?:
            guard let t = try PathSearch.Target.parse(text) else { throw TeachingError.notAnAddress(given: text) }
            return t
        default:
            throw ArgumentError.missing(position: 1, name: "address", type: .string)
        }
    }

    /// What `path.find` found, as a report: the address, the path, its layout and the presets
    /// that use it.
    static func pathMatchValue(
        _ target: PathSearch.Target, path: DerivationPath, key: ExtendedKey, searched: Int
    ) throws -> Value {
        let levels = PathExplanation.levels(of: path).map { l in
            let coin =
                l.role == "coin type" ? (try? SLIP44.coin(index: l.component.index)).map { " (\($0.symbol))" } : nil
            return "\(l.role) \(l.component)" + (coin ?? "")
        }
        return .domain(
            ReportValue(
                typeName: "match", title: "\(target) at \(path)",
                rows: [
                    ("address", .domain(try pathAddress(key.publicKey, path: path, coin: nil))),
                    ("path", .domain(PathValue(path: path))),
                    ("layout", .string(levels.joined(separator: ", "))),
                    ("presets", presetMatches(path)),
                    ("searched", .int(searched)),
                ]))
    }

    // MARK: - The reports

    /// `path.explain`: the path, one row per level (named by the path so far), the presets.
    static func pathExplanation(_ path: DerivationPath) -> ReportValue {
        let levels = PathExplanation.levels(of: path)
        let offsets = levels.map { $0.component.hardened ? "= 0x80000000 + \($0.component.index)" : "(not hardened)" }
        let segmentWidth = levels.map(\.component.description.count).max() ?? 0
        let offsetWidth = offsets.map(\.count).max() ?? 0
        var rows: [(String, Value)] = [("path", .domain(PathValue(path: path)))]
        var prefix = DerivationPath(absolute: path.isAbsolute, [])
        for (level, offset) in zip(levels, offsets) {
            prefix = prefix.appending(level.component)
            rows.append(
                (
                    prefix.description,
                    .domain(
                        LevelValue(
                            level: level, offset: offset, segmentWidth: segmentWidth, offsetWidth: offsetWidth))
                ))
        }
        rows.append(("presets", presetMatches(path)))
        return ReportValue(typeName: "explanation", title: "path \(path)", rows: rows)
    }

    /// The presets that produce `path`, as `metamask (address 0)` values.
    static func presetMatches(_ path: DerivationPath) -> Value {
        .list(PathPreset.matching(path).map { .domain(PresetMatchValue(preset: $0.preset, index: $0.index)) })
    }

    /// `mnemonic.explain`: counts, each word with its index in decimal and binary, the entropy,
    /// the checksum and whether it matches.
    static func mnemonicExplanation(_ a: MnemonicAnatomy) -> ReportValue {
        let total = a.wordCount.rawValue * 11
        var rows: [(String, Value)] = [
            ("language", .string(a.language.rawValue)),
            ("words", explained(.int(a.wordCount.rawValue), "words × 11 bits = \(total) bits = ENT + CS")),
            ("entropyBits", explained(.int(a.entropyBits), "ENT: the first \(a.entropyBits) bits are the entropy")),
            (
                "checksumBits",
                explained(.int(a.checksumBits), "CS = ENT / 32: the last \(a.checksumBits) bits are the checksum")
            ),
        ]
        let wordWidth = a.words.map(\.count).max() ?? 0
        for (n, (word, index)) in zip(a.words, a.indexes).enumerated() {
            var bits = MnemonicAnatomy.bits(index)
            if n == a.words.count - 1 {
                // The last word carries the end of the entropy, then the checksum.
                let cut = bits.index(bits.endIndex, offsetBy: -a.checksumBits)
                bits = String(bits[..<cut]) + "|" + String(bits[cut...])
            }
            rows.append(
                ("word \(n + 1)", .domain(WordValue(word: word, index: index, bits: bits, wordWidth: wordWidth))))
        }
        let written = MnemonicAnatomy.bits(a.checksum, count: a.checksumBits)
        let expected = MnemonicAnatomy.bits(a.expectedChecksum, count: a.checksumBits)
        let first = a.entropyHash[0]
        let start = "0x" + Hex.encode([first]) + " = " + MnemonicAnatomy.bits(first, count: 8)
        rows.append(("entropy", .bytes(plain(a.entropy))))
        rows.append(("sha256", explained(.bytes(a.entropyHash), "SHA-256(entropy)")))
        rows.append(
            (
                "checksum",
                explained(
                    .string(written),
                    a.checksumValid
                        ? "the bits after | in word \(a.words.count); SHA-256(entropy) starts \(start), its first \(a.checksumBits) bits "
                            + "\(expected) match: valid"
                        : "the bits after | in word \(a.words.count); SHA-256(entropy) starts \(start), its first \(a.checksumBits) bits "
                            + "are \(expected): invalid, a word is wrong or out of place")
            ))
        rows.append(("valid", .bool(a.checksumValid)))
        return ReportValue(
            typeName: "explanation", title: "mnemonic of \(a.wordCount.rawValue) \(a.language) words",
            rows: ExplainedValue.aligned(rows))
    }

    /// `xkey.explain`: the serialised fields in order, each with what it means.
    static func xkeyExplanation(_ f: ExtendedKeyFields, reveal: Bool) -> ReportValue {
        let child = ChildIndex(raw: f.childNumber)
        let isPrivateData = f.keyPrefix == 0
        let depthMeaning =
            switch f.depth {
            case 0: "the master key"
            case 1: "a child of the master key"
            default: "\(f.depth) levels below the master key"
            }
        var rows: [(String, Value)] = [
            (
                "version",
                explained(
                    .bytes(HDKeyValue.be32(f.versionValue)),
                    f.version?.meaning ?? "unknown: no BIP-32 or SLIP-132 version has these bytes")
            ),
            ("depth", explained(.int(Int(f.depth)), depthMeaning)),
            (
                "parentFingerprint",
                explained(
                    .bytes(HDKeyValue.be32(f.parentFingerprint)),
                    f.depth == 0
                        ? "none: the master key has no parent" : "HASH160(parent public key)[0:4]")
            ),
            (
                "childNumber",
                explained(
                    .bytes(HDKeyValue.be32(f.childNumber)),
                    f.depth == 0
                        ? "the master key is no child"
                        : child.hardened
                            ? "0x80000000 + \(child.index): hardened child \(child.index)'"
                            : "\(child.index): normal (not hardened) child \(child.index)")
            ),
            ("chainCode", .bytes(f.chainCode)),
        ]
        if isPrivateData {
            let key: Value =
                reveal
                ? .bytes(plain(f.keyData))
                : .domain(MaskedValue(text: "0x00 ‖ " + maskedText("private key k", 32)))
            rows.append(("key", explained(key, reveal ? "0x00 ‖ private key k" : "")))
            if let k = f.key {
                rows.append(("publicKey", explained(.bytes(k.publicKey.compressed), "K = k·G, compressed")))
            }
        } else {
            let meaning =
                switch f.keyPrefix {
                case 2: "compressed public key: 02 = even y, then x"
                case 3: "compressed public key: 03 = odd y, then x"
                default:
                    "starts with \(Hex.encode([f.keyPrefix])), neither 00 (private key) nor 02/03 (compressed public key)"
                }
            rows.append(("key", explained(.bytes(plain(f.keyData)), meaning)))
        }
        let expected = Hex.encodePrefixed(f.expectedChecksum)
        rows.append(
            (
                "checksum",
                explained(
                    .bytes(f.checksum),
                    f.checksumValid
                        ? "valid: SHA-256(SHA-256(the 78 bytes before it))[0:4]"
                        : "invalid: SHA-256(SHA-256(the 78 bytes before it))[0:4] is \(expected)")
            ))
        if let k = f.key {
            rows.append(
                (
                    "fingerprint",
                    explained(
                        .bytes(HDKeyValue.be32(k.fingerprint)),
                        "HASH160(public key)[0:4], its children's parent fingerprint")
                ))
        }
        rows.append(
            (
                "layout",
                explained(
                    .int(82),
                    "bytes: version 4 ‖ depth 1 ‖ parent fingerprint 4 ‖ child number 4 ‖ "
                        + "chain code 32 ‖ key 33 ‖ checksum 4, in Base58")
            ))
        rows.append(("valid", .bool(f.problem == nil)))
        if let problem = f.problem { rows.append(("problem", .string(problem.description))) }
        let name = f.version?.rawValue ?? "extended key"
        return ReportValue(
            typeName: "explanation", title: "\(name) at depth \(f.depth)", rows: ExplainedValue.aligned(rows))
    }

    static func explained(_ value: Value, _ meaning: String) -> Value { .domain(ExplainedValue(value, meaning)) }
}

// MARK: - Report values

/// The answer of a teaching command: named rows in reading order. `print` shows them as a
/// two-column table; nested in a list it shows its title; JSON keeps every row.
struct ReportValue: DomainValue {
    let typeName: String
    let title: String
    let rows: [(String, Value)]

    var text: String { title }
    var fields: [(name: String, value: Value)] { rows.map { (name: $0.0, value: $0.1) } }
}

/// A value with a few words on what it means: `0x0488b21e  xpub: mainnet public key, …`.
struct ExplainedValue: DomainValue {
    let value: Value
    let meaning: String
    /// The width the value is padded to, so the meanings of neighbouring rows line up.
    var width = 0

    init(_ value: Value, _ meaning: String) {
        self.value = value
        self.meaning = meaning
    }

    var typeName: String { "explained" }
    var text: String {
        guard !meaning.isEmpty else { return value.inlineText }
        let shown = value.inlineText
        return shown.padding(to: width) + "  " + meaning
    }
    var fields: [(name: String, value: Value)] { [("value", value), ("meaning", .string(meaning))] }

    /// `rows` with the short explained values padded to one width (long ones, like 32-byte
    /// hex, are left as they are).
    static func aligned(_ rows: [(String, Value)]) -> [(String, Value)] {
        let short = rows.compactMap { row -> Int? in
            guard case .domain(let e as ExplainedValue) = row.1 else { return nil }
            let n = e.value.inlineText.count
            return n <= 12 ? n : nil
        }
        let width = short.max() ?? 0
        return rows.map { name, value in
            guard case .domain(var e as ExplainedValue) = value, e.value.inlineText.count <= 12 else {
                return (name, value)
            }
            e.width = width
            return (name, .domain(e))
        }
    }
}

/// Private material left out: only a description of what is missing, never a byte of it.
struct MaskedValue: DomainValue {
    let text: String
    var typeName: String { "masked" }
}

/// One level of `path.explain`: `44'  0x8000002c  = 0x80000000 + 44  purpose 44 = BIP-44 …`.
struct LevelValue: DomainValue {
    let level: PathLevel
    let offset: String
    let segmentWidth: Int
    let offsetWidth: Int

    var typeName: String { "level" }
    var text: String {
        let segment = level.component.description
        return segment.padding(to: segmentWidth) + "  "
            + Hex.encodePrefixed(HDKeyValue.be32(level.raw)) + "  "
            + offset.padding(to: offsetWidth) + "  " + level.meaning
    }
    var fields: [(name: String, value: Value)] {
        [
            ("depth", .int(level.depth)), ("segment", .string(level.component.description)),
            ("index", .int(Int(level.component.index))), ("hardened", .bool(level.component.hardened)),
            ("raw", .bytes(HDKeyValue.be32(level.raw))), ("role", .string(level.role)),
            ("meaning", .string(level.meaning)),
        ]
    }
}

/// One word of `mnemonic.explain`: `about      3  0000000|0011`.
struct WordValue: DomainValue {
    let word: String
    let index: Int
    /// The 11 bits, with `|` before the checksum bits in the last word.
    let bits: String
    let wordWidth: Int

    var typeName: String { "word" }
    var text: String {
        word.padding(to: wordWidth) + "  " + String(index).padding(to: 4, left: " ") + "  " + bits
    }
    var fields: [(name: String, value: Value)] {
        [("word", .string(word)), ("index", .int(index)), ("bits", .string(bits))]
    }
}

/// A path preset, shown by its name.
struct PresetValue: DomainValue {
    let preset: PathPreset

    var typeName: String { "preset" }
    var text: String { preset.name }
    var fields: [(name: String, value: Value)] {
        [
            ("name", .string(preset.name)), ("template", .string(preset.template)), ("counts", .string(preset.counts)),
            ("summary", .string(preset.summary)),
        ]
    }
}

/// A preset that produces a path, with its `{i}`: `ledger-live (account 0)`.
struct PresetMatchValue: DomainValue {
    let preset: PathPreset
    let index: UInt32

    var typeName: String { "presetMatch" }
    var text: String { "\(preset.name) (\(preset.counts) \(index))" }
    var fields: [(name: String, value: Value)] {
        [("preset", .string(preset.name)), ("index", .int(Int(index))), ("template", .string(preset.template))]
    }
}

// MARK: - Errors

/// Errors of the teaching commands that the wallet core does not already name.
public enum TeachingError: WalletError, Equatable {
    /// A secret value whose explanation would show it, without --reveal.
    case secretNeedsReveal(argument: String, shows: String)
    /// `path.find` without --mnemonic.
    case needsMnemonic
    /// Text that is neither an Ethereum nor a Bitcoin mainnet address.
    case notAnAddress(given: String)
    /// No searched path makes the address.
    case addressNotFound(address: String, searched: Int, presets: [String], grid: String, maxIndex: Int)
    /// `derive --trace` with an active key that has no chain code.
    case traceNeedsHDKey(name: String, kind: String)

    /// Its sentences follow the command's name (`IdentifiableError.followsCommandName`).
    public var followsCommandName: Bool { true }

    public var id: String {
        switch self {
        case .secretNeedsReveal: "teaching.secretNeedsReveal"
        case .needsMnemonic: "teaching.needsMnemonic"
        case .notAnAddress: "teaching.notAnAddress"
        case .addressNotFound: "teaching.addressNotFound"
        case .traceNeedsHDKey: "teaching.traceNeedsHDKey"
        }
    }

    public var description: String {
        switch self {
        case .secretNeedsReveal(let argument, let shows):
            "\(argument) is a secret value and explaining it shows \(shows); add --reveal to show them"
        case .needsMnemonic:
            "--mnemonic is needed (the phrase whose derivation paths are searched), or --card"
        case .notAnAddress(let given):
            "argument 1 (address) must be an Ethereum address (0x + 40 hex digits) or a Bitcoin mainnet "
                + "address (1…, 3…, bc1q…, bc1p…), got \"\(given)\""
        case .addressNotFound(let address, let searched, let presets, let grid, let maxIndex):
            "\(address) is at none of the \(searched) paths searched (\(presets.joined(separator: ", ")) with "
                + "index 0…\(maxIndex), then \(grid) with account and index 0…\(maxIndex)); try a larger --max-index, "
                + "the BIP-39 passphrase, or another mnemonic"
        case .traceNeedsHDKey(let name, let kind):
            "--trace needs an HD key, but the active key \(name) is \(kind) (no chain code); "
                + "pass --from with a mnemonic, seed, xprv or xpub"
        }
    }
}
