import Foundation

/// A valid BIP-39 mnemonic: 12, 15, 18, 21 or 24 words from one word list whose last
/// bits carry the checksum of the entropy they encode.
///
/// A `Mnemonic` is a secret. `description`, `debugDescription` and its mirror show only
/// `<mnemonic: 12 words, english>`; the words are reachable only inside `withPhrase`,
/// `withWords` or `withDisplayPhrase`, so revealing them is always a deliberate call
/// (docs/habits.md §4). The phrase is held in a `Secret` in its canonical BIP-39 form:
/// Unicode NFKD, lower case, words joined by single U+0020 spaces, which is exactly
/// the password PBKDF2 receives.
///
/// Every initialiser checks its input, so a value of this type is always a phrase with
/// a valid word count and checksum (docs/habits.md §8). Text typed by the user passes
/// through Swift `String`s while it is parsed, and those cannot be wiped; the bytes
/// this type keeps can.
public struct Mnemonic: Sendable {
    // MARK: - Word counts

    /// The lengths BIP-39 allows. Each word carries 11 bits: ENT bits of entropy plus an
    /// ENT/32-bit checksum, so MS = (ENT + ENT/32) / 11 (BIP-39, "Generating the mnemonic").
    public enum WordCount: Int, CaseIterable, Sendable, CustomStringConvertible {
        /// 12 words: 128 bits of entropy, 4 checksum bits.
        case twelve = 12
        /// 15 words: 160 bits of entropy, 5 checksum bits.
        case fifteen = 15
        /// 18 words: 192 bits of entropy, 6 checksum bits.
        case eighteen = 18
        /// 21 words: 224 bits of entropy, 7 checksum bits.
        case twentyOne = 21
        /// 24 words: 256 bits of entropy, 8 checksum bits.
        case twentyFour = 24

        /// The word count whose entropy is `byteCount` bytes (16, 20, 24, 28 or 32), if any.
        public init?(entropyByteCount byteCount: Int) {
            guard let match = WordCount.allCases.first(where: { $0.entropyByteCount == byteCount }) else {
                return nil
            }
            self = match
        }

        /// ENT, the entropy in bits: 128, 160, 192, 224 or 256.
        public var entropyBits: Int { rawValue * 11 * 32 / 33 }

        /// ENT / 8: 16, 20, 24, 28 or 32 bytes.
        public var entropyByteCount: Int { entropyBits / 8 }

        /// CS = ENT / 32: 4 to 8 checksum bits taken from SHA-256(entropy).
        public var checksumBits: Int { entropyBits / 32 }

        /// The fewest rolls of a six-sided die accepted for ENT bits: ENT / log2 6 rounded
        /// to the nearest whole roll, i.e. 50, 62, 74, 87 and 99 rolls. These are Coldcard's
        /// numbers ("50 rolls for 128-bit security, 99 for 256"); strict rounding up would
        /// ask for 100 rolls for 24 words although 99 rolls already carry 255.9 bits, and
        /// every count here carries at least ENT − 1 bits. No quotient is near .5, so the
        /// floating-point rounding is exact.
        public var minimumDiceRolls: Int { Int((Double(entropyBits) / log2(6.0)).rounded()) }

        /// `12 words`.
        public var description: String { "\(rawValue) words" }
    }

    // MARK: - Stored state

    /// The list the words come from.
    public let language: Wordlist.Language

    /// How many words the phrase has.
    public let wordCount: WordCount

    /// NFKD, lower case, single U+0020 between words.
    private let phrase: Secret

    /// The entropy the words encode (16…32 bytes), without the checksum.
    private let entropyBytes: Secret

