// Bech32 (BIP-173) and Bech32m (BIP-350) strings, and the SegWit addresses built on them
// (BIP-173 "Segwit address format", BIP-350 for witness versions 1–16, BIP-141 for the
// version-0 program lengths).

// MARK: - Errors

/// Every way a bech32/bech32m string or a SegWit address can be rejected.
///
/// The `bech32.*` cases are the string rules of BIP-173 §"Bech32" (shared by BIP-350); the
/// `segwit.*` cases are the address rules layered on top. Positions are 1-based and count
/// Unicode scalars of the whole string, so they point at what the user typed.
public enum Bech32Error: WalletError, Equatable {
    // MARK: string rules (BIP-173, BIP-350)
    /// More than 90 characters in total.
    case tooLong(length: Int)
    /// No `1` separating the human-readable part from the data.
    case missingSeparator
    /// Nothing before the last `1`.
    case emptyHRP
    /// A human-readable-part character outside US-ASCII 33–126.
    case invalidHRPCharacter(character: Character, position: Int)
    /// Upper- and lower-case letters in the same string; `character` is the first letter whose
    /// case differs from the first letter's.
    case mixedCase(character: Character, position: Int)
    /// Fewer than 6 characters after the separator, so there is no room for the checksum.
    case checksumTooShort(dataLength: Int)
    /// A data-part character (before the checksum) outside the bech32 alphabet.
    case invalidDataCharacter(character: Character, position: Int)
    /// A character in the last six (the checksum) outside the bech32 alphabet.
    case invalidChecksumCharacter(character: Character, position: Int)
    /// The checksum matches neither the bech32 nor the bech32m constant.
    case invalidChecksum
    /// The checksum is valid, but for the other variant than the caller asked for.
    case wrongVariant(expected: Bech32.Variant, got: Bech32.Variant)
    /// A value that does not fit in `bits` bits, at 0-based `index` of the values given.
    case valueOutOfRange(value: UInt8, index: Int, bits: Int)
    /// Regrouping 5-bit values into bytes left `bits` bits over; at most `maxBits` are allowed.
    case excessPadding(bits: Int, maxBits: Int)
    /// Regrouping 5-bit values into bytes left padding bits that are not zero.
    case nonZeroPadding

    // MARK: SegWit address rules (BIP-173, BIP-350, BIP-141)
    /// A human-readable part the caller does not accept (e.g. `tc` where `bc` or `tb` is expected).
    case unexpectedHRP(got: String, expected: [String])
    /// A valid bech32 string whose data part is only the checksum: no witness version.
    case emptyData
    /// A witness version above 16.
    case invalidWitnessVersion(UInt8)
    /// Version 0 with a bech32m checksum, or version 1–16 with a bech32 checksum (BIP-350).
    case wrongVariantForVersion(version: UInt8, expected: Bech32.Variant, got: Bech32.Variant)
    /// A witness program shorter than 2 or longer than 40 bytes.
    case invalidProgramLength(version: UInt8, length: Int)
    /// A version-0 program that is neither 20 (P2WPKH) nor 32 (P2WSH) bytes (BIP-141).
    case invalidV0ProgramLength(length: Int)

    /// Stable identifier of the case, for tests and for callers that branch on the kind.
    public var id: String {
        switch self {
        case .tooLong: "bech32.tooLong"
        case .missingSeparator: "bech32.missingSeparator"
        case .emptyHRP: "bech32.emptyHRP"
        case .invalidHRPCharacter: "bech32.invalidHRPCharacter"
        case .mixedCase: "bech32.mixedCase"
        case .checksumTooShort: "bech32.checksumTooShort"
        case .invalidDataCharacter: "bech32.invalidDataCharacter"
        case .invalidChecksumCharacter: "bech32.invalidChecksumCharacter"
        case .invalidChecksum: "bech32.invalidChecksum"
        case .wrongVariant: "bech32.wrongVariant"
        case .valueOutOfRange: "bech32.valueOutOfRange"
        case .excessPadding: "bech32.excessPadding"
        case .nonZeroPadding: "bech32.nonZeroPadding"
        case .unexpectedHRP: "segwit.unexpectedHRP"
        case .emptyData: "segwit.emptyData"
        case .invalidWitnessVersion: "segwit.invalidWitnessVersion"
        case .wrongVariantForVersion: "segwit.wrongVariantForVersion"
        case .invalidProgramLength: "segwit.invalidProgramLength"
        case .invalidV0ProgramLength: "segwit.invalidV0ProgramLength"
        }
    }

