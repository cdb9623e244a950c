// Base58 and Base58Check, the text encodings of Bitcoin legacy addresses, WIF private keys and
// BIP-32 extended keys. There is no BIP for Base58 itself; the reference is Bitcoin Core
// (`src/base58.cpp`) and the Bitcoin wiki page "Base58Check encoding".

// MARK: - Errors

/// Every way Base58 or Base58Check text can fail to decode.
///
/// Cases carry facts; the sentence is written once, in `description`. None of the cases holds
/// decoded bytes or checksums, because the same decoder reads WIF private keys (docs/habits.md §4).
public enum Base58Error: WalletError, Equatable {
    /// A character outside the Base58 alphabet, at 1-based `position` (counted in Unicode scalars).
    case invalidCharacter(character: Character, position: Int)
    /// Base58Check data shorter than its 4-byte checksum; `length` is the decoded byte count.
    case tooShort(length: Int)
    /// The last 4 bytes are not the first 4 bytes of SHA-256(SHA-256(payload)).
    case checksumMismatch

    /// Stable identifier of the case, for tests and for callers that branch on the kind.
    public var id: String {
        switch self {
        case .invalidCharacter: "base58.invalidCharacter"
        case .tooShort: "base58check.tooShort"
        case .checksumMismatch: "base58check.checksumMismatch"
        }
    }

    /// One sentence naming what was expected and what was given.
    public var description: String {
        switch self {
        case .invalidCharacter(let character, let position):
            "Base58 text must use only the digits 1-9 and the letters A-Z, a-z except I, O and l;"
                + " got \(EncodingText.quote(character)) at position \(position)"
        case .tooShort(let length):
            "Base58Check data must be at least 4 bytes (the checksum), got \(length) byte\(length == 1 ? "" : "s")"
        case .checksumMismatch:
            "Base58Check checksum must equal the first 4 bytes of the payload's double SHA-256, got other bytes"
                + " (a character is probably mistyped)"
        }
    }
}

// MARK: - Base58

/// Base58: big-endian base-58 digits over the alphabet that drops `0`, `O`, `I` and `l`
/// (characters easily confused on paper). Each leading zero byte is written as one `1`,
/// so the encoding keeps the length of the data, not just its numeric value.
public enum Base58 {
    /// Bitcoin's alphabet, in digit order.
    public static let alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

    /// Encodes `bytes`. Never fails; the empty input encodes as the empty string.
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var ascii = encodeASCII(Array(bytes))
        defer { Secret.wipe(&ascii) }
        return String(decoding: ascii, as: UTF8.self)
    }

    /// Decodes `text`. Each leading `1` becomes one zero byte; the empty string decodes to no
    /// bytes. Throws `.invalidCharacter` for the first character outside the alphabet
    /// (including white space), naming its 1-based position.
    public static func decode(_ text: String) throws(Base58Error) -> [UInt8] {
        var digits = [UInt8]()
        digits.reserveCapacity(text.utf8.count)
        defer { Secret.wipe(&digits) }
        for (index, scalar) in text.unicodeScalars.enumerated() {
            guard scalar.isASCII, let digit = digitValues[Int(scalar.value)] else {
                throw .invalidCharacter(character: Character(scalar), position: index + 1)
            }
            digits.append(digit)
        }
        return decodeDigits(digits)
    }

    // MARK: Internals shared with Base58Check and WIF

    /// The value of each ASCII character as a Base58 digit, or nil.
    private static let digitValues: [UInt8?] = {
        var table = [UInt8?](repeating: nil, count: 128)
        for (value, byte) in alphabet.utf8.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    /// Encodes to ASCII bytes so that callers holding secrets (WIF) can wipe the result.
    /// Scratch buffers are wiped before returning.
    static func encodeASCII(_ bytes: [UInt8]) -> [UInt8] {
        let zeros = bytes.prefix { $0 == 0 }.count
        // log(256) / log(58) ≈ 1.366, so this many base-58 digits always suffice.
        var digits = [UInt8](repeating: 0, count: (bytes.count - zeros) * 138 / 100 + 1)
        defer { Secret.wipe(&digits) }
        var used = 0  // digits in use, least significant first
        for byte in bytes[zeros...] {
            var carry = Int(byte)
            var i = 0
            while i < used || carry != 0 {
                carry += 256 * Int(digits[i])
                digits[i] = UInt8(carry % 58)
                carry /= 58
                i += 1
            }
            used = i
        }
        let table = Array(alphabet.utf8)
        var out = [UInt8](repeating: table[0], count: zeros)
        out.reserveCapacity(zeros + used)
        for i in stride(from: used - 1, through: 0, by: -1) { out.append(table[Int(digits[i])]) }
        return out
    }

    /// Converts validated digit values (0…57, most significant first) to bytes.
    private static func decodeDigits(_ digits: [UInt8]) -> [UInt8] {
        let ones = digits.prefix { $0 == 0 }.count
        // log(58) / log(256) ≈ 0.733.
        var bytes = [UInt8](repeating: 0, count: (digits.count - ones) * 733 / 1000 + 1)
        defer { Secret.wipe(&bytes) }
        var used = 0  // bytes in use, least significant first
        for digit in digits[ones...] {
            var carry = Int(digit)
            var i = 0
            while i < used || carry != 0 {
                carry += 58 * Int(bytes[i])
                bytes[i] = UInt8(carry & 0xff)
                carry >>= 8
                i += 1
            }
            used = i
        }
        var out = [UInt8](repeating: 0, count: ones)
        out.reserveCapacity(ones + used)
        for i in stride(from: used - 1, through: 0, by: -1) { out.append(bytes[i]) }
        return out
    }
}

