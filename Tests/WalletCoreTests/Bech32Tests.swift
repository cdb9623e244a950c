// Bech32 (BIP-173), bech32m (BIP-350) and SegWit addresses. Source: Vectors/bech32.json, copied from
// bitcoin/bips bip-0173.mediawiki "Test vectors" and bip-0350.mediawiki "Test vectors" (commit
// 7fe0b034ec967b52a5a28276419117326df93263); see the `_sources` of Vectors/bech32.json, and its
// "Disagreements" item 2: the BIP-350 address lists are the valid/invalid truth, and the three v1+
// addresses BIP-173 published with bech32 checksums must now be rejected.
import KCSTestSupport
import Testing
import WalletCore

private let bech32File = Vectors.json("bech32.json")

/// The error id each vector `reason` stands for. Reasons not listed (BIP-173's generic
/// "Invalid program length", superseded by BIP-350 rules) are only checked for rejection.
private let idForReason: [String: String] = [
    "HRP character out of range": "bech32.invalidHRPCharacter",
    "overall max length exceeded": "bech32.tooLong",
    "No separator character": "bech32.missingSeparator",
    "Empty HRP": "bech32.emptyHRP",
    "empty HRP": "bech32.emptyHRP",
    "Invalid data character": "bech32.invalidDataCharacter",
    "Too short checksum": "bech32.checksumTooShort",
    "Invalid character in checksum": "bech32.invalidChecksumCharacter",
    "checksum calculated with uppercase form of HRP": "bech32.invalidChecksum",
    "Invalid human-readable part": "segwit.unexpectedHRP",
    "Invalid checksum (Bech32 instead of Bech32m)": "segwit.wrongVariantForVersion",
    "Invalid checksum (Bech32m instead of Bech32)": "segwit.wrongVariantForVersion",
    "Invalid witness version": "segwit.invalidWitnessVersion",
    "Invalid program length (1 byte)": "segwit.invalidProgramLength",
    "Invalid program length (41 bytes)": "segwit.invalidProgramLength",
    "Invalid program length for witness version 0 (per BIP141)": "segwit.invalidV0ProgramLength",
    "Mixed case": "bech32.mixedCase",
    "zero padding of more than 4 bits": "bech32.excessPadding",
    "Non-zero padding in 8-to-5 conversion": "bech32.nonZeroPadding",
    "Empty data section": "segwit.emptyData",
]

/// One rendered-message check: what to run, and the exact sentence expected.
struct Bech32MessageCase: Sendable, CustomTestStringConvertible {
    enum Action: Sendable {
        case decode(String)
        case decodeAs(String, Bech32.Variant)
        case encode(hrp: String, data: [UInt8])
        case segwit(String)
    }

    let kind: String
    let action: Action
    let message: String

    var testDescription: String { kind }

    func run() -> Bech32Error? {
        caught { () throws(Bech32Error) in
            switch action {
            case .decode(let text): _ = try Bech32.decode(text)
            case .decodeAs(let text, let variant): _ = try Bech32.decode(text, as: variant)
            case .encode(let hrp, let data): _ = try Bech32.encode(hrp: hrp, data: data, variant: .bech32)
            case .segwit(let text): _ = try SegwitAddress(text)
            }
        }
    }
}

@Suite("Bech32 and SegWit addresses")
struct Bech32Tests {
    static let bech32Valid = bech32File.objects("bech32_valid").map { $0.string("string") }
    static let bech32mValid = bech32File.objects("bech32m_valid").map { $0.string("string") }
    static let invalid = bech32File.objects("bech32_invalid") + bech32File.objects("bech32m_invalid")
    static let segwitValid = bech32File.objects("segwit_addresses_valid")
    static let segwitInvalid = bech32File.objects("segwit_addresses_invalid")
    static let bip173SegwitInvalid = bech32File.objects("bip173_segwit_addresses_invalid")
    static let supersededByBIP350 = bech32File.object("bip173_segwit_addresses_valid_as_originally_published")
        .strings("superseded_by_bip350")

    // MARK: Valid strings

