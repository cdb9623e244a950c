// BIP-39 mnemonics. Vectors (Vectors/bip39.json; its `_sources` say where each comes from):
// - english[], japanese_trezor: trezor/python-mnemonic vectors.json (the file BIP-39 points to);
// - japanese_bip32JP: bip32JP/bip32JP.github.io test_JP_BIP39.json (also referenced by BIP-39);
//   stored in NFC while our words are NFKD, so phrases are compared after NFKD (README
//   "Disagreements" item 5), and the passphrase changes under NFKD;
// - invalid_checksum: trezor/python-mnemonic tests/test_mnemonic.py test_failed_checksum;
// - ethers_mnemonics: ethers.js testcases/mnemonics.json.gz (locales en, ja).
// Dice: the rule is Coldcard's (coldcard.com/docs/verifying-dice-roll-math: SHA-256 of the
// rolls as an ASCII string); the expected phrases were computed with an independent Python
// script following that rule. SeededRandom phrases likewise (block i = SHA-256(seed ‖ i)).
import Foundation
import KCSTestSupport
import Testing
import WalletCore

// MARK: - Vector rows

/// One row of a BIP-39 vector table, copied out of the JSON so it is Sendable.
struct BIP39Vector: Sendable, CustomTestStringConvertible {
    let set: String
    let number: Int
    let entropy: String
    let mnemonic: String
    let passphrase: String
    let seed: String
    let language: Wordlist.Language

    var testDescription: String { "\(set) #\(number) (\(entropy.count / 2)-byte entropy)" }

    static func load(_ set: String, language: Wordlist.Language) -> [BIP39Vector] {
        let json = Vectors.json("bip39.json")
        let rows = set == "english" ? json.objects(set) : json.object(set).objects("cases")
        return rows.enumerated().map { number, row in
            BIP39Vector(
                set: set, number: number, entropy: normHex(row.string("entropy")),
                mnemonic: row.string("mnemonic"), passphrase: row.string("passphrase"),
                seed: normHex(row.string("seed")), language: language)
        }
    }

    /// ethers.js rows use `phrase_utf8`/`password_utf8` and a locale.
    static func loadEthers() -> [BIP39Vector] {
        Vectors.json("bip39.json").object("ethers_mnemonics").objects("cases").enumerated().map { number, row in
            BIP39Vector(
                set: "ethers \(row.string("name"))", number: number, entropy: normHex(row.string("entropy")),
                mnemonic: row.string("phrase_utf8"), passphrase: row.string("password_utf8"),
                seed: normHex(row.string("seed")),
                language: row.string("locale") == "ja" ? .japanese : .english)
        }
    }
}

/// The Unicode scalars of `text` after NFKD: a strict comparison (String == would let
/// canonically equivalent but differently encoded text pass).
private func nfkdScalars(_ text: String) -> [Unicode.Scalar] {
    Array(text.decomposedStringWithCompatibilityMapping.unicodeScalars)
}

private func hex(_ secret: Secret) -> String { secret.withUnsafeBytes { Hex.encode($0) } }

private func phrase(_ mnemonic: Mnemonic) -> String { mnemonic.withPhrase { $0 } }

