import WalletCrypto

// Bytewords (BCR-2020-012; docs/ur.md §2): each byte a four-letter word, the data followed by
// its CRC-32 (big-endian). Uniform Resources write the minimal style.

/// Every way a bytewords text or a Uniform Resource is refused.
public enum URError: WalletError, Equatable {
    /// A word (or, in the minimal style, a letter pair) that is not a byteword.
    case unknownWord(String, position: Int)
    /// Minimal-style text of odd length.
    case oddLength(Int)
    /// Fewer than 5 bytes: no room for data and checksum.
    case tooShort
    /// The last 4 bytes are not the CRC-32 of the rest.
    case badChecksum
    /// Not `ur:TYPE/…`.
    case notUR
    /// A type outside `[a-z0-9-]+`.
    case invalidType(String)
    /// A multi-part sequence that is not `N-M` with 1 ≤ N and 1 ≤ M.
    case invalidSequence(String)
    /// A part's `N-M` disagrees with the sequence inside it.
    case sequenceMismatch(text: String)
    /// A part of another type than the first part's.
    case typeMismatch(expected: String, got: String)
    /// A part of another message than the parts read before it (another checksum, length or count).
    case otherMessage
    /// A fountain part outside the bounds kcs accepts.
    case invalidPart(String)
    /// All fragments are in, but the message's CRC-32 is wrong.
    case messageChecksum
    /// The CBOR inside is refused.
    case cbor(CBORError)

    public var id: String {
        switch self {
        case .unknownWord: "ur.unknownWord"
        case .oddLength: "ur.oddLength"
        case .tooShort: "ur.tooShort"
        case .badChecksum: "ur.badChecksum"
        case .notUR: "ur.notUR"
        case .invalidType: "ur.invalidType"
        case .invalidSequence: "ur.invalidSequence"
        case .sequenceMismatch: "ur.sequenceMismatch"
        case .typeMismatch: "ur.typeMismatch"
        case .otherMessage: "ur.otherMessage"
        case .invalidPart: "ur.invalidPart"
        case .messageChecksum: "ur.messageChecksum"
        case .cbor(let e): e.id
        }
    }

    public var description: String {
        switch self {
        case .unknownWord(let word, let position): "\"\(word)\" (at \(position)) is not a byteword"
        case .oddLength(let n): "minimal bytewords come in letter pairs, and this text has \(n) letters"
        case .tooShort: "the bytewords are too short to hold data and a 4-byte checksum"
        case .badChecksum: "the bytewords' checksum does not match: a word is mistyped or missing"
        case .notUR: "not a Uniform Resource: expected ur:TYPE/… or ur:TYPE/N-M/…"
        case .invalidType(let t): "\"\(t)\" is not a UR type (lower-case letters, digits and -)"
        case .invalidSequence(let s): "\"\(s)\" is not a part sequence N-M (N and M from 1)"
        case .sequenceMismatch(let text): "the part \(text) says another sequence number inside than outside"
        case .typeMismatch(let expected, let got): "a ur:\(got) part among the parts of a ur:\(expected)"
        case .otherMessage: "parts of two different URs are mixed: this part belongs to another message"
        case .invalidPart(let why): "a multi-part UR part is refused: \(why)"
        case .messageChecksum: "the parts joined give a message whose checksum is wrong"
        case .cbor(let e): e.description
        }
    }
}

/// Bytewords encoding and decoding.
public enum Bytewords {
    /// How the words are written.
    public enum Style: Sendable {
        /// Words separated by spaces.
        case standard
        /// Words separated by `-`.
        case uri
        /// The first and last letter of each word, no separator (UR bodies).
        case minimal
    }