    /// Builds from entropy that has already been checked to be 16…32 bytes in steps of 4.
    private init(checkedEntropy entropy: Secret, wordCount: WordCount, language: Wordlist.Language) {
        let list = Wordlist(language)
        var indices = entropy.withUnsafeBytes { Mnemonic.wordIndices(entropy: $0, wordCount: wordCount) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(wordCount.rawValue * 10)
        for (n, index) in indices.enumerated() {
            if n > 0 { bytes.append(0x20) }
            bytes.append(contentsOf: list[index].utf8)
        }
        for i in indices.indices { indices[i] = 0 }
        self.phrase = Secret(consuming: &bytes)
        self.entropyBytes = entropy
        self.wordCount = wordCount
        self.language = language
    }

    // MARK: - Creating a mnemonic

    /// A new mnemonic of `wordCount` words from `random` (BIP-39: ENT random bits, then
    /// the checksum). Pass `SystemRandom()` for a real wallet; a `SeededRandom` gives the
    /// same phrase on every run, for tests and demonstrations only.
    public init(
        generating wordCount: WordCount = .twelve, language: Wordlist.Language = .english,
        using random: some RandomSource
    ) {
        self.init(
            checkedEntropy: random.secret(wordCount.entropyByteCount), wordCount: wordCount,
            language: language)
    }

    /// The mnemonic that encodes `entropy`, which must be 16, 20, 24, 28 or 32 bytes
    /// (giving 12, 15, 18, 21 or 24 words). The secret is kept, not copied.
    ///
    /// - Throws: `MnemonicError.entropyLength` for any other length.
    public init(entropy: Secret, language: Wordlist.Language = .english) throws(MnemonicError) {
        guard let wordCount = WordCount(entropyByteCount: entropy.count) else {
            throw .entropyLength(byteCount: entropy.count)
        }
        self.init(checkedEntropy: entropy, wordCount: wordCount, language: language)
    }

    /// The mnemonic that encodes `entropy` bytes; see `init(entropy:language:)` for the
    /// accepted lengths. The bytes are copied; the caller still owns (and should wipe) its array.
    public init(entropy: [UInt8], language: Wordlist.Language = .english) throws(MnemonicError) {
        try self.init(entropy: Secret(bytes: entropy), language: language)
    }

    /// The mnemonic for entropy written as hex (an optional `0x`, either case), e.g. the
    /// `entropy` column of the BIP-39 test vectors or the output of a hardware RNG.
    ///
    /// - Throws: `MnemonicError.entropyHexOddLength` or `.entropyHexInvalidCharacter`
    ///   when `hex` is not hex, `.entropyLength` when it is not 16, 20, 24, 28 or 32 bytes.
    public init(entropyHex hex: String, language: Wordlist.Language = .english) throws(MnemonicError) {
        var bytes: [UInt8]
        do {
            bytes = try Hex.decode(hex)
        } catch .hexOddLength(let digits) {
            throw .entropyHexOddLength(digits: digits)
        } catch .hexInvalidCharacter(let character, let position) {
            throw .entropyHexInvalidCharacter(character: character, position: position)
        } catch {
            preconditionFailure("Hex.decode threw an error it does not document: \(error.id)")
        }
        try self.init(entropy: Secret(consuming: &bytes), language: language)
    }

    /// The mnemonic for entropy drawn from dice, as Coldcard computes it: the rolls are
    /// typed as a string of the digits 1–6 (nothing else, not even spaces), hashed with
    /// SHA-256, and the digest is truncated to the strength (16 bytes for 12 words, all
    /// 32 for 24 words).
    ///
    /// At least `wordCount.minimumDiceRolls` rolls are required, so the rolls carry about
    /// as many bits as the entropy they become (50 for 12 words, 99 for 24 words). More
    /// rolls are welcome.
    ///
    /// - Throws: `MnemonicError.diceInvalidCharacter` naming the first character that is
    ///   not 1–6 and its 1-based position; `.diceTooFewRolls` when there are too few.
    public init(
        diceRolls rolls: String, wordCount: WordCount = .twelve,
        language: Wordlist.Language = .english
    ) throws(MnemonicError) {
        var count = 0
        for character in rolls {
            count += 1
            guard let ascii = character.asciiValue, (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(ascii) else {
                throw .diceInvalidCharacter(character: character, position: count)
            }
        }
        guard count >= wordCount.minimumDiceRolls else {
            throw .diceTooFewRolls(count: count, required: wordCount.minimumDiceRolls, wordCount: wordCount)
        }
        var typed = Array(rolls.utf8)
        var digest = Hash.sha256(typed)
        Secret.wipe(&typed)
        let entropy = Secret(bytes: digest.prefix(wordCount.entropyByteCount))
        Secret.wipe(&digest)
        self.init(checkedEntropy: entropy, wordCount: wordCount, language: language)
    }

    // MARK: - Parsing a phrase

    /// Parses and validates a phrase typed or pasted by a person.
    ///
    /// Accepted: words separated by any run of whitespace (spaces, tabs, newlines,
    /// U+3000), leading and trailing whitespace, any letter case, composed or
    /// decomposed accents and kana; the phrase is normalised to NFKD and lower case
    /// before the words are looked up (BIP-39, "From mnemonic to seed").
    ///
    /// When `language` is nil it is detected: the language whose list holds every word.
    /// If several do, the first in `Wordlist.Language.allCases` order whose checksum
    /// matches wins. English and French share 100 words at different indices, so the
    /// checksum usually settles it. The two Chinese lists share 1275 characters at the
    /// *same* indices, so a phrase of shared characters means the same entropy and seed
    /// in both; it is reported as `chineseSimplified`.
    ///
    /// - Throws, checking in this order:
    ///   - `MnemonicError.wrongWordCount` unless there are 12, 15, 18, 21 or 24 words;
    ///   - `.unknownWord` for the first word that is in no list (or not in `language`'s
    ///     list and in no other), with its 1-based position and up to three nearest words;
    ///   - `.mixedLanguages` (language detected) or `.wrongLanguage` (language given) for
    ///     the first word that is only in another list;
    ///   - `.checksumMismatch` when every word is known but the checksum does not match.
    public init(phrase: String, language: Wordlist.Language? = nil) throws(MnemonicError) {
        let words = Wordlist.normalize(phrase).split(whereSeparator: \.isWhitespace).map(String.init)
        guard let wordCount = WordCount(rawValue: words.count) else {
            throw .wrongWordCount(count: words.count)
        }
        // Try the lists in order and stop at the first that holds every word and whose
        // checksum matches, so an English phrase never splits the other nine lists.
        var firstHoldingAll: Wordlist.Language?
        for candidate in language.map({ [$0] }) ?? Wordlist.Language.allCases {
            let list = Wordlist(candidate)
            guard words.allSatisfy({ list.index(ofNormalized: $0) != nil }) else { continue }
            if let entropy = Mnemonic.decodeEntropy(words, in: list, wordCount: wordCount) {
                self.init(checkedEntropy: entropy, wordCount: wordCount, language: candidate)
                return
            }
            firstHoldingAll = firstHoldingAll ?? candidate
        }
        if let firstHoldingAll {
            throw .checksumMismatch(wordCount: wordCount.rawValue, language: firstHoldingAll)
        }
        // No list holds every word: say which word, and why.
        try Mnemonic.checkWords(
            words, against: language ?? Mnemonic.mainLanguage(of: words),
            languageWasGiven: language != nil)
        preconditionFailure("checkWords must throw when no list holds every word")
    }

    /// Parses a phrase held as a secret (e.g. read at a prompt that does not echo); see
    /// `init(phrase:language:)`.
    ///
    /// - Throws: `MnemonicError.notUTF8` when the bytes are not UTF-8 text, otherwise as
    ///   `init(phrase:language:)`.
    public init(phrase: Secret, language: Wordlist.Language? = nil) throws(MnemonicError) {
        guard let text = phrase.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw .notUTF8(what: "mnemonic")
        }
        try self.init(phrase: text, language: language)
    }

    // MARK: - Revealing the words

    /// Calls `body` with the canonical phrase: NFKD, lower case, words joined by single
    /// U+0020 spaces (the PBKDF2 password of BIP-39). Reveal it only on purpose.
    public func withPhrase<R, E: Error>(_ body: (String) throws(E) -> R) throws(E) -> R {
        let text = phrase.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        return try body(text)
    }

    /// Calls `body` with the words in order, each as in the word list (NFKD).
    public func withWords<R, E: Error>(_ body: ([String]) throws(E) -> R) throws(E) -> R {
        let words = phrase.withUnsafeBytes { bytes in
            bytes.split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
        }
        return try body(words)
    }

    /// Calls `body` with the phrase as it should be shown to a person: the words joined
    /// by the language's separator (U+3000 for Japanese, a space otherwise).
    public func withDisplayPhrase<R, E: Error>(_ body: (String) throws(E) -> R) throws(E) -> R {
        let text = withWords { $0.joined(separator: language.separator) }
        return try body(text)
    }

    /// The entropy the words encode: 16, 20, 24, 28 or 32 bytes (BIP-39, the inverse of
    /// "Generating the mnemonic").
    public var entropy: Secret { entropyBytes }

    // MARK: - Seed

    /// Number of PBKDF2 rounds BIP-39 specifies.
    public static let seedIterations = 2048

    /// The 64-byte BIP-39 seed: PBKDF2-HMAC-SHA512 with the NFKD phrase as password,
    /// `"mnemonic"` + NFKD(`passphrase`) as salt, 2048 iterations (BIP-39, "From mnemonic
    /// to seed"). Any passphrase is valid; a different one gives a different wallet.
    public func seed(passphrase: String = "") -> Secret {
        var salt = Array("mnemonic".utf8) + Array(passphrase.decomposedStringWithCompatibilityMapping.utf8)
        defer { Secret.wipe(&salt) }
        return seed(salt: salt)
    }

    /// The seed for a passphrase held as a secret (UTF-8 bytes); see `seed(passphrase:)`.
    /// An ASCII passphrase is used as is, since NFKD leaves ASCII unchanged; any other is
    /// decoded, normalised to NFKD and re-encoded.
    ///
    /// - Throws: `MnemonicError.notUTF8` when the passphrase bytes are not UTF-8 text.
    public func seed(passphrase: Secret) throws(MnemonicError) -> Secret {
        var salt = Array("mnemonic".utf8)
        defer { Secret.wipe(&salt) }
        let appended: Bool = passphrase.withUnsafeBytes { bytes in
            if bytes.allSatisfy({ $0 < 0x80 }) {
                salt.append(contentsOf: bytes)
                return true
            }
            guard let text = String(validating: bytes, as: UTF8.self) else { return false }
            salt.append(contentsOf: text.decomposedStringWithCompatibilityMapping.utf8)
            return true
        }
        guard appended else { throw .notUTF8(what: "passphrase") }
        return seed(salt: salt)
    }

    private func seed(salt: [UInt8]) -> Secret {
        do {
            return try KeyDerivation.pbkdf2(
                password: phrase, salt: salt, iterations: Mnemonic.seedIterations,
                length: 64, prf: .hmacSHA512)
        } catch {
            // Only out-of-range parameters throw, and these are BIP-39's constants.
            preconditionFailure("PBKDF2 rejected BIP-39's fixed parameters: \(error)")
        }
    }

    // MARK: - Bits ↔ words

    /// The word indices for `entropy` ‖ first CS bits of SHA-256(entropy), 11 bits per
    /// word, most significant bit first (BIP-39, "Generating the mnemonic").
    private static func wordIndices(entropy: UnsafeRawBufferPointer, wordCount: WordCount) -> [Int] {
        var bits = Array(entropy)
        bits.append(Hash.sha256(entropy)[0])  // CS ≤ 8, so one byte of the digest is enough
        defer { Secret.wipe(&bits) }
        return (0..<wordCount.rawValue).map { word in
            var index = 0
            for bit in word * 11..<word * 11 + 11 {
                index = index << 1 | Int(bits[bit / 8] >> (7 - bit % 8) & 1)
            }
            return index
        }
    }

    /// What the word indexes `indexes` (11 bits each, most significant first) spell: the
    /// entropy and the checksum bits written after it (right-aligned, CS of them).
    static func unpack(_ indexes: [Int], wordCount: WordCount) -> (entropy: Secret, checksum: UInt8) {
        var bits = [UInt8](repeating: 0, count: wordCount.entropyByteCount + 1)
        defer { Secret.wipe(&bits) }
        for (word, index) in indexes.enumerated() {
            for offset in 0..<11 where index >> (10 - offset) & 1 == 1 {
                let bit = word * 11 + offset
                bits[bit / 8] |= 1 << (7 - bit % 8)
            }
        }
        return (
            Secret(bytes: bits.prefix(wordCount.entropyByteCount)),
            bits[wordCount.entropyByteCount] >> (8 - wordCount.checksumBits)
        )
    }

    /// The entropy that `words` encode in `list`, or nil when a word is missing from the
    /// list or the checksum does not match.
    private static func decodeEntropy(_ words: [String], in list: Wordlist, wordCount: WordCount) -> Secret? {
        var indexes: [Int] = []
        for text in words {
            guard let index = list.index(ofNormalized: text) else { return nil }
            indexes.append(index)
        }
        let (entropy, given) = unpack(indexes, wordCount: wordCount)
        let expected = entropy.withUnsafeBytes { Hash.sha256($0)[0] } >> (8 - wordCount.checksumBits)
        return expected == given ? entropy : nil
    }

    // MARK: - Word checks

    /// The language whose list holds the most of `words`, ties going to the earlier
    /// language; nil when no word is in any list.
    private static func mainLanguage(of words: [String]) -> Wordlist.Language? {
        var best: (language: Wordlist.Language, count: Int)?
        for language in Wordlist.Language.allCases {
            let list = Wordlist(language)
            let count = words.count(where: { list.index(ofNormalized: $0) != nil })
            if count > 0, count > best?.count ?? 0 { best = (language, count) }
        }
        return best?.language
    }

    /// Throws for the first word that is not in `language`'s list (every list when
    /// `language` is nil): `.unknownWord` when it is in no list, otherwise
    /// `.wrongLanguage` or `.mixedLanguages`.
    private static func checkWords(
        _ words: [String], against language: Wordlist.Language?,
        languageWasGiven: Bool
    ) throws(MnemonicError) {
        let list = language.map(Wordlist.init)
        for (offset, word) in words.enumerated() where list?.index(ofNormalized: word) == nil {
            let others = Wordlist.Language.allCases.filter { Wordlist($0).index(ofNormalized: word) != nil }
            guard let language, !others.isEmpty else {
                let suggestions = list?.suggestions(for: word) ?? nearestInAnyList(word)
                throw .unknownWord(word: word, position: offset + 1, language: language, suggestions: suggestions)
            }
            if languageWasGiven {
                throw .wrongLanguage(position: offset + 1, expected: language, found: others)
            }
            throw .mixedLanguages(position: offset + 1, expected: language, found: others)
        }
    }

    /// Up to three nearest words across all lists, for a phrase in which no word is known.
    private static func nearestInAnyList(_ word: String) -> [String] {
        let target = Array(word)
        var seen = Set<String>()
        let all = Wordlist.Language.allCases.flatMap { Wordlist($0).suggestions(for: word) }
            .filter { seen.insert($0).inserted }
        let ranked = all.map { (word: $0, distance: EditDistance.between(target, Array($0)) ?? .max) }
        return ranked.enumerated()
            .sorted { ($0.element.distance, $0.offset) < ($1.element.distance, $1.offset) }
            .prefix(3).map(\.element.word)
    }
}

// MARK: - Equality and printing

extension Mnemonic: Equatable {
    /// Same language and same entropy (hence the same words), compared in constant time.
    public static func == (lhs: Mnemonic, rhs: Mnemonic) -> Bool {
        lhs.language == rhs.language && lhs.entropyBytes == rhs.entropyBytes
    }
}

extension Mnemonic: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `<mnemonic: 12 words, english>`: never the words.
    public var description: String { "<mnemonic: \(wordCount.rawValue) words, \(language)>" }
    /// The same as `description`, so `debugPrint` and `String(reflecting:)` stay silent too.
    public var debugDescription: String { description }
    /// A mirror with no children, so `dump` and debuggers show nothing but the description.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

// MARK: - Errors

/// Every way building a `Mnemonic` can fail. Cases carry facts; `description` renders
/// them in one sentence, and `id` is the stable name tests and callers match on.
///
/// Messages name positions and languages but not the phrase. The exception is
/// `unknownWord`, which quotes the word that is in no list so the user can find the
/// typo; the hex and dice errors quote the one character that was rejected.
public enum MnemonicError: WalletError, Equatable {
    /// A phrase with a number of words other than 12, 15, 18, 21 or 24.
    case wrongWordCount(count: Int)
    /// A word (normalised) at 1-based `position` that is in `language`'s list (or, when
    /// nil, in any list) and none other, with up to three nearest list words.
    case unknownWord(word: String, position: Int, language: Wordlist.Language?, suggestions: [String])
    /// The word at `position` is not in `expected`, the list most words come from, but
    /// is in the `found` lists (language detected).
    case mixedLanguages(position: Int, expected: Wordlist.Language, found: [Wordlist.Language])
    /// The word at `position` is not in the `expected` list the caller named, but is in
    /// the `found` lists.
    case wrongLanguage(position: Int, expected: Wordlist.Language, found: [Wordlist.Language])
    /// Every word is in the list, but the checksum bits do not match the entropy bits.
    case checksumMismatch(wordCount: Int, language: Wordlist.Language)
    /// Entropy that is not 16, 20, 24, 28 or 32 bytes.
    case entropyLength(byteCount: Int)
    /// Entropy hex with an odd number of digits (not counting a `0x` prefix).
    case entropyHexOddLength(digits: Int)
    /// Entropy hex with a non-hex character at 1-based `position` (counting any `0x`).
    case entropyHexInvalidCharacter(character: Character, position: Int)
    /// A dice-roll string with a character other than 1–6 at 1-based `position`.
    case diceInvalidCharacter(character: Character, position: Int)
    /// Fewer dice rolls than `wordCount` needs.
    case diceTooFewRolls(count: Int, required: Int, wordCount: Mnemonic.WordCount)
    /// Secret bytes (`what`: mnemonic or passphrase) that are not UTF-8 text.
    case notUTF8(what: String)