/// The `MnemonicError` a closure raised (nil when it did not throw), for whole-message
/// assertions. Any other error is recorded as a test failure.
private func mnemonicError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> MnemonicError? {
    do {
        try body()
        return nil
    } catch let error as MnemonicError {
        return error
    } catch {
        Issue.record("expected a MnemonicError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

// MARK: - English vectors

@Suite("BIP-39 English vectors (trezor/python-mnemonic vectors.json)")
struct BIP39EnglishVectorTests {
    static let rows = BIP39Vector.load("english", language: .english)

    @Test("entropy → mnemonic", arguments: rows)
    func entropyToMnemonic_trezorVector_matchesPhrase(_ row: BIP39Vector) throws {
        let mnemonic = try Mnemonic(entropyHex: row.entropy)
        #expect(phrase(mnemonic) == row.mnemonic)
        #expect(mnemonic.language == .english)
        #expect(mnemonic.wordCount.rawValue == row.mnemonic.split(separator: " ").count)
    }

    @Test("mnemonic → entropy (checksum accepted)", arguments: rows)
    func mnemonicToEntropy_trezorVector_recoversEntropy(_ row: BIP39Vector) throws {
        let mnemonic = try Mnemonic(phrase: row.mnemonic)
        #expect(hex(mnemonic.entropy) == row.entropy)
        #expect(mnemonic.language == .english)
        #expect(try Mnemonic(phrase: row.mnemonic, language: .english) == mnemonic)
    }

    @Test("mnemonic + \"TREZOR\" → seed", arguments: rows)
    func seed_trezorVectorWithTREZOR_matchesSeed(_ row: BIP39Vector) throws {
        let mnemonic = try Mnemonic(phrase: row.mnemonic)
        #expect(row.passphrase == "TREZOR")
        #expect(hex(mnemonic.seed(passphrase: row.passphrase)) == row.seed)
    }

    @Test("description shows count and language, never a word", arguments: rows)
    func description_trezorVector_containsNoWord(_ row: BIP39Vector) throws {
        let mnemonic = try Mnemonic(phrase: row.mnemonic)
        let expected = "<mnemonic: \(mnemonic.wordCount.rawValue) words, english>"
        var dumped = ""
        dump(mnemonic, to: &dumped)
        for shown in [mnemonic.description, mnemonic.debugDescription, "\(mnemonic)", String(reflecting: mnemonic)] {
            #expect(shown == expected)
        }
        // The mirror has no children, so dump prints the description line and nothing else.
        #expect(dumped == "- \(expected)\n")
    }
}

// MARK: - Japanese vectors

@Suite("BIP-39 Japanese vectors (bip32JP and trezor)")
struct BIP39JapaneseVectorTests {
    static let bip32JP = BIP39Vector.load("japanese_bip32JP", language: .japanese)
    static let trezor = BIP39Vector.load("japanese_trezor", language: .japanese)

    @Test("entropy → mnemonic equals the vector after NFKD", arguments: bip32JP + trezor)
    func entropyToMnemonic_japaneseVector_matchesAfterNFKD(_ row: BIP39Vector) throws {
        let mnemonic = try Mnemonic(entropyHex: row.entropy, language: .japanese)
        // Display form keeps U+3000 between words; the canonical form has U+0020 (NFKD maps one to the other).
        #expect(nfkdScalars(mnemonic.withDisplayPhrase { $0 }) == nfkdScalars(row.mnemonic))
        #expect(mnemonic.withDisplayPhrase { $0.contains("\u{3000}") })
        #expect(Array(phrase(mnemonic).unicodeScalars) == nfkdScalars(row.mnemonic))
    }

    @Test("NFC mnemonic → entropy, language detected", arguments: bip32JP + trezor)
    func mnemonicToEntropy_japaneseNFCVector_recoversEntropy(_ row: BIP39Vector) throws {
        let mnemonic = try Mnemonic(phrase: row.mnemonic)
        #expect(mnemonic.language == .japanese)
        #expect(hex(mnemonic.entropy) == row.entropy)
        #expect(mnemonic.description == "<mnemonic: \(mnemonic.wordCount.rawValue) words, japanese>")
    }

    @Test("mnemonic + passphrase → seed (both NFKD)", arguments: bip32JP + trezor)
    func seed_japaneseVector_matchesSeed(_ row: BIP39Vector) throws {
        let mnemonic = try Mnemonic(phrase: row.mnemonic, language: .japanese)
        #expect(hex(mnemonic.seed(passphrase: row.passphrase)) == row.seed)
        #expect(hex(try mnemonic.seed(passphrase: Secret(utf8: row.passphrase))) == row.seed)
    }

    @Test("the bip32JP passphrase changes under NFKD, and the seed depends on that")
    func passphrase_bip32JP_changesUnderNFKD() throws {
        let row = try #require(Self.bip32JP.first)
        #expect(nfkdScalars(row.passphrase) != Array(row.passphrase.unicodeScalars))
        let mnemonic = try Mnemonic(phrase: row.mnemonic)
        // Same result whether the caller normalises first or not.
        #expect(hex(mnemonic.seed(passphrase: row.passphrase.decomposedStringWithCompatibilityMapping)) == row.seed)
    }
}

// MARK: - Invalid checksum vector

@Suite("BIP-39 invalid checksum (trezor/python-mnemonic test_failed_checksum)")
struct BIP39InvalidChecksumTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let mnemonic: String
        var testDescription: String { "invalid_checksum (\(mnemonic.split(separator: " ").count) words)" }
    }

    static let rows = Vectors.json("bip39.json").objects("invalid_checksum").map {
        Row(mnemonic: $0.string("mnemonic"))
    }

    @Test("phrase with a wrong checksum is rejected with the checksum error", arguments: rows)
    func parse_invalidChecksumVector_throwsChecksumMismatch(_ row: Row) {
        let error = mnemonicError { _ = try Mnemonic(phrase: row.mnemonic) }
        #expect(error == .checksumMismatch(wordCount: 12, language: .english))
        #expect(error?.id == "mnemonic.checksum")
        #expect(
            error?.description
                == "mnemonic checksum must match its words, got a mismatch: one of the 12 english words is wrong "
                + "or out of place")
    }
}

