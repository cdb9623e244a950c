import WalletCrypto

/// One fact of an explained exchange (docs/card-explained.md): its indentation and its text, one
/// line, byte → meaning. The card trace, `apdu.explain` and a replayed trace all produce these.
public struct ExplainLine: Sendable, Equatable, Codable, CustomStringConvertible {
    /// 0 for a field, 1 for a field inside a template, …
    public var depth: Int
    /// The fact.
    public var text: String

    public init(_ text: String, depth: Int = 0) {
        self.depth = depth
        self.text = text
    }

    public var description: String { String(repeating: "  ", count: depth) + text }
}

/// What a value is when it is random: the word `--diffable` shows instead of its bytes, so two runs
/// of the same script compare with `diff` (docs/card-explained.md, "Diffable").
public enum TraceRole: String, Sendable, Codable, CaseIterable {
    case clientKey = "client ephemeral key"
    case cardEphemeralKey = "card ephemeral key"
    case cardKey = "card channel key"
    case instanceUID = "instance UID"
    case certificate = "certificate"
    case salt = "salt"
    case iv = "IV"
    case mac = "MAC"
    case ciphertext = "ciphertext"
    case sealed = "sealed"
    case challenge = "challenge"
    case cryptogram = "cryptogram"
    case signature = "signature"
    case keyUID = "key UID"
    case random = "random bytes"
}

/// How bytes are shown: secrets masked unless revealed (only ever on a simulated card), random
/// values by their role when diffable. A PIN or PUK is never shown, revealed or not.
public struct TraceView: Sendable, Equatable, Codable {
    /// Show secret values (pairing secret, session keys, private keys) instead of masking them.
    public var reveal: Bool
    /// Replace random values by their role and leave out timings.
    public var diffable: Bool

    public init(reveal: Bool = false, diffable: Bool = false) {
        self.reveal = reveal
        self.diffable = diffable
    }

    /// Public bytes: hex, or `<role N B>` when diffable and the value is random.
    public func bytes(_ value: [UInt8], role: TraceRole? = nil) -> String {
        if let role, diffable { return "<\(role.rawValue) \(value.count) B>" }
        return value.isEmpty ? "(empty)" : Hex.encode(value).uppercased()
    }

    /// Secret bytes: masked unless revealed.
    public func secret(_ value: [UInt8]?, count: Int, role: TraceRole? = nil) -> String {
        guard reveal, let value else { return Self.masked(count) }
        return bytes(value, role: role)
    }

    /// `<masked 32 B>`.
    public static func masked(_ count: Int) -> String { "<masked \(count) B>" }

    /// A PIN or PUK: one bullet per digit, whatever else is shown.
    public static func bullets(_ count: Int) -> String { String(repeating: "•", count: count) }
}

/// `80 20 00 00`: bytes with spaces, for headers.
func spaced(_ bytes: [UInt8]) -> String { bytes.map(hexByte).joined(separator: " ") }

/// A key path's text from its 4-byte big-endian components: `44'/60'/0'/0/0`; nil when the length
/// is not a multiple of 4.
func pathText(_ bytes: ArraySlice<UInt8>) -> String? {
    guard bytes.count % 4 == 0 else { return nil }
    var parts: [String] = []
    var i = bytes.startIndex
    while i < bytes.endIndex {
        let raw = bytes[i..<i + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        parts.append(raw & 0x8000_0000 != 0 ? "\(raw & 0x7FFF_FFFF)'" : "\(raw)")
        i += 4
    }
    return parts.joined(separator: "/")
}
