import WalletCore

/// Where a card-side derivation starts (docs/keycard-protocol.md §2.1): bits 7–6 of P1 for
/// DERIVE KEY, SIGN and EXPORT KEY.
public enum DerivationSource: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// From the master key: the path is absolute.
    case master = 0x00
    /// From the parent of the current key: drop the last level, then append.
    case parent = 0x40
    /// From the current key: append.
    case current = 0x80
    /// The PIN-less path (DERIVE KEY only, with empty data).
    case pinless = 0xC0

    public var description: String {
        switch self {
        case .master: "master"
        case .parent: "parent"
        case .current: "current"
        case .pinless: "pinless"
        }
    }
}

/// A path as the card takes it: a source and up to 10 child indexes, sent as 4-byte
/// big-endian integers with bit 31 marking hardened levels (§2.1).
///
/// Text syntax shared by the Keycard SDKs: `m/44'/60'/0'/0/0` (master), `m` (the master
/// itself), `../5` or `..` (parent), `./5`, `.`, a bare `5/6` or the empty string
/// (current). Hardened levels are written `'` (also `h`/`H`, as `DerivationPath` accepts).
public struct CardKeyPath: Sendable, Hashable, CustomStringConvertible {
    /// The maximum depth of a card path (40 bytes).
    public static let maximumDepth = 10

    /// Where the derivation starts.
    public let source: DerivationSource
    /// The levels to derive, in order.
    public let components: [ChildIndex]

    /// A path from parts.
    ///
    /// - Throws: `CardError.keyPathTooDeep` for more than 10 levels.
    public init(source: DerivationSource, components: [ChildIndex]) throws(CardError) {
        guard components.count <= Self.maximumDepth else { throw .keyPathTooDeep(depth: components.count) }
        self.source = source
        self.components = components
    }

    /// Parses path text (see the type's documentation).
    ///
    /// - Throws: `CardError.invalidKeyPath` with the `DerivationPath` reason for a bad
    ///   segment or an index ≥ 2³¹; `keyPathTooDeep` for more than 10 levels.
    public init(_ text: String) throws(CardError) {
        let (source, rest) = Self.splitSource(text)
        var components: [ChildIndex] = []
        if let rest {
            let parsed: DerivationPath
            do {
                parsed = try DerivationPath(rest)
            } catch .pathEmpty {
                throw .invalidKeyPath(
                    text: text,
                    reason: .pathBadSegment(
                        segment: "", number: 1, reason: "empty segment (two slashes or a trailing slash)"))
            } catch {
                throw .invalidKeyPath(text: text, reason: error)
            }
            guard !parsed.isAbsolute else {
                throw .invalidKeyPath(
                    text: text,
                    reason: .pathBadSegment(
                        segment: "m", number: 1, reason: "m may only start the path"))
            }
            components = parsed.components
        }
        try self.init(source: source, components: components)
    }

    /// Where path text starts, by its prefix (see the type's documentation), and the text of
    /// its levels after that prefix — nil when the text names the source key itself (`m`, `..`,
    /// `.` or nothing). The levels are not parsed here.
    public static func splitSource(_ text: String) -> (source: DerivationSource, levels: String?) {
        switch text {
        case "", ".": return (.current, nil)
        case "..": return (.parent, nil)
        case "m", "M": return (.master, nil)
        default:
            if text.hasPrefix("m/") || text.hasPrefix("M/") { return (.master, String(text.dropFirst(2))) }
            if text.hasPrefix("../") { return (.parent, String(text.dropFirst(3))) }
            if text.hasPrefix("./") { return (.current, String(text.dropFirst(2))) }
            return (.current, text)
        }
    }

    /// The card path for a `DerivationPath`: absolute → source master, relative → current.
    public init(_ path: DerivationPath) throws(CardError) {
        try self.init(source: path.isAbsolute ? .master : .current, components: path.components)
    }

    /// Decodes path bytes as the card sends them (GET STATUS P1=01) or takes them.
    ///
    /// - Throws: `keyPathLength` unless the length is a multiple of 4; `keyPathTooDeep`
    ///   beyond 40 bytes.
    public init(source: DerivationSource, bytes: [UInt8]) throws(CardError) {
        guard bytes.count % 4 == 0 else { throw .keyPathLength(byteCount: bytes.count) }
        var components = [ChildIndex]()
        var i = 0
        while i < bytes.count {
            let raw = bytes[i..<(i + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            components.append(ChildIndex(raw: raw))
            i += 4
        }
        try self.init(source: source, components: components)
    }

    /// The data bytes: each level as a 4-byte big-endian integer.
    public var bytes: [UInt8] {
        components.flatMap { c -> [UInt8] in
            let v = c.raw
            return [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)]
        }
    }

    /// True for the empty path (the source key itself).
    public var isEmpty: Bool { components.isEmpty }

    /// The same levels as a `DerivationPath` (absolute when the source is the master).
    public var derivationPath: DerivationPath {
        DerivationPath(absolute: source == .master, components)
    }

    /// `m/44'/60'/0'/0/0`, `../5`, `./0/1`, `m`, `..`, `.`.
    public var description: String {
        let body = components.map(\.description).joined(separator: "/")
        let prefix: String =
            switch source {
            case .master: "m"
            case .parent: ".."
            case .current: "."
            case .pinless: "pinless"
            }
        return body.isEmpty ? prefix : prefix + "/" + body
    }
}