// MARK: - ethers.js vectors

@Suite("BIP-39 ethers.js vectors (testcases/mnemonics.json.gz)")
struct BIP39EthersVectorTests {
    static let rows = BIP39Vector.loadEthers()

    @Test("phrase → entropy", arguments: rows)
    func mnemonicToEntropy_ethersVector_recoversEntropy(_ row: BIP39Vector) throws {
        let mnemonic = try Mnemonic(phrase: row.mnemonic)
        #expect(mnemonic.language == row.language)
        #expect(hex(mnemonic.entropy) == row.entropy)
        let regenerated = try Mnemonic(entropyHex: row.entropy, language: row.language)
        #expect(nfkdScalars(regenerated.withDisplayPhrase { $0 }) == nfkdScalars(row.mnemonic))
    }

    @Test("phrase + password → seed", arguments: rows)
    func seed_ethersVector_matchesSeed(_ row: BIP39Vector) throws {
        let mnemonic = try Mnemonic(phrase: row.mnemonic, language: row.language)
        #expect(hex(mnemonic.seed(passphrase: row.passphrase)) == row.seed)
    }
}

// MARK: - Generation

@Suite("BIP-39 generation from a RandomSource")
struct BIP39GenerationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let wordCount: Mnemonic.WordCount
        let phrase: String
        var testDescription: String { "SeededRandom(42), \(wordCount)" }
    }

    // Computed independently in Python: entropy = first ENT/8 bytes of the SeededRandom stream.
    static let seed42: [Case] = [
        .init(
            wordCount: .twelve,
            phrase: "satisfy virus valve mail fade enjoy expire spend cousin aunt monitor arrange"),
        .init(
            wordCount: .fifteen,
            phrase: "satisfy virus valve mail fade enjoy expire spend cousin aunt monitor ask cabin animal great"),
        .init(
            wordCount: .eighteen,
            phrase: "satisfy virus valve mail fade enjoy expire spend cousin aunt monitor ask cabin animal "
                + "grace team color toast"),
        .init(
            wordCount: .twentyOne,
            phrase: "satisfy virus valve mail fade enjoy expire spend cousin aunt monitor ask cabin animal "
                + "grace team color time learn skill wrap"),
        .init(
            wordCount: .twentyFour,
            phrase: "satisfy virus valve mail fade enjoy expire spend cousin aunt monitor ask cabin animal "
                + "grace team color time learn skill vacant oyster action note"),
    ]

    @Test("SeededRandom gives the same phrase every run, for every word count", arguments: seed42)
    func generate_seededRandom42_isReproducible(_ row: Case) throws {
        let first = Mnemonic(generating: row.wordCount, using: SeededRandom(seed: 42))
        let second = Mnemonic(generating: row.wordCount, using: SeededRandom(seed: 42))
        #expect(phrase(first) == row.phrase)
        #expect(first == second)
        #expect(first.wordCount == row.wordCount)
        #expect(first.entropy.count == row.wordCount.entropyByteCount)
        #expect(first.withWords { $0.count } == row.wordCount.rawValue)
        #expect(try Mnemonic(phrase: row.phrase) == first)
        #expect(first != Mnemonic(generating: row.wordCount, using: SeededRandom(seed: 43)))
    }

    @Test("word count arithmetic follows BIP-39's table", arguments: Mnemonic.WordCount.allCases)
    func wordCount_allCases_matchBIP39Table(_ count: Mnemonic.WordCount) {
        let table: [Int: (ent: Int, cs: Int)] = [12: (128, 4), 15: (160, 5), 18: (192, 6), 21: (224, 7), 24: (256, 8)]
        #expect(count.entropyBits == table[count.rawValue]?.ent)
        #expect(count.checksumBits == table[count.rawValue]?.cs)
        #expect(Mnemonic.WordCount(entropyByteCount: count.entropyByteCount) == count)
    }

    @Test("every language generates and parses back", arguments: Wordlist.Language.allCases)
    func generate_everyLanguage_roundTrips(_ language: Wordlist.Language) throws {
        let mnemonic = Mnemonic(generating: .twentyFour, language: language, using: SeededRandom(seed: 7))
        let display = mnemonic.withDisplayPhrase { $0 }
        // Parsing with the language given always works; detection may pick another list only
        // when the words mean the same entropy there (the two Chinese lists share indices).
        let parsed = try Mnemonic(phrase: display, language: language)
        #expect(parsed == mnemonic)
        #expect(hex(try Mnemonic(phrase: display).entropy) == hex(mnemonic.entropy))
        #expect(display.contains("\u{3000}") == (language == .japanese))
    }

    @Test("SystemRandom gives a valid phrase of the requested length")
    func generate_systemRandom_isValid() throws {
        let mnemonic = Mnemonic(generating: .eighteen, using: SystemRandom())
        #expect(mnemonic.withWords { $0.count } == 18)
        #expect(try Mnemonic(phrase: phrase(mnemonic)) == mnemonic)
    }
}