    /// The 256 words, `able` (0x00) to `zoom` (0xFF), run together (BCR-2020-012).
    static let list = Array(
        """
        ableacidalsoapexaquaarchatomauntawayaxisbackbaldbarnbeltbetabiasbluebodybragbrewbulbbuzzcalmcash\
        catschefcityclawcodecolacookcostcruxcurlcuspcyandarkdatadaysdelidicedietdoordowndrawdropdrumdull\
        dutyeacheasyechoedgeepicevenexamexiteyesfactfairfernfigsfilmfishfizzflapflewfluxfoxyfreefrogfuel\
        fundgalagamegeargemsgiftgirlglowgoodgraygrimgurugushgyrohalfhanghardhawkheathelphighhillholyhope\
        hornhutsicedideaidleinchinkyintoirisironitemjadejazzjoinjoltjowljudojugsjumpjunkjurykeepkenokept\
        keyskickkilnkingkitekiwiknoblamblavalazyleaflegsliarlimplionlistlogoloudloveluaulucklungmainmany\
        mathmazememomenumeowmildmintmissmonknailnavyneednewsnextnoonnotenumbobeyoboeomitonyxopenovalowls\
        paidpartpeckplaypluspoempoolposepuffpumapurrquadquizraceramprealredorichroadrockroofrubyruinruns\
        rustsafesagascarsetssilkskewslotsoapsolosongstubsurfswantacotasktaxitenttiedtimetinytoiltombtoys\
        triptunatwinuglyundouniturgeuservastveryvetovialvibeviewvisavoidvowswallwandwarmwaspwavewaxywebs\
        whatwhenwhizwolfworkyankyawnyellyogayurtzapszerozestzinczonezoom
        """.utf8)

    /// The word for each byte.
    static let words: [String] = (0..<256).map { String(decoding: list[4 * $0..<4 * $0 + 4], as: UTF8.self) }
    /// Byte of each word, and of each minimal pair (first and last letter).
    static let byWord: [String: UInt8] = Dictionary(uniqueKeysWithValues: words.enumerated().map { ($1, UInt8($0)) })
    static let byPair: [UInt16: UInt8] = {
        var table: [UInt16: UInt8] = [:]
        for i in 0..<256 {
            let first = UInt16(list[4 * i]), last = UInt16(list[4 * i + 3])
            table[first << 8 | last] = UInt8(i)
        }
        return table
    }()

    /// `bytes` followed by their CRC-32, as words.
    public static func encode(_ bytes: [UInt8], style: Style) -> String {
        let all = bytes + CRC32.bigEndianBytes(bytes)
        switch style {
        case .standard: return all.map { words[Int($0)] }.joined(separator: " ")
        case .uri: return all.map { words[Int($0)] }.joined(separator: "-")
        case .minimal:
            var out: [UInt8] = []
            out.reserveCapacity(2 * all.count)
            for b in all { out += [list[4 * Int(b)], list[4 * Int(b) + 3]] }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// The data of a bytewords text (any letter case), its checksum checked and removed.
    public static func decode(_ text: String, style: Style) throws(URError) -> [UInt8] {
        let lower = text.lowercased()
        var all: [UInt8] = []
        switch style {
        case .standard, .uri:
            let parts = lower.split(separator: style == .standard ? " " : "-", omittingEmptySubsequences: false)
            var position = 1
            for word in parts {
                guard let b = byWord[String(word)] else { throw .unknownWord(String(word), position: position) }
                all.append(b)
                position += word.count + 1
            }
        case .minimal:
            let u = Array(lower.utf8)
            guard u.count % 2 == 0 else { throw .oddLength(u.count) }
            all.reserveCapacity(u.count / 2)
            for i in stride(from: 0, to: u.count, by: 2) {
                guard let b = byPair[UInt16(u[i]) << 8 | UInt16(u[i + 1])] else {
                    throw .unknownWord(String(decoding: u[i..<i + 2], as: UTF8.self), position: i + 1)
                }
                all.append(b)
            }
        }
        guard all.count >= 5 else { throw .tooShort }
        let data = Array(all.dropLast(4))
        guard CRC32.bigEndianBytes(data) == Array(all.suffix(4)) else { throw .badChecksum }
        return data
    }
}