    /// One sentence naming the rule and what the string had instead.
    public var description: String {
        let q = EncodingText.quote
        switch self {
        case .tooLong(let length):
            return "bech32 string must be at most \(Bech32.maxLength) characters, got \(length)"
        case .missingSeparator:
            return "bech32 string must contain the separator '1' after the human-readable part, got none"
        case .emptyHRP:
            return "bech32 string must have a human-readable part before the separator '1', got an empty one"
        case .invalidHRPCharacter(let character, let position):
            return "bech32 human-readable part must use only ASCII characters 33-126 ('!' to '~'); got \(q(character))"
                + " at position \(position)"
        case .mixedCase(let character, let position):
            return "bech32 string must be all lower case or all upper case; got mixed case (\(q(character))"
                + " at position \(position))"
        case .checksumTooShort(let dataLength):
            return "bech32 string must have at least 6 characters (the checksum) after the separator, got \(dataLength)"
        case .invalidDataCharacter(let character, let position):
            return "bech32 data must use only the characters \(Bech32.charset); got \(q(character))"
                + " at position \(position)"
        case .invalidChecksumCharacter(let character, let position):
            return "bech32 checksum must use only the characters \(Bech32.charset); got \(q(character))"
                + " at position \(position)"
        case .invalidChecksum:
            return "bech32 checksum must match the string as bech32 (BIP-173) or bech32m (BIP-350), got neither"
                + " (a character is probably mistyped)"
        case .wrongVariant(let expected, let got):
            return "bech32 string must carry a \(expected.name) checksum, got a \(got.name) checksum"
        case .valueOutOfRange(let value, let index, let bits):
            return "bech32 value at index \(index) must fit in \(bits) bits, got \(value)"
        case .excessPadding(let bits, let maxBits):
            return "bech32 data must end in at most \(EncodingText.plural(maxBits, "bit")) of padding,"
                + " got \(bits)"
        case .nonZeroPadding:
            return "bech32 data padding bits must be zero, got non-zero bits"
        case .unexpectedHRP(let got, let expected):
            return "segwit address must start with \(Self.alternatives(expected)), got \(got)"
        case .emptyData:
            return "segwit address must carry a witness version and program, got only a checksum"
        case .invalidWitnessVersion(let version):
            return "segwit witness version must be 0-16, got \(version)"
        case .wrongVariantForVersion(let version, let expected, let got):
            return "segwit address of witness version \(version) must use a \(expected.name) checksum, got \(got.name)"
        case .invalidProgramLength(_, let length):
            return "segwit witness program must be 2 to 40 bytes, got \(length)"
        case .invalidV0ProgramLength(let length):
            return "segwit version 0 witness program must be 20 bytes (P2WPKH) or 32 bytes (P2WSH), got \(length)"
        }
    }

    /// "a", "a or b", "a, b or c".
    private static func alternatives(_ items: [String]) -> String {
        guard let last = items.last else { return "(nothing)" }
        return items.count == 1 ? last : items.dropLast().joined(separator: ", ") + " or " + last
    }
}

// MARK: - Bech32 strings

/// Bech32 and bech32m strings: `hrp ‖ "1" ‖ data ‖ checksum`, where data and checksum are
/// 5-bit values written in a 32-character alphabet (BIP-173). The two variants differ only in
/// the constant the checksum is XORed with (BIP-350); `decode` tells which one matched.
public enum Bech32 {
    /// Which checksum constant a string uses.
    public enum Variant: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// BIP-173: constant 1. Used by SegWit version 0 addresses and by Lightning invoices.
        case bech32
        /// BIP-350: constant 0x2bc830a3. Used by SegWit version 1 (Taproot) to 16.
        case bech32m