// MARK: - Entropy input

@Suite("BIP-39 entropy input")
struct BIP39EntropyInputTests {
    @Test("hex with 0x prefix and upper case is accepted")
    func entropyHex_prefixedUpperCase_isAccepted() throws {
        let mnemonic = try Mnemonic(entropyHex: "0x7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F7F")
        #expect(phrase(mnemonic) == "legal winner thank year wave sausage worth useful legal winner thank yellow")
        #expect(try Mnemonic(entropy: [UInt8](repeating: 0x7f, count: 16)) == mnemonic)
    }

    struct BadHex: Sendable, CustomTestStringConvertible {
        let hex: String
        let id: String
        let message: String
        var testDescription: String { "'\(hex)' → \(id)" }
    }

    static let badHex: [BadHex] = [
        .init(
            hex: "000", id: "mnemonic.entropyHexOddLength",
            message: "entropy hex must have an even number of digits, got 3"),
        .init(
            hex: "0x0000000000000000000000000000000", id: "mnemonic.entropyHexOddLength",
            message: "entropy hex must have an even number of digits, got 31"),
        .init(
            hex: "00000g0000000000000000000000000000", id: "mnemonic.entropyHexInvalidCharacter",
            message: "entropy hex must contain only 0-9, a-f, A-F; got 'g' at position 6"),
        .init(
            hex: "0000 0000", id: "mnemonic.entropyHexInvalidCharacter",
            message: "entropy hex must contain only 0-9, a-f, A-F; got U+0020 at position 5"),
        .init(
            hex: String(repeating: "00", count: 15), id: "mnemonic.entropyLength",
            message: "entropy must be 16, 20, 24, 28 or 32 bytes, got 15 bytes"),
        .init(
            hex: String(repeating: "00", count: 17), id: "mnemonic.entropyLength",
            message: "entropy must be 16, 20, 24, 28 or 32 bytes, got 17 bytes"),
        .init(
            hex: String(repeating: "00", count: 33), id: "mnemonic.entropyLength",
            message: "entropy must be 16, 20, 24, 28 or 32 bytes, got 33 bytes"),
        .init(
            hex: "", id: "mnemonic.entropyLength",
            message: "entropy must be 16, 20, 24, 28 or 32 bytes, got 0 bytes"),
    ]

