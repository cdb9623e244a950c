import Foundation

/// One of the ten BIP-39 word lists: 2048 words whose index (0…2047) is what an
/// 11-bit group of entropy-plus-checksum selects (BIP-39, "Generating the mnemonic").
///
/// The words are embedded from bitcoin/bips `bip-0039/*.txt` by
/// `tools/generate-wordlists.py` and kept exactly as published: in list order and in
/// Unicode NFKD, the form BIP-39 hashes. A list is split into words the first time its
/// language is used and then shared; `Wordlist` values are cheap to copy.
///
/// Lookups (`index(of:)`, `contains(_:)`) normalise their argument to NFKD and lower
/// case first, so `"Abandon"` and a composed `"é"` find their words. Only the
/// Latin-script lists have letter case, so lower-casing changes nothing for the others.
public struct Wordlist: Sendable {
    // MARK: - Languages

    /// The languages of the official BIP-39 word lists. `rawValue` is the file name in
    /// bitcoin/bips `bip-0039/` without `.txt` (e.g. `chinese_simplified`).
    public enum Language: String, CaseIterable, Sendable, CustomStringConvertible {
        // The order is BIP-39's; language detection prefers earlier languages.
        case english
        case japanese
        case korean
        case spanish
        case chineseSimplified = "chinese_simplified"
        case chineseTraditional = "chinese_traditional"
        case french
        case italian
        case czech
        case portuguese

        /// The file name stem, as used in messages (`english`, `chinese_simplified`).
        public var description: String { rawValue }

        /// What goes between words when a phrase is shown to a person: U+3000
        /// IDEOGRAPHIC SPACE for Japanese, as BIP-39's Japanese list asks (and its test
        /// vectors use), a plain space otherwise. Seeds do not depend on it, because
        /// NFKD turns U+3000 into U+0020 before hashing.
        public var separator: String { self == .japanese ? "\u{3000}" : " " }

        /// This language's word list.
        public var wordlist: Wordlist { Wordlist(self) }
    }

    // MARK: - Contents

    /// Number of words in every BIP-39 list (2^11).
    public static let size = 2048

    /// The language of this list.
    public var language: Language { storage.language }

    /// The 2048 words in list order, each in NFKD as published.
    public var words: [String] { storage.words }

    private let storage: Storage

    /// The word list for `language`. The first call for a language splits its embedded
    /// text; later calls return the same shared storage.
    public init(_ language: Language) {
        storage = Storage.shared(language)
    }

    /// The word at `index`, which must be in `0..<2048`.
    public subscript(index: Int) -> String {
        precondition((0..<Wordlist.size).contains(index), "BIP-39 word index must be 0…2047, got \(index)")
        return storage.words[index]
    }

    /// The position of `word` in this list (0…2047), or nil when it is not in the list.
    /// `word` is normalised first (NFKD, lower case); the lookup itself is a hash lookup.
    public func index(of word: String) -> Int? {
        storage.indices[Wordlist.normalize(word)]
    }

    /// Whether `word` (normalised as in `index(of:)`) is in this list.
    public func contains(_ word: String) -> Bool { index(of: word) != nil }

    /// Lookup for a word that is already normalised (NFKD, lower case), as the mnemonic
    /// parser holds them after normalising the whole phrase once.
    func index(ofNormalized word: String) -> Int? { storage.indices[word] }

    /// `text` in the form the lists use: lower case, then Unicode NFKD.
    static func normalize(_ text: String) -> String {
        text.lowercased().decomposedStringWithCompatibilityMapping
    }

    // MARK: - Language detection

    /// The languages whose lists contain every one of `words` (normalised as in
    /// `index(of:)`), in `Language.allCases` order. Several languages can qualify:
    /// english and french share 100 words, and the two Chinese lists share 1275
    /// characters. Empty input yields every language.
    public static func languages(containing words: some Sequence<String>) -> [Language] {
        let normalized = words.map(normalize)
        return Language.allCases.filter { language in
            let list = Wordlist(language)
            return normalized.allSatisfy { list.index(ofNormalized: $0) != nil }
        }
    }

    /// The single language whose list holds all of `words`, or nil when no list holds
    /// them all or more than one does (use `Mnemonic(phrase:)`, which breaks ties with
    /// the checksum, to settle the second case).
    public static func detectLanguage(of words: some Sequence<String>) -> Language? {
        let candidates = languages(containing: words)
        return candidates.count == 1 ? candidates[0] : nil
    }

    // MARK: - Suggestions

    /// Up to `limit` words of this list that are closest to `word`, best first, for
    /// "did you mean" hints after a typo.
    ///
    /// Closeness is the optimal-string-alignment edit distance over characters
    /// (insert, delete, substitute, or swap two neighbours, each costing 1). A word
    /// qualifies when its distance is at most 1 for inputs of up to 4 characters and at
    /// most 2 for longer ones, or when `word` (3 characters or more) is its prefix,
    /// since many people write only the first four letters, which identify an English
    /// word uniquely (BIP-39, "Wordlist"). Prefix matches come first, then smaller
    /// distances, then list order. An input that is itself in the list is returned alone.
    public func suggestions(for word: String, limit: Int = 3) -> [String] {
        let typed = Wordlist.normalize(word)
        if let exact = index(ofNormalized: typed) { return limit > 0 ? [storage.words[exact]] : [] }
        let target = Array(typed)
        let maxDistance = target.count <= 4 ? 1 : 2
        var ranked: [(rank: Int, distance: Int, index: Int)] = []
        for (index, candidate) in storage.words.enumerated() {
            let isPrefix = target.count >= 3 && candidate.hasPrefix(typed)
            let letters = Array(candidate)
            guard let distance = EditDistance.between(target, letters, bound: isPrefix ? .max : maxDistance) else {
                continue
            }
            ranked.append((isPrefix ? 0 : distance, distance, index))
        }
        ranked.sort { ($0.rank, $0.distance, $0.index) < ($1.rank, $1.distance, $1.index) }
        return ranked.prefix(max(0, limit)).map { storage.words[$0.index] }
    }
}

// MARK: - Storage

extension Wordlist {
    /// The split words and their index, built once per language and shared.
    final class Storage: Sendable {
        let language: Language
        let words: [String]
        let indices: [String: Int]

        private init(_ language: Language) {
            let words = BIP39Wordlists.text(for: language).split(separator: "\n").map(String.init)
            precondition(words.count == Wordlist.size, "embedded \(language) list must have 2048 words")
            self.language = language
            self.words = words
            self.indices = Dictionary(uniqueKeysWithValues: words.enumerated().map { ($1, $0) })
        }

        /// The shared storage for `language`. Each `static let` is initialised lazily and
        /// exactly once by the runtime, so only the languages in use are ever split.
        static func shared(_ language: Language) -> Storage {
            switch language {
            case .english: english
            case .japanese: japanese
            case .korean: korean
            case .spanish: spanish
            case .chineseSimplified: chineseSimplified
            case .chineseTraditional: chineseTraditional
            case .french: french
            case .italian: italian
            case .czech: czech
            case .portuguese: portuguese
            }
        }

        private static let english = Storage(.english)
        private static let japanese = Storage(.japanese)
        private static let korean = Storage(.korean)
        private static let spanish = Storage(.spanish)
        private static let chineseSimplified = Storage(.chineseSimplified)
        private static let chineseTraditional = Storage(.chineseTraditional)
        private static let french = Storage(.french)
        private static let italian = Storage(.italian)
        private static let czech = Storage(.czech)
        private static let portuguese = Storage(.portuguese)
    }
}