    /// Stable identifier of the case, e.g. `mnemonic.unknownWord`.
    public var id: String {
        switch self {
        case .wrongWordCount: "mnemonic.wordCount"
        case .unknownWord: "mnemonic.unknownWord"
        case .mixedLanguages: "mnemonic.mixedLanguages"
        case .wrongLanguage: "mnemonic.wrongLanguage"
        case .checksumMismatch: "mnemonic.checksum"
        case .entropyLength: "mnemonic.entropyLength"
        case .entropyHexOddLength: "mnemonic.entropyHexOddLength"
        case .entropyHexInvalidCharacter: "mnemonic.entropyHexInvalidCharacter"
        case .diceInvalidCharacter: "mnemonic.diceInvalidCharacter"
        case .diceTooFewRolls: "mnemonic.diceTooFewRolls"
        case .notUTF8: "mnemonic.notUTF8"
        }
    }

    /// One sentence: what was expected, what was given.
    public var description: String {
        switch self {
        case .wrongWordCount(let count):
            return "mnemonic must have 12, 15, 18, 21 or 24 words, got \(count)"
        case .unknownWord(let word, let position, let language, let suggestions):
            let list = language.map { "the \($0) BIP-39 word list" } ?? "a BIP-39 word list"
            let hint = suggestions.isEmpty ? "" : "; did you mean \(Self.alternatives(suggestions))?"
            return "mnemonic word \(position) must be in \(list), got '\(word)'\(hint)"
        case .mixedLanguages(let position, let expected, let found):
            return "mnemonic words must all come from one word list, but word \(position) is in the "
                + "\(Self.lists(found)) and not in the \(expected) list of the other words"
        case .wrongLanguage(let position, let expected, let found):
            return "mnemonic word \(position) must be in the \(expected) word list, got a word from the "
                + Self.lists(found)
        case .checksumMismatch(let wordCount, let language):
            return "mnemonic checksum must match its words, got a mismatch: one of the \(wordCount) "
                + "\(language) words is wrong or out of place"
        case .entropyLength(let byteCount):
            return "entropy must be 16, 20, 24, 28 or 32 bytes, got \(byteCount) byte\(byteCount == 1 ? "" : "s")"
        case .entropyHexOddLength(let digits):
            return "entropy hex must have an even number of digits, got \(digits)"
        case .entropyHexInvalidCharacter(let character, let position):
            return "entropy hex must contain only 0-9, a-f, A-F; got \(Self.quote(character)) at position \(position)"
        case .diceInvalidCharacter(let character, let position):
            return "dice rolls must be digits 1 to 6, got \(Self.quote(character)) at position \(position)"
        case .diceTooFewRolls(let count, let required, let wordCount):
            return "a \(wordCount.rawValue)-word mnemonic needs at least \(required) dice rolls, got \(count)"
        case .notUTF8(let what):
            return "\(what) must be UTF-8 text, got bytes that are not"
        }
    }

    /// `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`.
    private static func alternatives(_ words: [String]) -> String {
        let quoted = words.map { "'\($0)'" }
        guard quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " or " + quoted[quoted.count - 1]
    }

    /// `french list`, `chinese_simplified and chinese_traditional lists`.
    private static func lists(_ languages: [Wordlist.Language]) -> String {
        let names = languages.map(\.rawValue)
        guard names.count > 1 else { return "\(names.first ?? "other") list" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1] + " lists"
    }

    /// A printable character in quotes, anything else (space, control) as U+XXXX.
    private static func quote(_ c: Character) -> String {
        if c.isLetter || c.isNumber || c.isPunctuation || c.isSymbol { return "'\(c)'" }
        return c.unicodeScalars.map { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }.joined(separator: " ")
    }
}