    @Test("BIP-173 valid string decodes as bech32, fails as bech32m, re-encodes", arguments: bech32Valid)
    func decode_bip173ValidString_isBech32Only(_ text: String) throws {
        let decoded = try Bech32.decode(text)
        #expect(decoded.variant == .bech32)
        #expect(
            caught { () throws(Bech32Error) in _ = try Bech32.decode(text, as: .bech32m) }
                == .wrongVariant(expected: .bech32m, got: .bech32))
        #expect(try Bech32.decode(text, as: .bech32) == decoded)
        #expect(try Bech32.encode(hrp: decoded.hrp, data: decoded.data, variant: .bech32) == text.lowercased())
    }

    @Test("BIP-350 valid string decodes as bech32m, fails as bech32, re-encodes", arguments: bech32mValid)
    func decode_bip350ValidString_isBech32mOnly(_ text: String) throws {
        let decoded = try Bech32.decode(text)
        #expect(decoded.variant == .bech32m)
        #expect(
            caught { () throws(Bech32Error) in _ = try Bech32.decode(text, as: .bech32) }
                == .wrongVariant(expected: .bech32, got: .bech32m))
        #expect(try Bech32.decode(text, as: .bech32m) == decoded)
        #expect(try Bech32.encode(hrp: decoded.hrp, data: decoded.data, variant: .bech32m) == text.lowercased())
    }

    // MARK: Invalid strings

    @Test("BIP-173/BIP-350 invalid string is rejected for its reason", arguments: invalid)
    func decode_invalidString_failsWithReasonID(_ row: JSON) throws {
        let text = row.string("string")
        let error = try #require(caught { () throws(Bech32Error) in _ = try Bech32.decode(text) })
        let expectedID = try #require(idForReason[row.string("reason")], "unmapped reason \(row.string("reason"))")
        #expect(error.id == expectedID)
        for variant in Bech32.Variant.allCases {
            #expect(throws: Bech32Error.self) { try Bech32.decode(text, as: variant) }
        }
    }

    // MARK: SegWit addresses

    @Test("BIP-350 valid address gives its scriptPubKey and re-encodes in lower case", arguments: segwitValid)
    func segwit_validAddress_matchesScriptPubKey(_ row: JSON) throws {
        let text = row.string("string")
        let address = try SegwitAddress(text)
        #expect(address.scriptPubKey.hex == normHex(row.string("script_pubkey")))
        #expect(address.string == text.lowercased())
        let rebuilt = try SegwitAddress(hrp: address.hrp, version: address.version, program: address.program)
        #expect(rebuilt.string == text.lowercased())
        #expect(rebuilt == address)
    }

    @Test("BIP-350 invalid address is rejected for its reason", arguments: segwitInvalid)
    func segwit_invalidAddress_failsWithReasonID(_ row: JSON) throws {
        let error = try #require(caught { () throws(Bech32Error) in _ = try SegwitAddress(row.string("string")) })
        let expectedID = try #require(idForReason[row.string("reason")], "unmapped reason \(row.string("reason"))")
        #expect(error.id == expectedID)
    }

    @Test("BIP-173 invalid address is still rejected", arguments: bip173SegwitInvalid)
    func segwit_bip173InvalidAddress_fails(_ row: JSON) {
        #expect(throws: Bech32Error.self) { try SegwitAddress(row.string("string")) }
    }

    @Test("BIP-173's bech32-encoded v1+ address is rejected under BIP-350", arguments: supersededByBIP350)
    func segwit_bip173V1PlusBech32Address_failsWrongVariant(_ text: String) {
        let error = caught { () throws(Bech32Error) in _ = try SegwitAddress(text) }
        #expect(error?.id == "segwit.wrongVariantForVersion")
    }

    @Test("an HRP outside the accepted list is rejected, and accepted when listed")
    func segwit_customHRPs_areHonoured() throws {
        let text = "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7"
        #expect(
            caught { () throws(Bech32Error) in _ = try SegwitAddress(text, acceptingHRPs: ["bc"]) }
                == .unexpectedHRP(got: "tb", expected: ["bc"]))
        #expect(try SegwitAddress(text, acceptingHRPs: ["TB"]).hrp == "tb")
    }

    // MARK: convertbits

    @Test("bytes → 5-bit groups → bytes round-trips with zero padding")
    func convertBits_bytesRoundTrip_restoresBytes() throws {
        let bytes: [UInt8] = [0xff, 0x00, 0x75, 0x1e, 0x01]
        let fives = try Bech32.convertBits(bytes, from: 8, to: 5, pad: true)
        #expect(fives.count == 8)
        #expect(try Bech32.convertBits(fives, from: 5, to: 8, pad: false) == bytes)
    }

    // MARK: Rendered messages, one per error kind

    static let messageCases: [Bech32MessageCase] = [
        .init(
            kind: "bech32.tooLong", action: .decode(invalidString("overall max length exceeded")),
            message: "bech32 string must be at most 90 characters, got 91"),
        .init(
            kind: "bech32.missingSeparator", action: .decode("pzry9x0s0muk"),
            message: "bech32 string must contain the separator '1' after the human-readable part, got none"),
        .init(
            kind: "bech32.emptyHRP", action: .decode("1pzry9x0s0muk"),
            message: "bech32 string must have a human-readable part before the separator '1', got an empty one"),
        .init(
            kind: "bech32.invalidHRPCharacter", action: .decode(" 1nwldj5"),
            message: "bech32 human-readable part must use only ASCII characters 33-126 ('!' to '~');"
                + " got U+0020 at position 1"),
        .init(
            kind: "bech32.mixedCase",
            action: .decode("tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq"),
            message: "bech32 string must be all lower case or all upper case; got mixed case ('Z' at position 59)"),
        .init(
            kind: "bech32.checksumTooShort", action: .decode("li1dgmt3"),
            message: "bech32 string must have at least 6 characters (the checksum) after the separator, got 5"),
        .init(
            kind: "bech32.invalidDataCharacter", action: .decode("x1b4n0q5v"),
            message: "bech32 data must use only the characters qpzry9x8gf2tvdw0s3jn54khce6mua7l;"
                + " got 'b' at position 3"),
        .init(
            kind: "bech32.invalidChecksumCharacter", action: .decode("de1lg7wt\u{ff}"),
            message: "bech32 checksum must use only the characters qpzry9x8gf2tvdw0s3jn54khce6mua7l;"
                + " got 'ÿ' (U+00FF) at position 9"),
        .init(
            kind: "bech32.invalidChecksum", action: .decode("A1G7SGD8"),
            message: "bech32 checksum must match the string as bech32 (BIP-173) or bech32m (BIP-350), got neither"
                + " (a character is probably mistyped)"),
        .init(
            kind: "bech32.wrongVariant", action: .decodeAs("A12UEL5L", .bech32m),
            message: "bech32 string must carry a bech32m (BIP-350) checksum, got a bech32 (BIP-173) checksum"),
        .init(
            kind: "bech32.valueOutOfRange", action: .encode(hrp: "a", data: [0, 32]),
            message: "bech32 value at index 1 must fit in 5 bits, got 32"),
        .init(
            kind: "bech32.excessPadding",
            action: .segwit("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf"),
            message: "bech32 data must end in at most 4 bits of padding, got 6"),
        .init(
            kind: "bech32.nonZeroPadding",
            action: .segwit("tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j"),
            message: "bech32 data padding bits must be zero, got non-zero bits"),
        .init(
            kind: "segwit.unexpectedHRP",
            action: .segwit("tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut"),
            message: "segwit address must start with bc, tb or bcrt, got tc"),
        .init(
            kind: "segwit.emptyData", action: .segwit("bc1gmk9yu"),
            message: "segwit address must carry a witness version and program, got only a checksum"),
        .init(
            kind: "segwit.invalidWitnessVersion",
            action: .segwit("BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R"),
            message: "segwit witness version must be 0-16, got 17"),
        .init(
            kind: "segwit.wrongVariantForVersion",
            action: .segwit("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd"),
            message: "segwit address of witness version 1 must use a bech32m (BIP-350) checksum,"
                + " got bech32 (BIP-173)"),
        .init(
            kind: "segwit.invalidProgramLength", action: .segwit("bc1pw5dgrnzv"),
            message: "segwit witness program must be 2 to 40 bytes, got 1"),
        .init(
            kind: "segwit.invalidV0ProgramLength", action: .segwit("BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P"),
            message: "segwit version 0 witness program must be 20 bytes (P2WPKH) or 32 bytes (P2WSH), got 16"),
    ]

    /// The first bech32 invalid vector with `reason`.
    static func invalidString(_ reason: String) -> String {
        bech32File.objects("bech32_invalid").first { $0.string("reason") == reason }!.string("string")
    }

    @Test("error renders its full message", arguments: messageCases)
    func error_eachKind_rendersFullMessage(_ testCase: Bech32MessageCase) throws {
        let error = try #require(testCase.run())
        #expect(error.id == testCase.kind)
        #expect(error.description == testCase.message)
    }

    @Test(
        "building an address checks version and program length",
        arguments: [
            (UInt8(17), 20, "segwit.invalidWitnessVersion"),
            (UInt8(0), 21, "segwit.invalidV0ProgramLength"),
            (UInt8(1), 41, "segwit.invalidProgramLength"),
            (UInt8(1), 1, "segwit.invalidProgramLength"),
        ])
    func segwit_buildInvalid_fails(_ version: UInt8, _ length: Int, _ id: String) {
        let error = caught { () throws(Bech32Error) in
            _ = try SegwitAddress(hrp: "bc", version: version, program: [UInt8](repeating: 0x75, count: length))
        }
        #expect(error?.id == id)
    }

    @Test("encoding rejects an empty HRP, a bad HRP character and a result over 90 characters")
    func encode_invalidInputs_fail() {
        #expect(
            caught { () throws(Bech32Error) in _ = try Bech32.encode(hrp: "", data: [], variant: .bech32) }
                == .emptyHRP)
        #expect(
            caught { () throws(Bech32Error) in _ = try Bech32.encode(hrp: "a b", data: [], variant: .bech32) }
                == .invalidHRPCharacter(character: " ", position: 2))
        #expect(
            caught { () throws(Bech32Error) in
                _ = try Bech32.encode(hrp: "a", data: [UInt8](repeating: 0, count: 83), variant: .bech32m)
            } == .tooLong(length: 91))
    }
}