        /// The value the checksum polynomial must leave (BIP-173 / BIP-350).
        public var constant: UInt32 {
            switch self {
            case .bech32: 1
            case .bech32m: 0x2bc8_30a3
            }
        }

        /// The variant's name with the BIP that defines it, for messages.
        public var name: String {
            switch self {
            case .bech32: "bech32 (BIP-173)"
            case .bech32m: "bech32m (BIP-350)"
            }
        }

        /// The plain name, `bech32` or `bech32m`.
        public var description: String { self == .bech32 ? "bech32" : "bech32m" }
    }

    /// A decoded string: the human-readable part in lower case, the data as 5-bit values
    /// (checksum removed), and the variant whose checksum matched.
    public struct Decoded: Sendable, Hashable {
        /// Human-readable part, lower-cased (the checksum is defined over the lower-case form).
        public let hrp: String
        /// Data values, each 0…31, without the 6 checksum values.
        public let data: [UInt8]
        /// The variant whose constant the checksum matched.
        public let variant: Variant
    }

    /// The 32 data characters, in value order (BIP-173).
    public static let charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
    /// The longest valid string (BIP-173).
    public static let maxLength = 90
    /// Number of checksum characters.
    public static let checksumLength = 6

    /// Encodes `data` (5-bit values) under `hrp`. The result is lower case, as BIP-173 requires
    /// of encoders; `hrp` may be given in either case but not mixed.
    ///
    /// Throws `.emptyHRP`, `.invalidHRPCharacter`, `.mixedCase` (in `hrp`), `.valueOutOfRange`
    /// (a data value ≥ 32) or `.tooLong` (more than 90 characters in all).
    public static func encode(hrp: String, data: [UInt8], variant: Variant) throws(Bech32Error) -> String {
        let hrpScalars = Array(hrp.unicodeScalars)
        guard !hrpScalars.isEmpty else { throw .emptyHRP }
        for (i, scalar) in hrpScalars.enumerated() where !(33...126).contains(scalar.value) {
            throw .invalidHRPCharacter(character: Character(scalar), position: i + 1)
        }
        try checkSingleCase(hrpScalars)
        for (i, value) in data.enumerated() where value >= 32 {
            throw .valueOutOfRange(value: value, index: i, bits: 5)
        }
        let length = hrpScalars.count + 1 + data.count + checksumLength
        guard length <= maxLength else { throw .tooLong(length: length) }

        let lowerHRP = Array(hrp.utf8).map(lowercased)
        let checksum = makeChecksum(hrp: lowerHRP, data: data, variant: variant)
        let table = Array(charset.utf8)
        var out = lowerHRP + [UInt8(ascii: "1")]
        out.append(contentsOf: (data + checksum).map { table[Int($0)] })
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `text` under either variant and reports which one matched.
    ///
    /// Rules, in the order they are checked (BIP-173 §"Bech32", BIP-350): at most 90
    /// characters; a `1` separator (the last one counts); every human-readable-part character in
    /// ASCII 33–126; a non-empty human-readable part; not mixed case; at least 6 characters
    /// after the separator; only alphabet characters after it; a checksum valid for one variant.
    public static func decode(_ text: String) throws(Bech32Error) -> Decoded {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count <= maxLength else { throw .tooLong(length: scalars.count) }
        guard let separator = scalars.lastIndex(of: "1") else { throw .missingSeparator }
        for i in 0..<separator where !(33...126).contains(scalars[i].value) {
            throw .invalidHRPCharacter(character: Character(scalars[i]), position: i + 1)
        }
        guard separator > 0 else { throw .emptyHRP }
        try checkSingleCase(scalars)
        let dataLength = scalars.count - separator - 1
        guard dataLength >= checksumLength else { throw .checksumTooShort(dataLength: dataLength) }

        var values = [UInt8]()
        values.reserveCapacity(dataLength)
        let checksumStart = scalars.count - checksumLength
        for i in (separator + 1)..<scalars.count {
            let scalar = scalars[i]
            guard scalar.isASCII, let value = charsetValues[Int(lowercased(UInt8(scalar.value)))] else {
                if i >= checksumStart {
                    throw .invalidChecksumCharacter(character: Character(scalar), position: i + 1)
                }
                throw .invalidDataCharacter(character: Character(scalar), position: i + 1)
            }
            values.append(value)
        }

        let hrp = scalars[..<separator].map { lowercased(UInt8($0.value)) }
        let residue = polymod(expand(hrp) + values)
        guard let variant = Variant.allCases.first(where: { $0.constant == residue }) else {
            throw .invalidChecksum
        }
        return Decoded(
            hrp: String(decoding: hrp, as: UTF8.self), data: Array(values.dropLast(checksumLength)),
            variant: variant)
    }

    /// Decodes `text` and requires the checksum of `variant`; a string valid only under the
    /// other variant throws `.wrongVariant`.
    public static func decode(_ text: String, as variant: Variant) throws(Bech32Error) -> Decoded {
        let decoded = try decode(text)
        guard decoded.variant == variant else { throw .wrongVariant(expected: variant, got: decoded.variant) }
        return decoded
    }

    /// Regroups a sequence of `fromBits`-bit values into `toBits`-bit values, most significant
    /// bit first (BIP-173 `convertbits`). Bytes → 5-bit values uses `pad: true` (the last group
    /// is zero-filled); 5-bit values → bytes uses `pad: false`, which rejects more than
    /// `fromBits - 1` leftover bits (`.excessPadding`) and leftover bits that are not zero
    /// (`.nonZeroPadding`). Bit widths must be 1…8.
    public static func convertBits(
        _ values: [UInt8], from fromBits: Int, to toBits: Int,
        pad: Bool
    ) throws(Bech32Error) -> [UInt8] {
        precondition((1...8).contains(fromBits) && (1...8).contains(toBits), "bit widths must be 1…8")
        var accumulator: UInt32 = 0
        var bits = 0
        let maxValue: UInt32 = (1 << toBits) - 1
        var out = [UInt8]()
        out.reserveCapacity(values.count * fromBits / toBits + 1)
        for (i, value) in values.enumerated() {
            guard UInt32(value) >> fromBits == 0 else { throw .valueOutOfRange(value: value, index: i, bits: fromBits) }
            accumulator = (accumulator << fromBits | UInt32(value)) & 0xffff
            bits += fromBits
            while bits >= toBits {
                bits -= toBits
                out.append(UInt8((accumulator >> bits) & maxValue))
            }
        }
        if pad {
            if bits > 0 { out.append(UInt8((accumulator << (toBits - bits)) & maxValue)) }
        } else {
            guard bits < fromBits else { throw .excessPadding(bits: bits, maxBits: fromBits - 1) }
            guard (accumulator << (toBits - bits)) & maxValue == 0 else { throw .nonZeroPadding }
        }
        return out
    }

    // MARK: Checksum internals (BIP-173 "Checksum")

    /// The BCH code's generator coefficients.
    private static let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]

    /// Each ASCII character's value in `charset`, or nil.
    private static let charsetValues: [UInt8?] = {
        var table = [UInt8?](repeating: nil, count: 128)
        for (value, byte) in charset.utf8.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        var checksum: UInt32 = 1
        for value in values {
            let top = checksum >> 25
            checksum = (checksum & 0x1ff_ffff) << 5 ^ UInt32(value)
            for i in 0..<5 where (top >> i) & 1 == 1 { checksum ^= generator[i] }
        }
        return checksum
    }

    /// The human-readable part as the checksum sees it: high bits, a zero, then low bits.
    private static func expand(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    private static func makeChecksum(hrp: [UInt8], data: [UInt8], variant: Variant) -> [UInt8] {
        let residue = polymod(expand(hrp) + data + [UInt8](repeating: 0, count: checksumLength)) ^ variant.constant
        return (0..<checksumLength).map { UInt8((residue >> (5 * (5 - $0))) & 31) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5a).contains(byte) ? byte | 0x20 : byte
    }

    /// Throws `.mixedCase` at the first ASCII letter whose case differs from the first letter's.
    private static func checkSingleCase(_ scalars: [Unicode.Scalar]) throws(Bech32Error) {
        var firstIsUpper: Bool?
        for (i, scalar) in scalars.enumerated() {
            let isUpper = (0x41...0x5a).contains(scalar.value)
            guard isUpper || (0x61...0x7a).contains(scalar.value) else { continue }
            if let expected = firstIsUpper, expected != isUpper {
                throw .mixedCase(character: Character(scalar), position: i + 1)
            }
            firstIsUpper = isUpper
        }
    }
}

