/// The card metadata Status wallets keep in the public data slot (GET DATA / STORE DATA
/// P1 `00`, docs/keycard-protocol.md §10.12): a card name and the indexes of the wallet accounts in
/// use. Layout (keycard-go `types/metadata.go`, Keycard.swift; vectors in keycard.json
/// `metadata`): byte 0 = version 1 << 5 | name length (≤ 31), the UTF-8 name, then
/// (start, count) pairs, each number in TLV length encoding, covering start…start+count.
public struct CardMetadata: Sendable, Equatable, CustomStringConvertible {
    /// The format version this type reads and writes.
    public static let version: UInt8 = 1

    /// The card's name (at most 31 UTF-8 bytes).
    public let name: String
    /// Account indexes in use, ascending and without duplicates.
    public let walletIndexes: [UInt32]

    /// Metadata from parts; the indexes are sorted and deduplicated.
    ///
    /// - Throws: `CardError.invalidInput` when the name is longer than 31 UTF-8 bytes.
    public init(name: String, walletIndexes: [UInt32]) throws(CardError) {
        guard name.utf8.count <= 31 else {
            throw .invalidInput(
                command: .storeData,
                reason: "the card name must be at most 31 UTF-8 bytes, got \(name.utf8.count)")
        }
        self.name = name
        self.walletIndexes = Array(Set(walletIndexes)).sorted()
    }

    /// Parses the public data bytes.
    ///
    /// - Throws: `CardError.malformedResponse(command: .getData, …)` for another version, a
    ///   truncated name or range, or a name that is not UTF-8.
    public init(bytes: [UInt8]) throws(CardError) {
        guard let first = bytes.first else { throw Self.malformed("the data is empty") }
        guard first >> 5 == Self.version else { throw Self.malformed("metadata version \(first >> 5) is not 1") }
        let nameLength = Int(first & 0x1f)
        guard bytes.count >= 1 + nameLength else { throw Self.malformed("the name runs past the end") }
        guard let name = String(validating: bytes[1..<(1 + nameLength)], as: UTF8.self) else {
            throw Self.malformed("the name is not UTF-8")
        }
        var indexes = [UInt32]()
        var i = 1 + nameLength
        while i < bytes.count {
            let start = try Self.number(bytes, at: &i)
            let count = try Self.number(bytes, at: &i)
            guard UInt64(start) + UInt64(count) <= UInt64(UInt32.max) else { throw Self.malformed("a range overflows") }
            indexes += (start...(start + count)).map { $0 }
        }
        try self.init(name: name, walletIndexes: indexes)
    }

    /// The bytes to store: consecutive indexes collapse into (start, count) ranges.
    public var bytes: [UInt8] {
        var out = [Self.version << 5 | UInt8(name.utf8.count)] + Array(name.utf8)
        var i = 0
        while i < walletIndexes.count {
            var j = i
            while j + 1 < walletIndexes.count, walletIndexes[j + 1] == walletIndexes[j] + 1 { j += 1 }
            out += Self.encode(walletIndexes[i]) + Self.encode(UInt32(j - i))
            i = j + 1
        }
        return out
    }

    /// `"My card", account indexes 0, 4–7`.
    public var description: String {
        var ranges = [String]()
        var i = 0
        while i < walletIndexes.count {
            var j = i
            while j + 1 < walletIndexes.count, walletIndexes[j + 1] == walletIndexes[j] + 1 { j += 1 }
            ranges.append(i == j ? "\(walletIndexes[i])" : "\(walletIndexes[i])–\(walletIndexes[j])")
            i = j + 1
        }
        return "\"\(name)\", account indexes " + (ranges.isEmpty ? "none" : ranges.joined(separator: ", "))
    }

    private static func encode(_ n: UInt32) -> [UInt8] {
        if n < 0x80 { return [UInt8(n)] }
        if n <= 0xff { return [0x81, UInt8(n)] }
        if n <= 0xffff { return [0x82, UInt8(n >> 8), UInt8(n & 0xff)] }
        return [0x84, UInt8(n >> 24), UInt8((n >> 16) & 0xff), UInt8((n >> 8) & 0xff), UInt8(n & 0xff)]
    }

    private static func number(_ bytes: [UInt8], at i: inout Int) throws(CardError) -> UInt32 {
        guard i < bytes.count else { throw malformed("a range is truncated") }
        let first = bytes[i]
        i += 1
        if first < 0x80 { return UInt32(first) }
        let n = Int(first & 0x7f)
        guard (1...4).contains(n), i + n <= bytes.count else {
            throw malformed("a range number is truncated or too long")
        }
        var value: UInt32 = 0
        for _ in 0..<n {
            value = value << 8 | UInt32(bytes[i])
            i += 1
        }
        return value
    }

    private static func malformed(_ detail: String) -> CardError {
        .malformedResponse(command: .getData, detail: "card metadata: \(detail)")
    }
}