    @Test("bad entropy hex is rejected with a precise message", arguments: badHex)
    func entropyHex_invalid_throwsNamedError(_ row: BadHex) {
        let error = mnemonicError { _ = try Mnemonic(entropyHex: row.hex) }
        #expect(error?.id == row.id)
        #expect(error?.description == row.message)
    }

    @Test("entropy bytes of a wrong length are rejected")
    func entropyBytes_oneByte_throwsEntropyLength() {
        let error = mnemonicError { _ = try Mnemonic(entropy: [0x01]) }
        #expect(error == .entropyLength(byteCount: 1))
        #expect(error?.description == "entropy must be 16, 20, 24, 28 or 32 bytes, got 1 byte")
        let short = Secret(count: 31) { _ in }
        #expect(mnemonicError { _ = try Mnemonic(entropy: short) } == .entropyLength(byteCount: 31))
    }
}

// MARK: - Dice

@Suite("BIP-39 entropy from dice rolls (Coldcard rule)")
struct BIP39DiceTests {
    @Test("54 rolls → SHA-256 of the roll string, truncated to 16 bytes")
    func dice_54Rolls_twelveWordsFromTruncatedSHA256() throws {
        let rolls = String(repeating: "123456", count: 9)
        let mnemonic = try Mnemonic(diceRolls: rolls)
        #expect(hex(mnemonic.entropy) == Hex.encode(Hash.sha256(Array(rolls.utf8)).prefix(16)))
        #expect(
            phrase(mnemonic)
                == "universe intact render tank net oval paddle thought trick movie chimney bullet")
    }

    @Test("99 sixes → all 32 bytes of SHA-256 as a 24-word phrase")
    func dice_99Sixes_twentyFourWordsFromFullSHA256() throws {
        let rolls = String(repeating: "6", count: 99)
        let mnemonic = try Mnemonic(diceRolls: rolls, wordCount: .twentyFour)
        #expect(hex(mnemonic.entropy) == Hex.encode(Hash.sha256(Array(rolls.utf8))))
        #expect(
            phrase(mnemonic) == "leave symbol nuclear chase dentist letter tape program illegal vague suggest "
                + "wife copy source soup jacket fee eager loyal zoo keep brisk dynamic cradle")
    }

    @Test("the Coldcard documentation's example digest: SHA-256(\"123456\")")
    func dice_coldcardDocExample_digestMatches() {
        #expect(
            Hex.encode(Hash.sha256(Array("123456".utf8)))
                == "8d969eef6ecad3c29a3a629280e686cf0c3f5d5a86aff3ca12020c923adc6c92")
    }

    struct Minimum: Sendable, CustomTestStringConvertible {
        let wordCount: Mnemonic.WordCount
        let rolls: Int
        var testDescription: String { "\(wordCount) need \(rolls) rolls" }
    }

    static let minimums: [Minimum] = [
        .init(wordCount: .twelve, rolls: 50), .init(wordCount: .fifteen, rolls: 62),
        .init(wordCount: .eighteen, rolls: 74), .init(wordCount: .twentyOne, rolls: 87),
        .init(wordCount: .twentyFour, rolls: 99),
    ]

    @Test("exactly round(ENT / log2 6) rolls are accepted, one fewer is rejected", arguments: minimums)
    func dice_minimumRolls_acceptedAndOneFewerRejected(_ row: Minimum) throws {
        #expect(row.wordCount.minimumDiceRolls == row.rolls)
        let enough = String(repeating: "3", count: row.rolls)
        #expect(try Mnemonic(diceRolls: enough, wordCount: row.wordCount).wordCount == row.wordCount)
        let error = mnemonicError { _ = try Mnemonic(diceRolls: String(enough.dropLast()), wordCount: row.wordCount) }
        #expect(error == .diceTooFewRolls(count: row.rolls - 1, required: row.rolls, wordCount: row.wordCount))
        #expect(error?.id == "mnemonic.diceTooFewRolls")
        #expect(
            error?.description
                == "a \(row.wordCount.rawValue)-word mnemonic needs at least \(row.rolls) dice rolls, got \(row.rolls - 1)"
        )
    }

    @Test("too few rolls: 30 rolls for 12 words")
    func dice_thirtyRolls_throwsTooFewRolls() {
        let error = mnemonicError { _ = try Mnemonic(diceRolls: String(repeating: "1", count: 30)) }
        #expect(error?.description == "a 12-word mnemonic needs at least 50 dice rolls, got 30")
    }

    @Test("a '7' is rejected, naming its position")
    func dice_seven_throwsInvalidCharacterWithPosition() {
        let rolls = String(repeating: "1", count: 11) + "7" + String(repeating: "1", count: 60)
        let error = mnemonicError { _ = try Mnemonic(diceRolls: rolls) }
        #expect(error == .diceInvalidCharacter(character: "7", position: 12))
        #expect(error?.id == "mnemonic.diceInvalidCharacter")
        #expect(error?.description == "dice rolls must be digits 1 to 6, got '7' at position 12")
    }

    @Test("zeros, spaces and letters are rejected too")
    func dice_zeroSpaceLetter_throwInvalidCharacter() {
        #expect(
            mnemonicError { _ = try Mnemonic(diceRolls: "0") }?.description
                == "dice rolls must be digits 1 to 6, got '0' at position 1")
        #expect(
            mnemonicError { _ = try Mnemonic(diceRolls: "12 34") }?.description
                == "dice rolls must be digits 1 to 6, got U+0020 at position 3")
        #expect(
            mnemonicError { _ = try Mnemonic(diceRolls: "6é") }?.description
                == "dice rolls must be digits 1 to 6, got 'é' at position 2")
    }
}