// MARK: - Base58Check

/// Base58Check: Base58 of `payload ‖ checksum`, where the checksum is the first 4 bytes of
/// SHA-256(SHA-256(payload)). The payload usually starts with a version byte (addresses, WIF)
/// or four (BIP-32 extended keys); this layer does not interpret it.
public enum Base58Check {
    /// Length of the appended checksum, in bytes.
    public static let checksumLength = 4

    /// Encodes `payload` with its checksum appended.
    public static func encode(_ payload: [UInt8]) -> String {
        var ascii = encodeASCII(payload)
        defer { Secret.wipe(&ascii) }
        return String(decoding: ascii, as: UTF8.self)
    }

    /// Decodes `text` and returns the payload without the checksum.
    ///
    /// Throws `.invalidCharacter` (text is not Base58), `.tooShort` (fewer than 4 bytes
    /// decoded) or `.checksumMismatch`. The empty string is `.tooShort`, not an empty payload.
    public static func decode(_ text: String) throws(Base58Error) -> [UInt8] {
        var data = try Base58.decode(text)
        defer { Secret.wipe(&data) }
        guard data.count >= checksumLength else { throw .tooShort(length: data.count) }
        let split = data.count - checksumLength
        var payload = Array(data[..<split])
        guard ConstantTime.equal(Hash.sha256d(payload).prefix(checksumLength), data[split...]) else {
            Secret.wipe(&payload)
            throw .checksumMismatch
        }
        return payload
    }

    /// Encodes to ASCII bytes (for WIF, whose text is a secret and must be wiped).
    static func encodeASCII(_ payload: [UInt8]) -> [UInt8] {
        var data = payload + Hash.sha256d(payload).prefix(checksumLength)
        defer { Secret.wipe(&data) }
        return Base58.encodeASCII(data)
    }
}

// MARK: - Shared message helpers

/// How the encoding errors in this folder show a character inside a message: printable ASCII
/// in quotes (`'0'`), other visible characters in quotes with their code point (`'é' (U+00E9)`),
/// white space and control characters by code point only (`U+0020`), so that nothing invisible
/// or look-alike hides in the message.
enum EncodingText {
    static func quote(_ c: Character) -> String {
        let scalars = c.unicodeScalars
        let code = scalars.map { scalar in
            let digits = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }.joined(separator: " ")
        if scalars.allSatisfy({ (0x21...0x7e).contains($0.value) }) { return "'\(c)'" }
        if c.isWhitespace || scalars.contains(where: { $0.properties.generalCategory == .control }) { return code }
        return "'\(c)' (\(code))"
    }

    /// `count` followed by `noun`, with an `s` unless the count is 1.
    static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