// MARK: - SegWit addresses

/// A native SegWit address: human-readable part, witness version 0–16 and witness program.
///
/// Only valid combinations can be built (docs/habits.md §8): program 2–40 bytes, version 0 with
/// 20 or 32 bytes (BIP-141), and the encoded string within 90 characters. Version 0 is written
/// with a bech32 checksum (BIP-173) and versions 1–16 with bech32m (BIP-350); decoding enforces
/// the same pairing, so BIP-173-era bech32 encodings of v1+ programs are rejected.
public struct SegwitAddress: Sendable, Hashable, CustomStringConvertible {
    /// Human-readable parts of Bitcoin mainnet, testnet/signet and regtest.
    public static let bitcoinHRPs = ["bc", "tb", "bcrt"]

    /// Human-readable part, lower case (e.g. `bc`).
    public let hrp: String
    /// Witness version, 0…16.
    public let version: UInt8
    /// Witness program, 2…40 bytes (20 or 32 for version 0).
    public let program: [UInt8]
    /// The address text, lower case, as BIP-173 requires encoders to write it.
    public let string: String

    /// Builds the address for `program` under `hrp`, checking every rule above.
    public init(hrp: String, version: UInt8, program: [UInt8]) throws(Bech32Error) {
        try Self.check(version: version, program: program)
        let variant: Bech32.Variant = version == 0 ? .bech32 : .bech32m
        let data = try [version] + Bech32.convertBits(program, from: 8, to: 5, pad: true)
        string = try Bech32.encode(hrp: hrp, data: data, variant: variant)
        self.hrp = hrp.lowercased()  // ASCII only, checked by `encode`
        self.version = version
        self.program = program
    }