// MARK: - Parsing phrases

@Suite("BIP-39 phrase parsing and its errors")
struct BIP39ParseTests {
    static let abandonAbout =
        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

    @Test("any whitespace and any case parse to the canonical phrase")
    func parse_mixedWhitespaceAndCase_normalises() throws {
        let messy =
            "  ABANDON\tabandon\nabandon\u{3000}abandon  abandon abandon\r\nabandon abandon Abandon "
            + "abandon\u{00A0}abandon About\n"
        let mnemonic = try Mnemonic(phrase: messy)
        #expect(phrase(mnemonic) == Self.abandonAbout)
        #expect(mnemonic == (try Mnemonic(phrase: Self.abandonAbout)))
    }

    @Test("French phrase typed with composed accents and capitals parses")
    func parse_frenchNFCUpperCase_detectsFrench() throws {
        let mnemonic = Mnemonic(generating: .twelve, language: .french, using: SeededRandom(seed: 3))
        let typed = mnemonic.withPhrase { $0.precomposedStringWithCanonicalMapping.uppercased() }
        let parsed = try Mnemonic(phrase: typed)
        #expect(parsed.language == .french)
        #expect(parsed == mnemonic)
    }

    @Test("words shared by english and french: the list whose checksum matches wins")
    func parse_sharedEnglishFrenchWords_checksumPicksLanguage() throws {
        // Every word is in both lists; only the french checksum matches (found with a Python search).
        let french = try Mnemonic(
            phrase: "crucial relief volume brave figure correct panda volume noble orange stable exact")
        #expect(french.language == .french)
        let english = try Mnemonic(
            phrase: "bonus caution capable label digital village surprise image figure sentence exact capable")
        #expect(english.language == .english)
    }

