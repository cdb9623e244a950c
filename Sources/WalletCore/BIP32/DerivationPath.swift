import Foundation

/// One BIP-32 child index: 0 … 2³¹−1, hardened or not. The raw 32-bit value adds
/// 0x80000000 for hardened children.
public struct ChildIndex: Sendable, Hashable, CustomStringConvertible {
    /// The offset that marks a hardened child (BIP-32: i ≥ 2³¹).
    public static let hardenedOffset: UInt32 = 0x8000_0000

    /// The index without the hardened offset.
    public let index: UInt32
    /// True for a hardened child.
    public let hardened: Bool

    /// `index` must be below 2³¹.
    public init(_ index: UInt32, hardened: Bool = false) {
        precondition(index < Self.hardenedOffset, "child index must be below 2^31")
        self.index = index
        self.hardened = hardened
    }

    /// From the raw 32-bit value (≥ 2³¹ means hardened).
    public init(raw: UInt32) {
        index = raw & 0x7fff_ffff
        hardened = raw >= Self.hardenedOffset
    }

    /// The 32-bit value that goes into HMAC data and serialisations.
    public var raw: UInt32 { hardened ? index | Self.hardenedOffset : index }

    /// `44'` or `0`.
    public var description: String { hardened ? "\(index)'" : "\(index)" }
}

/// A BIP-32 derivation path. Absolute paths start at the master key (`m/44'/60'/0'/0/0`);
/// relative paths (`0/5`) continue from whatever key they are applied to.
///
/// Accepted syntax: `m` or `M` alone or as the first segment, segments separated by `/`,
/// each a decimal index below 2³¹ followed by an optional hardened marker `'`, `h` or `H`.
/// Printed normalised with `'`.
public struct DerivationPath: Sendable, Hashable, CustomStringConvertible {
    /// True when the path starts at the master key.
    public let isAbsolute: Bool
    /// The child indexes in order.
    public let components: [ChildIndex]

    /// The most levels a typed path may have: 255, the depth an extended key records in its one
    /// depth byte (BIP-32 serialisation) and so the deepest key `derive` can reach
    /// (`HDError.depthOverflow`). Checked before the segments are read.
    public static let maximumDepth = 255

    /// Builds a path from parts.
    public init(absolute: Bool = true, _ components: [ChildIndex]) {
        isAbsolute = absolute
        self.components = components
    }

    /// Parses path text; errors name the segment (1-based, `m` not counted) and the reason.
    public init(_ text: String) throws(HDError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw .pathEmpty }
        let levels =
            trimmed.utf8.reduce(1) { $1 == UInt8(ascii: "/") ? $0 + 1 : $0 }
            - (["m", "M"].contains(trimmed.prefix { $0 != "/" }) ? 1 : 0)
        guard levels <= Self.maximumDepth else { throw .pathTooDeep(depth: levels) }
        var parts = trimmed.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts[0] == "m" || parts[0] == "M" {
            isAbsolute = true
            parts.removeFirst()
        } else {
            isAbsolute = false
        }
        if !isAbsolute && trimmed.hasPrefix("/") {
            throw .pathBadSegment(
                segment: "", number: 1, reason: "a path starts with m/ (absolute) or an index (relative)")
        }
        var out = [ChildIndex]()
        for (n, part) in parts.enumerated() {
            out.append(try Self.parseSegment(part, number: n + 1))
        }
        components = out
    }

    private static func parseSegment(_ part: String, number: Int) throws(HDError) -> ChildIndex {
        guard !part.isEmpty else {
            throw .pathBadSegment(
                segment: part, number: number, reason: "empty segment (two slashes or a trailing slash)")
        }
        var digits = Substring(part)
        var hardened = false
        if let last = digits.last, last == "'" || last == "h" || last == "H" {
            hardened = true
            digits = digits.dropLast()
        }
        guard !digits.isEmpty else {
            throw .pathBadSegment(segment: part, number: number, reason: "a hardened marker needs an index before it")
        }
        if let bad = digits.first(where: { !("0"..."9").contains($0) }) {
            let reason: String
            if bad == "'" || bad == "h" || bad == "H" {
                reason = "the hardened marker may appear once, at the end"
            } else if bad == "-" {
                reason = "indexes cannot be negative"
            } else {
                reason = "expected digits and an optional hardened marker ' h H, found \"\(bad)\""
            }
            throw .pathBadSegment(segment: part, number: number, reason: reason)
        }
        guard digits.count <= 10, let value = UInt64(digits), value < UInt64(ChildIndex.hardenedOffset) else {
            throw .pathIndexTooLarge(segment: part, number: number)
        }
        return ChildIndex(UInt32(value), hardened: hardened)
    }

    /// Number of levels.
    public var depth: Int { components.count }

    /// This path followed by `other` (which must be relative).
    public func appending(_ other: DerivationPath) -> DerivationPath {
        DerivationPath(absolute: isAbsolute, components + other.components)
    }

    /// This path with one more index.
    public func appending(_ index: ChildIndex) -> DerivationPath {
        DerivationPath(absolute: isAbsolute, components + [index])
    }

    /// Normalised text: `m/44'/60'/0'/0/0`, or `0/5` for a relative path, `m` for the root.
    public var description: String {
        let body = components.map(\.description).joined(separator: "/")
        if isAbsolute { return body.isEmpty ? "m" : "m/" + body }
        return body
    }
}
