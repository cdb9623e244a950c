import WalletCrypto

// Output script descriptors (BIP-380–386, BIP-389 multipath; docs/bitcoin.md, "Descriptors"):
// the checksum, the key expressions (an origin `[fingerprint/path]`, a public key or an
// extended key with its steps and `*`), and the script kinds a single-key or multisig wallet
// exports — pkh, sh(wpkh), wpkh, tr (key path only), wsh/sh(wsh)/sh of multi and sortedmulti.

public enum DescriptorError: WalletError, Equatable {
    case checksum(given: String, expected: String)
    case syntax(String)
    case key(String)

    public var id: String {
        switch self {
        case .checksum: "descriptor.checksum"
        case .syntax: "descriptor.syntax"
        case .key: "descriptor.key"
        }
    }

    public var description: String {
        switch self {
        case .checksum(let given, let expected):
            "the descriptor ends in the checksum #\(given), but its text's checksum is #\(expected)"
        case .syntax(let what): "not a descriptor kcs reads: \(what)"
        case .key(let what): "a key of the descriptor: \(what)"
        }
    }
}

/// BIP-380's checksum: eight characters over the descriptor text.
public enum DescriptorChecksum {
    static let input = Array(
        "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ")
    static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l")
    static let generator: [UInt64] = [0xf5dee51989, 0xa9fdca3312, 0x1bab10e32d, 0x3706b1677a, 0x644d626ffd]

    static func polymod(_ symbols: [UInt64]) -> UInt64 {
        var chk: UInt64 = 1
        for value in symbols {
            let top = chk >> 35
            chk = ((chk & 0x7_ffff_ffff) << 5) ^ value
            for i in 0..<5 where (top >> UInt64(i)) & 1 == 1 { chk ^= generator[i] }
        }
        return chk
    }

    /// The checksum of `text` (without `#`); nil when it holds a character descriptors do not use.
    public static func of(_ text: String) -> String? {
        var symbols: [UInt64] = []
        var groups: [UInt64] = []
        for c in text {
            guard let v = input.firstIndex(of: c) else { return nil }
            symbols.append(UInt64(v & 31))
            groups.append(UInt64(v >> 5))
            if groups.count == 3 {
                symbols.append(groups[0] * 9 + groups[1] * 3 + groups[2])
                groups = []
            }
        }
        if groups.count == 1 { symbols.append(groups[0]) }
        if groups.count == 2 { symbols.append(groups[0] * 3 + groups[1]) }
        let checksum = polymod(symbols + [UInt64](repeating: 0, count: 8)) ^ 1
        return String((0..<8).map { charset[Int((checksum >> (5 * (7 - UInt64($0)))) & 31)] })
    }

    /// `text#checksum`.
    public static func adding(to text: String) -> String { text + "#" + (of(text) ?? "") }

    /// True when `text` ends in `#` and the eight characters of its body's checksum.
    public static func verify(_ text: String) -> Bool {
        guard let hash = text.lastIndex(of: "#") else { return false }
        let given = text[text.index(after: hash)...]
        return given.count == 8 && of(String(text[..<hash])) == String(given)
    }
}

/// A key expression: an origin, then a public key, or an extended key with derivation steps.
public struct DescriptorKey: Sendable, Equatable {
    public enum Wildcard: Sendable, Equatable { case none, unhardened, hardened }

    public let origin: KeyOrigin?
    /// A plain public key (33 bytes, or 32 x-only inside tr()).
    public let publicKey: [UInt8]?
    public let extended: ExtendedKey?
    /// The steps after the extended key; a multipath step `<0;1>` is one step with alternatives.
    public let steps: [[UInt32]]
    public let wildcard: Wildcard

    public static func == (a: DescriptorKey, b: DescriptorKey) -> Bool {
        a.origin == b.origin && a.publicKey == b.publicKey && a.steps == b.steps && a.wildcard == b.wildcard
            && a.extended?.publicKey == b.extended?.publicKey && a.extended?.chainCode == b.extended?.chainCode
    }

    /// How many paths a multipath step gives (1 without one).
    public var pathCount: Int { steps.map(\.count).max() ?? 1 }