    @Test("secret phrase bytes parse like the string")
    func parse_secretPhrase_matchesStringPhrase() throws {
        #expect(try Mnemonic(phrase: Secret(utf8: Self.abandonAbout)) == (try Mnemonic(phrase: Self.abandonAbout)))
        let error = mnemonicError { _ = try Mnemonic(phrase: Secret(bytes: [0x61, 0xff])) }
        #expect(error == .notUTF8(what: "mnemonic"))
        #expect(error?.description == "mnemonic must be UTF-8 text, got bytes that are not")
    }

    @Test("unknown word: message names the word, its position and the nearest words")
    func parse_abandnTypo_throwsUnknownWordWithSuggestion() {
        let typo = Self.abandonAbout.replacingOccurrences(of: "abandon about", with: "abandn about")
        let error = mnemonicError { _ = try Mnemonic(phrase: typo) }
        #expect(error == .unknownWord(word: "abandn", position: 11, language: .english, suggestions: ["abandon"]))
        #expect(error?.id == "mnemonic.unknownWord")
        #expect(
            error?.description
                == "mnemonic word 11 must be in the english BIP-39 word list, got 'abandn'; did you mean 'abandon'?")
    }

    @Test("unknown word with three suggestions lists them with 'or'")
    func parse_acressTypo_listsThreeSuggestions() {
        let typo = "acress" + Self.abandonAbout.dropFirst("abandon".count)
        let error = mnemonicError { _ = try Mnemonic(phrase: typo, language: .english) }
        #expect(
            error?.description == "mnemonic word 1 must be in the english BIP-39 word list, got 'acress'; "
                + "did you mean 'access', 'across' or 'actress'?")
    }

    @Test("unknown word with nothing close has no hint; no known word means no list is named")
    func parse_garbage_throwsUnknownWordWithoutList() {
        let words = Self.abandonAbout.split(separator: " ")
        let oneBad = (words.prefix(4) + ["qqqq"] + words.dropFirst(5)).joined(separator: " ")
        #expect(
            mnemonicError { _ = try Mnemonic(phrase: oneBad) }?.description
                == "mnemonic word 5 must be in the english BIP-39 word list, got 'qqqq'")
        let allBad = Array(repeating: "qqqq", count: 12).joined(separator: " ")
        #expect(
            mnemonicError { _ = try Mnemonic(phrase: allBad) }
                == .unknownWord(word: "qqqq", position: 1, language: nil, suggestions: []))
        #expect(
            mnemonicError { _ = try Mnemonic(phrase: allBad) }?.description
                == "mnemonic word 1 must be in a BIP-39 word list, got 'qqqq'")
    }

    struct CountCase: Sendable, CustomTestStringConvertible {
        let count: Int
        var testDescription: String { "\(count) words" }
    }

    @Test(
        "wrong word count names the count and the valid ones",
        arguments: [0, 1, 11, 13, 23, 25].map(CountCase.init))
    func parse_wrongWordCount_throwsWordCount(_ row: CountCase) {
        let text = Array(repeating: "abandon", count: row.count).joined(separator: " ")
        let error = mnemonicError { _ = try Mnemonic(phrase: text) }
        #expect(error == .wrongWordCount(count: row.count))
        #expect(error?.id == "mnemonic.wordCount")
        #expect(error?.description == "mnemonic must have 12, 15, 18, 21 or 24 words, got \(row.count)")
    }

    @Test("valid words with a bad checksum fail on the checksum, not on a word")
    func parse_twelveAbandons_throwsChecksumMismatch() {
        let text = Array(repeating: "abandon", count: 12).joined(separator: " ")
        // Also in the french list: both candidates fail, the first (english) is reported.
        #expect(
            mnemonicError { _ = try Mnemonic(phrase: text) }
                == .checksumMismatch(wordCount: 12, language: .english))
        let swapped = "about abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon"
        #expect(mnemonicError { _ = try Mnemonic(phrase: swapped) }?.id == "mnemonic.checksum")
    }

    @Test("words from two lists are rejected as mixed languages")
    func parse_englishWithFrenchWord_throwsMixedLanguages() {
        let mixed = Self.abandonAbout.replacingOccurrences(of: "abandon about", with: "abaisser about")
        let error = mnemonicError { _ = try Mnemonic(phrase: mixed) }
        #expect(error == .mixedLanguages(position: 11, expected: .english, found: [.french]))
        #expect(error?.id == "mnemonic.mixedLanguages")
        #expect(
            error?.description == "mnemonic words must all come from one word list, but word 11 is in the french "
                + "list and not in the english list of the other words")
    }

    @Test("a phrase in another language than the one given is rejected, naming the list")
    func parse_englishPhraseAsJapanese_throwsWrongLanguage() {
        let error = mnemonicError { _ = try Mnemonic(phrase: Self.abandonAbout, language: .japanese) }
        #expect(error == .wrongLanguage(position: 1, expected: .japanese, found: [.english, .french]))
        #expect(error?.id == "mnemonic.wrongLanguage")
        #expect(
            error?.description
                == "mnemonic word 1 must be in the japanese word list, got a word from the english and french lists")
    }

    @Test("error messages other than unknownWord never quote a word of the phrase")
    func errors_checksumAndLanguage_containNoWord() {
        let errors: [MnemonicError?] = [
            mnemonicError { _ = try Mnemonic(phrase: Array(repeating: "zoo", count: 12).joined(separator: " ")) },
            mnemonicError { _ = try Mnemonic(phrase: Self.abandonAbout, language: .french) },
            mnemonicError {
                _ = try Mnemonic(phrase: Self.abandonAbout.replacingOccurrences(of: "about", with: "abaisser"))
            },
        ]
        for error in errors {
            let text = error?.description ?? ""
            #expect(!text.isEmpty)
            for word in ["zoo", "abandon", "about", "abaisser"] { #expect(!text.contains(word), "\(text)") }
        }
    }
}

