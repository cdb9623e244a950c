/// Hexadecimal text ↔ bytes. Accepts an optional `0x`/`0X` prefix and either case;
/// rejects an odd number of digits and names the first non-hex character by position.
public enum Hex {
    /// Decodes `text`. Positions in errors are 1-based and count the prefix, so they
    /// point at the character the user typed.
    public static func decode(_ text: String) throws(WalletCryptoError) -> [UInt8] {
        var utf8 = Substring(text).utf8[...]
        var offset = 0
        if utf8.count >= 2, utf8.first == UInt8(ascii: "0"),
            let x = utf8.dropFirst().first, x == UInt8(ascii: "x") || x == UInt8(ascii: "X")
        {
            utf8 = utf8.dropFirst(2)
            offset = 2
        }
        // Check characters first so that "0xzz1" reports the bad character, not the length.
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var high: UInt8 = 0
        var index = 0
        for byte in utf8 {
            guard let nibble = nibble(byte) else {
                throw .hexInvalidCharacter(
                    character: character(in: text, utf8Offset: offset + index),
                    position: characterPosition(in: text, utf8Offset: offset + index))
            }
            if index & 1 == 0 { high = nibble } else { out.append(high << 4 | nibble) }
            index += 1
        }
        guard index & 1 == 0 else { throw .hexOddLength(digits: index) }
        return out
    }

    /// Lower-case hex without a prefix.
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Lower-case hex with a `0x` prefix.
    public static func encodePrefixed<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        "0x" + encode(bytes)
    }

    @inline(__always)
    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }

    private static func character(in text: String, utf8Offset: Int) -> Character {
        let i = text.utf8.index(text.utf8.startIndex, offsetBy: utf8Offset)
        let scalarIndex = i.samePosition(in: text.unicodeScalars) ?? text.unicodeScalars.index(before: i)
        return Character(text.unicodeScalars[scalarIndex])
    }

    private static func characterPosition(in text: String, utf8Offset: Int) -> Int {
        let i = text.utf8.index(text.utf8.startIndex, offsetBy: utf8Offset)
        return text.unicodeScalars[..<i].count + 1
    }
}

extension Array where Element == UInt8 {
    /// Parses hex (see `Hex.decode`).
    public init(hex: String) throws(WalletCryptoError) { self = try Hex.decode(hex) }
    /// Lower-case hex, no prefix.
    public var hex: String { Hex.encode(self) }
}