    /// The key at `index` of the `*`, along path `alternative` of a multipath step.
    public func key(index: UInt32, alternative: Int = 0) throws -> PublicKey {
        if let publicKey {
            if publicKey.count == 32 { return try XOnlyPublicKey(bytes: publicKey).publicKey }
            return try PublicKey(bytes: publicKey)
        }
        guard var k = extended else { throw DescriptorError.key("no key") }
        for step in steps {
            let raw = step.count == 1 ? step[0] : step[alternative]
            let child = ChildIndex(raw: raw)
            guard !child.hardened || k.isPrivate else {
                throw DescriptorError.key("a hardened step after an extended public key cannot be derived")
            }
            k = try k.derive(child)
        }
        switch wildcard {
        case .none: break
        case .unhardened: k = try k.derive(ChildIndex(index))
        case .hardened:
            guard k.isPrivate else { throw DescriptorError.key("a hardened wildcard needs a private key") }
            k = try k.derive(ChildIndex(index, hardened: true))
        }
        return k.publicKey
    }

    /// The origin and path of the key at `index`: the origin's path followed by the steps.
    public func fullOrigin(index: UInt32, alternative: Int = 0) -> KeyOrigin? {
        guard let origin else { return nil }
        var c = origin.path.components + steps.map { ChildIndex(raw: $0.count == 1 ? $0[0] : $0[alternative]) }
        if wildcard != .none { c.append(ChildIndex(index, hardened: wildcard == .hardened)) }
        return KeyOrigin(fingerprint: origin.fingerprint, path: DerivationPath(absolute: true, c))
    }

    /// The text of the key: `[d34db33f/84h/0h/0h]xpub…/<0;1>/*`.
    public func text(version: ExtendedKeyVersion) throws -> String {
        var out = ""
        if let o = origin {
            out += "[" + String(format: "%08x", o.fingerprint)
            out += o.path.components.map { "/\($0.index)" + ($0.hardened ? "h" : "") }.joined() + "]"
        }
        if let publicKey { return out + Hex.encode(publicKey) }
        guard let e = extended else { return out }
        out += try e.serialized(e.isPrivate ? version : version.publicVersion)
        for step in steps {
            let parts = step.map { r -> String in
                let c = ChildIndex(raw: r)
                return "\(c.index)" + (c.hardened ? "h" : "")
            }
            out += "/" + (parts.count == 1 ? parts[0] : "<" + parts.joined(separator: ";") + ">")
        }
        switch wildcard {
        case .none: break
        case .unhardened: out += "/*"
        case .hardened: out += "/*h"
        }
        return out
    }

    public init(origin: KeyOrigin?, extended: ExtendedKey, steps: [[UInt32]], wildcard: Wildcard) {
        self.origin = origin
        self.publicKey = nil
        self.extended = extended
        self.steps = steps
        self.wildcard = wildcard
    }

    init(origin: KeyOrigin?, publicKey: [UInt8]) {
        self.origin = origin
        self.publicKey = publicKey
        self.extended = nil
        self.steps = []
        self.wildcard = .none
    }

    /// Reads a key expression; `xOnly` allows the 32-byte keys of tr().
    static func parse(_ text: String, xOnly: Bool) throws -> DescriptorKey {
        var rest = Substring(text)
        var origin: KeyOrigin?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw DescriptorError.syntax("an origin without ]") }
            let inside = rest[rest.index(after: rest.startIndex)..<close].split(
                separator: "/", omittingEmptySubsequences: false)
            guard let fpText = inside.first, fpText.count == 8, let fp = UInt32(fpText, radix: 16) else {
                throw DescriptorError.syntax("an origin's fingerprint is 8 hex digits")
            }
            origin = KeyOrigin(
                fingerprint: fp,
                path: DerivationPath(absolute: true, try inside.dropFirst().map { try step(String($0)) }))
            rest = rest[rest.index(after: close)...]
        }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let head = parts.first, !head.isEmpty else { throw DescriptorError.syntax("a key is missing") }
        if let bytes = try? Hex.decode(head), bytes.count == 33 || (xOnly && bytes.count == 32) || bytes.count == 65 {
            guard parts.count == 1 else { throw DescriptorError.syntax("a public key takes no derivation steps") }
            if bytes.count == 32 { _ = try XOnlyPublicKey(bytes: bytes) } else { _ = try PublicKey(bytes: bytes) }
            return DescriptorKey(origin: origin, publicKey: bytes)
        }
        if let wif = try? WIF(head) {
            guard parts.count == 1 else { throw DescriptorError.syntax("a private key takes no derivation steps") }
            let k = wif.privateKey.publicKey
            return DescriptorKey(origin: origin, publicKey: wif.isCompressed ? k.compressed : k.uncompressed)
        }
        let extended: ExtendedKey
        do { extended = try ExtendedKey(head) } catch { throw DescriptorError.key("\(head.prefix(12))…: \(error)") }
        var steps: [[UInt32]] = []
        var wildcard = Wildcard.none
        for (n, p) in parts.dropFirst().enumerated() {
            if p == "*" || p == "*'" || p == "*h" {
                guard n == parts.count - 2 else { throw DescriptorError.syntax("* is the last step") }
                wildcard = p == "*" ? .unhardened : .hardened
            } else if p.hasPrefix("<"), p.hasSuffix(">") {
                let alts = try p.dropFirst().dropLast().split(separator: ";").map { try step(String($0)).raw }
                guard alts.count >= 2 else { throw DescriptorError.syntax("a multipath step has two or more paths") }
                steps.append(alts)
            } else {
                steps.append([try step(p).raw])
            }
        }
        guard steps.filter({ $0.count > 1 }).count <= 1 else {
            throw DescriptorError.syntax("one multipath step at most")
        }
        return DescriptorKey(origin: origin, extended: extended, steps: steps, wildcard: wildcard)
    }

    static func step(_ s: String) throws -> ChildIndex {
        let hardened = s.hasSuffix("'") || s.hasSuffix("h")
        let digits = hardened ? String(s.dropLast()) : s
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let n = UInt32(digits), n < ChildIndex.hardenedOffset
        else {
            throw DescriptorError.syntax("\(s) is not a derivation step")
        }
        return ChildIndex(n, hardened: hardened)
    }
}

