/// Whether a piece of typed text has the shape of key material, so the console can keep it out
/// of its history file, error excerpts and messages (docs/language.md §8).
///
/// The rule looks at what the text **is**, not at where it was typed, and errs on the side of
/// hiding: a typo must not make a secret visible, so near misses count (a phrase with a word
/// or two wrong, a private key a digit or two short, a WIF or an extended private key whose
/// checksum fails).
public enum SecretShape: String, Sendable, CaseIterable {
    /// 11–25 words, all but at most two of them from one BIP-39 word list.
    case mnemonic
    /// Hex (with or without `0x`) of private-key, entropy or seed length: 15–33 bytes other than
    /// an address's 20 and a compressed public key's 33, or 63–64 bytes (a seed).
    case hexKey
    /// An extended private key: `xprv`, `tprv` or a SLIP-132 `?prv` prefix.
    case extendedPrivateKey
    /// Wallet import format: 50–53 Base58 characters (a private key and its checksum).
    case wif

    /// The shape of `text`, or nil when it looks like nothing secret. `text` is a literal's
    /// content: a string without its quotes, or a `0x…` bytes literal as written.
    public static func of(_ text: String) -> SecretShape? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if isHexKey(trimmed) { return .hexKey }
        if isExtendedPrivateKey(trimmed) { return .extendedPrivateKey }
        if isWIF(trimmed) { return .wif }
        if isMnemonic(trimmed) { return .mnemonic }
        return nil
    }

    private static func isHexKey(_ text: String) -> Bool {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        guard digits.utf8.allSatisfy({ $0.isHexDigit }) else { return false }
        let n = digits.utf8.count
        // 20 bytes is an address, 33 a compressed public key, 65 a public key or a signature.
        return (30...66).contains(n) && n != 40 && n != 66 || (126...128).contains(n)
    }

    private static let privatePrefixes: Set<String> = [
        "xprv", "tprv", "yprv", "zprv", "uprv", "vprv",
        "Yprv", "Zprv", "Uprv", "Vprv",
    ]

    private static func isExtendedPrivateKey(_ text: String) -> Bool {
        text.utf8.count >= 20 && privatePrefixes.contains(String(text.prefix(4)))
            && text.utf8.allSatisfy { $0.isBase58 }
    }

    private static func isWIF(_ text: String) -> Bool {
        (50...53).contains(text.utf8.count) && text.utf8.allSatisfy { $0.isBase58 }
    }

    private static func isMnemonic(_ text: String) -> Bool {
        let words = text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard (11...25).contains(words.count) else { return false }
        return Wordlist.Language.allCases.contains { language in
            let list = Wordlist(language)
            var misses = 0
            for w in words where !list.contains(w) {
                misses += 1
                if misses > 2 { return false }
            }
            return true
        }
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }

    /// In Bitcoin's Base58 alphabet (no 0, O, I or l).
    var isBase58: Bool {
        switch self {
        case 0x31...0x39, 0x41...0x48, 0x4A...0x4E, 0x50...0x5A, 0x61...0x6B, 0x6D...0x7A: true
        default: false
        }
    }
}
