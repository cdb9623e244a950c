import WalletCrypto

// A BIP-39 phrase taken apart ("Generating the mnemonic", read backwards), for
// `mnemonic.explain`: each word's 11-bit index, the entropy those bits spell, and the
// checksum bits compared with SHA-256(entropy). Unlike `Mnemonic(phrase:)` a checksum
// mismatch is not an error here: showing why the checksum fails is the point.

/// The bits of a BIP-39 phrase: ENT bits of entropy followed by CS = ENT/32 checksum bits,
/// cut into 11-bit word indexes.
public struct MnemonicAnatomy: Sendable {
    /// The word list the words come from.
    public let language: Wordlist.Language
    /// 12, 15, 18, 21 or 24.
    public let wordCount: Mnemonic.WordCount
    /// The words, normalised as in the list (lower case, NFKD).
    public let words: [String]
    /// Each word's position in the list (0…2047).
    public let indexes: [Int]
    /// The first ENT bits: 16 to 32 bytes.
    public let entropy: Secret
    /// The CS checksum bits as written (in the last word), right-aligned.
    public let checksum: UInt8
    /// The first CS bits of SHA-256(entropy), right-aligned.
    public let expectedChecksum: UInt8
    /// SHA-256(entropy): its first CS bits are the checksum.
    public let entropyHash: [UInt8]

    /// Number of entropy bits (ENT).
    public var entropyBits: Int { wordCount.entropyBits }
    /// Number of checksum bits (CS = ENT / 32).
    public var checksumBits: Int { wordCount.checksumBits }
    /// True when the written checksum equals the first CS bits of SHA-256(entropy).
    public var checksumValid: Bool { checksum == expectedChecksum }

    /// Takes `phrase` apart.
    ///
    /// - Throws: `MnemonicError.wrongWordCount`, `.unknownWord`, `.mixedLanguages` or
    ///   `.wrongLanguage` as `Mnemonic(phrase:language:)` does; never `.checksumMismatch`.
    public init(phrase: String, language: Wordlist.Language? = nil) throws(MnemonicError) {
        let found: Wordlist.Language
        do {
            found = try Mnemonic(phrase: phrase, language: language).language
        } catch .checksumMismatch(_, let listed) {
            found = listed
        }
        let list = Wordlist(found)
        let words = Wordlist.normalize(phrase).split(whereSeparator: \.isWhitespace).map(String.init)
        guard let count = Mnemonic.WordCount(rawValue: words.count) else { throw .wrongWordCount(count: words.count) }
        var indexes: [Int] = []
        for (n, w) in words.enumerated() {
            guard let i = list.index(ofNormalized: w) else {
                throw .unknownWord(word: w, position: n + 1, language: found, suggestions: list.suggestions(for: w))
            }
            indexes.append(i)
        }
        // Concatenate the 11-bit indexes, most significant bit first.
        var bits = [UInt8](repeating: 0, count: count.entropyByteCount + 1)
        defer { Secret.wipe(&bits) }
        for (w, index) in indexes.enumerated() {
            for offset in 0..<11 where index >> (10 - offset) & 1 == 1 {
                let bit = w * 11 + offset
                bits[bit / 8] |= 1 << (7 - bit % 8)
            }
        }
        let entropy = Secret(bytes: bits.prefix(count.entropyByteCount))
        let hash = entropy.withUnsafeBytes { Hash.sha256($0) }
        self.language = found
        self.wordCount = count
        self.words = words
        self.indexes = indexes
        self.entropy = entropy
        self.entropyHash = hash
        self.checksum = bits[count.entropyByteCount] >> (8 - count.checksumBits)
        self.expectedChecksum = hash[0] >> (8 - count.checksumBits)
    }

    /// Takes a phrase held as a secret apart; see `init(phrase:language:)`.
    ///
    /// - Throws: `MnemonicError.notUTF8`, otherwise as `init(phrase:language:)`.
    public init(phrase: Secret, language: Wordlist.Language? = nil) throws(MnemonicError) {
        guard let text = phrase.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw .notUTF8(what: "mnemonic")
        }
        try self.init(phrase: text, language: language)
    }

    /// `index` as 11 binary digits.
    public static func bits(_ index: Int) -> String {
        let digits = String(index, radix: 2)
        return String(repeating: "0", count: max(0, 11 - digits.count)) + digits
    }

    /// `value` (right-aligned) as `count` binary digits.
    public static func bits(_ value: UInt8, count: Int) -> String {
        let digits = String(value, radix: 2)
        return String(repeating: "0", count: max(0, count - digits.count)) + digits
    }
}