/// A descriptor kcs reads, writes and derives scripts from.
public struct Descriptor: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case pkh, wpkh, shWpkh = "sh(wpkh)", tr, wsh, shWsh = "sh(wsh)", sh
    }

    public let kind: Kind
    /// One key, or a multisig's keys.
    public let keys: [DescriptorKey]
    /// For multisig: the threshold, and whether the keys are sorted (sortedmulti).
    public let threshold: Int?
    public let sorted: Bool

    public init(kind: Kind, key: DescriptorKey) {
        self.kind = kind
        self.keys = [key]
        self.threshold = nil
        self.sorted = false
    }

    public init(kind: Kind, threshold: Int, keys: [DescriptorKey], sorted: Bool) {
        self.kind = kind
        self.keys = keys
        self.threshold = threshold
        self.sorted = sorted
    }

    public var isRanged: Bool { keys.contains { $0.wildcard != .none } }
    public var pathCount: Int { keys.map(\.pathCount).max() ?? 1 }

    /// Reads `text`, with its checksum checked when it has one.
    public init(_ text: String) throws {
        var body = text.trimmingCharacters(in: .whitespaces)
        if let hash = body.lastIndex(of: "#") {
            let given = String(body[body.index(after: hash)...])
            body = String(body[..<hash])
            let expected = DescriptorChecksum.of(body) ?? ""
            guard given == expected else { throw DescriptorError.checksum(given: given, expected: expected) }
        }
        func inner(_ s: String, _ name: String) -> String? {
            guard s.hasPrefix(name + "("), s.hasSuffix(")") else { return nil }
            return String(s.dropFirst(name.count + 1).dropLast())
        }
        func multi(_ s: String) throws -> (Int, [DescriptorKey], Bool)? {
            let sorted = s.hasPrefix("sortedmulti(")
            guard let args = inner(s, sorted ? "sortedmulti" : "multi") else { return nil }
            let parts = args.split(separator: ",").map(String.init)
            guard parts.count >= 2, let k = Int(parts[0]), k >= 1, k <= parts.count - 1, parts.count - 1 <= 20 else {
                throw DescriptorError.syntax("multi(k, key, …) needs 1 ≤ k ≤ the number of keys ≤ 20")
            }
            return (k, try parts.dropFirst().map { try DescriptorKey.parse($0, xOnly: false) }, sorted)
        }
        if let k = inner(body, "pkh") {
            self.init(kind: .pkh, key: try .parse(k, xOnly: false))
        } else if let k = inner(body, "wpkh") {
            self.init(kind: .wpkh, key: try .parse(k, xOnly: false))
        } else if let k = inner(body, "tr") {
            guard !k.contains(",") else {
                throw DescriptorError.syntax("tr() with a script tree (kcs signs key paths only)")
            }
            self.init(kind: .tr, key: try .parse(k, xOnly: true))
        } else if let s = inner(body, "sh") {
            if let k = inner(s, "wpkh") {
                self.init(kind: .shWpkh, key: try .parse(k, xOnly: false))
            } else if let w = inner(s, "wsh"), let (t, keys, sorted) = try multi(w) {
                self.init(kind: .shWsh, threshold: t, keys: keys, sorted: sorted)
            } else if let (t, keys, sorted) = try multi(s) {
                self.init(kind: .sh, threshold: t, keys: keys, sorted: sorted)
            } else {
                throw DescriptorError.syntax("sh() of \(s.prefix(12))…")
            }
        } else if let w = inner(body, "wsh"), let (t, keys, sorted) = try multi(w) {
            self.init(kind: .wsh, threshold: t, keys: keys, sorted: sorted)
        } else {
            throw DescriptorError.syntax(
                "expected pkh, wpkh, sh(wpkh), tr, wsh/sh(wsh)/sh of (sorted)multi: \(body.prefix(24))…")
        }
        // A P2SH redeem script is at most 520 bytes (BIP-383: sh(multi) of too many keys is invalid).
        if kind == .sh, let threshold {
            let size =
                (threshold > 16 ? 2 : 1) + (keys.count > 16 ? 2 : 1) + 1
                + keys.reduce(0) { $0 + 1 + ($1.publicKey?.count ?? 33) }
            guard size <= 520 else {
                throw DescriptorError.syntax(
                    "sh(multi(\(threshold), …)): a \(size)-byte redeem script, more than P2SH's 520")
            }
        }
        // Segwit and Taproot take compressed keys only (BIP-382, BIP-386).
        if kind != .pkh, kind != .sh, keys.contains(where: { $0.publicKey?.count == 65 }) {
            throw DescriptorError.key(
                "an uncompressed key in \(kind.rawValue)(): segwit and Taproot take compressed keys")
        }
    }

    /// The text with its checksum; extended keys in `version` (xpub or tpub).
    public func text(version: ExtendedKeyVersion = .xpub) throws -> String {
        let keyTexts = try keys.map { try $0.text(version: version) }
        let body: String
        if let threshold {
            let m = (sorted ? "sortedmulti(" : "multi(") + "\(threshold)," + keyTexts.joined(separator: ",") + ")"
            switch kind {
            case .wsh: body = "wsh(\(m))"
            case .shWsh: body = "sh(wsh(\(m)))"
            default: body = "sh(\(m))"
            }
        } else {
            body = kind == .shWpkh ? "sh(wpkh(\(keyTexts[0])))" : "\(kind.rawValue)(\(keyTexts[0]))"
        }
        return DescriptorChecksum.adding(to: body)
    }

    /// The multisig script at `index`, keys sorted for sortedmulti.
    public func multisig(index: UInt32, alternative: Int = 0) throws -> MultisigScript? {
        guard let threshold else { return nil }
        var ks = try keys.map { try $0.key(index: index, alternative: alternative).compressed }
        if sorted { ks.sort { $0.lexicographicallyPrecedes($1) } }
        return MultisigScript(threshold: threshold, keys: ks)
    }

    /// The output script at `index` of the `*`, along path `alternative`.
    public func script(index: UInt32, alternative: Int = 0) throws -> [UInt8] {
        if let m = try multisig(index: index, alternative: alternative) {
            switch kind {
            case .wsh: return BitcoinScript.p2wsh(Hash.sha256(m.script))
            case .shWsh: return BitcoinScript.p2sh(Hash.hash160(BitcoinScript.p2wsh(Hash.sha256(m.script))))
            default: return BitcoinScript.p2sh(Hash.hash160(m.script))
            }
        }
        let key = try keys[0].key(index: index, alternative: alternative)
        switch kind {
        case .pkh:
            return BitcoinScript.p2pkh(Hash.hash160(keys[0].publicKey?.count == 65 ? key.uncompressed : key.compressed))
        case .wpkh: return BitcoinScript.p2wpkh(Hash.hash160(key.compressed))
        case .shWpkh: return BitcoinScript.p2sh(Hash.hash160(BitcoinScript.p2wpkh(Hash.hash160(key.compressed))))
        case .tr: return BitcoinScript.p2tr(try key.xOnly.key.taprootTweaked().bytes)
        default: throw DescriptorError.syntax("no script")
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension XOnlyPublicKey {
    /// The full key with even Y.
    public var publicKey: PublicKey { get throws { try PublicKey(bytes: [0x02] + bytes) } }
}
