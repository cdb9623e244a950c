import WalletCore
import WalletCrypto

/// The rules for key names: what a valid name is, how a default name is made, and
/// which existing name to suggest for a mistyped one.
///
/// A name is 1 to 64 characters: letters, digits, `-`, `_` and `.`, starting with a letter
/// or a digit, and not only digits (a bare number would read as a position). Names are
/// unique without regard to ASCII case (`Alice` and `alice` are the same name).
///
/// A default name is `<prefix>-<first 4 hex digits>-<last 4 hex digits>` of the address
/// (or of the public key when there is no address), lower-case — `ecdsa-9858-da94`. The
/// prefix comes from the kind: `ecdsa`, `hd` (HD-MASTER and HD-CHILD), `card`, `watch`.
/// Without either, the name is just the prefix. When that name is taken, `-2`, `-3`, …
/// is appended until it is free. The snippet mirrors the `0x9858…da94` that wallets show,
/// in characters that are easy to type at a prompt.
public enum KeyNaming {
    /// The longest name allowed.
    public static let maxLength = 64

    /// Why `name` is not a valid key name, or nil when it is valid.
    public static func problem(with name: String) -> String? {
        guard !name.isEmpty else { return "it is empty" }
        guard name.count <= maxLength else { return "it has \(name.count) characters" }
        for ch in name where !(ch.isLetter || ch.isNumber || ch == "-" || ch == "_" || ch == ".") {
            return ch.isWhitespace ? "it contains a space" : "it contains \(StoreError.quote(String(ch)))"
        }
        guard let first = name.first, first.isLetter || first.isNumber else {
            return "it starts with \(StoreError.quote(String(name.first!)))"
        }
        if name.allSatisfy(\.isNumber) { return "a name of only digits would read as a position" }
        return nil
    }

    /// The base default name for a key (before any `-2` suffix).
    public static func defaultBase(kind: KeyKind, address: String?, publicKey: [UInt8]?) -> String {
        let hex: String
        if let address, !address.isEmpty {
            let body = address.lowercased().hasPrefix("0x") ? String(address.dropFirst(2)) : address
            hex = body.lowercased().filter { $0.isLetter || $0.isNumber }
        } else if let publicKey, !publicKey.isEmpty {
            // Skip the SEC1 prefix byte, which is 02 or 03 for half of all keys.
            hex = Hex.encode(publicKey.dropFirst())
        } else {
            return kind.namePrefix
        }
        guard hex.count >= 8 else { return hex.isEmpty ? kind.namePrefix : "\(kind.namePrefix)-\(hex)" }
        return "\(kind.namePrefix)-\(hex.prefix(4))-\(hex.suffix(4))"
    }

    /// The closest of `candidates` to `name` (case-insensitive `EditDistance`, at most
    /// 2 edits or a third of the name), or a candidate `name` is a prefix of; nil if none.
    public static func suggestion(for name: String, among candidates: [String]) -> String? {
        let target = Array(name.lowercased())
        guard !target.isEmpty else { return nil }
        let limit = max(2, target.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let lowered = candidate.lowercased()
            if lowered.hasPrefix(name.lowercased()), best == nil || best!.distance > 1 {
                best = (candidate, 1)
                continue
            }
            let bound = best.map { min($0.distance - 1, limit) } ?? limit
            guard bound >= 0, abs(lowered.count - target.count) <= bound else { continue }
            if let d = EditDistance.between(target, Array(lowered), bound: bound) {
                best = (candidate, d)
            }
        }
        return best?.name
    }
}