// MARK: - Seeds and passphrases

@Suite("BIP-39 seed passphrases")
struct BIP39SeedTests {
    @Test("secret and string passphrases give the same seed, including non-ASCII")
    func seed_secretAndStringPassphrase_agree() throws {
        let mnemonic = try Mnemonic(phrase: BIP39ParseTests.abandonAbout)
        for passphrase in ["", "TREZOR", "Moo é🚀oM", "\u{FF34}\u{FF32}"] {  // last: full-width "TR", NFKD → "TR"
            #expect(try mnemonic.seed(passphrase: Secret(utf8: passphrase)) == mnemonic.seed(passphrase: passphrase))
        }
        #expect(mnemonic.seed(passphrase: "\u{FF34}\u{FF32}") == mnemonic.seed(passphrase: "TR"))
        #expect(mnemonic.seed() == mnemonic.seed(passphrase: ""))
        #expect(mnemonic.seed().count == 64)
        #expect(mnemonic.seed().description == "<secret: 64 bytes>")
    }

    @Test("a passphrase secret that is not UTF-8 is rejected")
    func seed_nonUTF8Passphrase_throwsNotUTF8() throws {
        let mnemonic = try Mnemonic(phrase: BIP39ParseTests.abandonAbout)
        let error = mnemonicError { _ = try mnemonic.seed(passphrase: Secret(bytes: [0xc3])) }
        #expect(error == .notUTF8(what: "passphrase"))
        #expect(error?.description == "passphrase must be UTF-8 text, got bytes that are not")
    }
}