    /// Parses an address. Its human-readable part must be one of `hrps` (compared in lower
    /// case); the checksum variant must match the witness version (BIP-350); the program must
    /// regroup into whole bytes with at most 4 zero padding bits (BIP-173 `convertbits`).
    public init(_ text: String, acceptingHRPs hrps: [String] = SegwitAddress.bitcoinHRPs) throws(Bech32Error) {
        let decoded = try Bech32.decode(text)
        guard hrps.contains(where: { $0.lowercased() == decoded.hrp }) else {
            throw .unexpectedHRP(got: decoded.hrp, expected: hrps)
        }
        guard let version = decoded.data.first else { throw .emptyData }
        guard version <= 16 else { throw .invalidWitnessVersion(version) }
        let expected: Bech32.Variant = version == 0 ? .bech32 : .bech32m
        guard decoded.variant == expected else {
            throw .wrongVariantForVersion(version: version, expected: expected, got: decoded.variant)
        }
        let program = try Bech32.convertBits(Array(decoded.data.dropFirst()), from: 5, to: 8, pad: false)
        try Self.check(version: version, program: program)
        self.hrp = decoded.hrp
        self.version = version
        self.program = program
        self.string = text.lowercased()
    }

    /// The output script that pays to this address (BIP-141): `OP_0` or `OP_1`…`OP_16`
    /// (0x51…0x60), then a direct push of the program (length byte, program bytes).
    public var scriptPubKey: [UInt8] {
        [version == 0 ? 0x00 : 0x50 + version, UInt8(program.count)] + program
    }

    /// The address text (same as `string`).
    public var description: String { string }

    private static func check(version: UInt8, program: [UInt8]) throws(Bech32Error) {
        guard version <= 16 else { throw .invalidWitnessVersion(version) }
        guard (2...40).contains(program.count) else {
            throw .invalidProgramLength(version: version, length: program.count)
        }
        guard version != 0 || program.count == 20 || program.count == 32 else {
            throw .invalidV0ProgramLength(length: program.count)
        }
    }
}
