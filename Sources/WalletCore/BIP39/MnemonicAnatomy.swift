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
        let (entropy, checksum) = Mnemonic.unpack(indexes, wordCount: count)
        let hash = entropy.withUnsafeBytes { Hash.sha256($0) }
        self.language = found
        self.wordCount = count
        self.words = words
        self.indexes = indexes
        self.entropy = entropy
        self.entropyHash = hash
        self.checksum = checksum
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

    /// `value` (right-aligned) as `count` binary digits; a word index by default (11).
    public static func bits<V: BinaryInteger>(_ value: V, count: Int = 11) -> String {
        let digits = String(value, radix: 2)
        return String(repeating: "0", count: max(0, count - digits.count)) + digits
    }
}
