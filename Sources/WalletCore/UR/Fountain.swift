import WalletCrypto

// The fountain code of multi-part Uniform Resources (BCR-2024-001; docs/ur.md §4): fragments, a
// Xoshiro256** generator seeded per part, an alias-method sampler for the degree, a partial
// shuffle for the fragments, XOR mixing, and a decoder that reduces mixed parts by the parts it
// knows. Every step must match the reference bit for bit, or another wallet reads other fragments.

/// Xoshiro256** seeded from the SHA-256 of a seed, its state read as four big-endian words.
public struct Xoshiro256: Sendable {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: [UInt8]) {
        let h = Hash.sha256(seed)
        func word(_ i: Int) -> UInt64 { h[8 * i..<8 * i + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        s = (word(0), word(1), word(2), word(3))
    }

    /// Seeded from the UTF-8 bytes of `string`.
    public init(string: String) { self.init(seed: Array(string.utf8)) }

    /// Seeded from a CRC-32 as 4 big-endian bytes.
    public init(crc32: UInt32) { self.init(seed: Self.bigEndian(crc32)) }

    static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    private static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { x << k | x >> (64 - k) }

    public mutating func next() -> UInt64 {
        let result = Self.rotl(s.1 &* 5, 7) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = Self.rotl(s.3, 45)
        return result
    }

    /// In [0, 1): the next word over 2⁶⁴ (the word rounded to the nearest double, as C converts it).
    public mutating func nextDouble() -> Double { Double(next()) / (Double(UInt64.max) + 1) }

    /// In `range`.
    public mutating func nextInt(in range: ClosedRange<Int>) -> Int {
        Int(nextDouble() * Double(range.upperBound - range.lowerBound + 1)) + range.lowerBound
    }

    /// `count` bytes, each `nextInt(in: 0...255)`.
    public mutating func nextData(count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(nextInt(in: 0...255)) } }
}

/// Walker's alias method as the reference writes it (the small and large lists filled in
/// reverse index order).
public struct RandomSampler: Sendable {
    private let probabilities: [Double]
    private let aliases: [Int]

    public init(_ weights: [Double]) {
        precondition(!weights.isEmpty && weights.allSatisfy { $0 >= 0 })
        let n = weights.count, total = weights.reduce(0, +)
        var p = weights.map { $0 * Double(n) / total }
        var small: [Int] = [], large: [Int] = []
        for i in stride(from: n - 1, through: 0, by: -1) {
            if p[i] < 1 { small.append(i) } else { large.append(i) }
        }
        var probabilities = [Double](repeating: 0, count: n), aliases = [Int](repeating: 0, count: n)
        while let a = small.popLast() {
            guard let g = large.popLast() else {
                small.append(a)
                break
            }
            probabilities[a] = p[a]
            aliases[a] = g
            p[g] = (p[g] + p[a]) - 1
            if p[g] < 1 { small.append(g) } else { large.append(g) }
        }
        while let g = large.popLast() { probabilities[g] = 1 }
        while let a = small.popLast() { probabilities[a] = 1 }
        self.probabilities = probabilities
        self.aliases = aliases
    }

    /// An index drawn with two numbers from `random`.
    public func next(_ random: () -> Double) -> Int {
        let r1 = random(), r2 = random()
        let i = Int(Double(probabilities.count) * r1)
        return r2 < probabilities[i] ? i : aliases[i]
    }
}

/// The fragment choice of the fountain code.
public enum FountainCode {
    /// The smallest fragment length at most `maxFragmentLength` that splits the message into
    /// equal fragments, trying 1, 2, … fragments while each stays at least `minFragmentLength`.
    public static func fragmentLength(messageLength: Int, minFragmentLength: Int, maxFragmentLength: Int) -> Int {
        precondition(messageLength > 0 && minFragmentLength > 0 && maxFragmentLength >= minFragmentLength)
        var length = messageLength
        for count in 1...max(1, messageLength / minFragmentLength) {
            length = (messageLength + count - 1) / count
            if length <= maxFragmentLength { break }
        }
        return length
    }

    /// The message in fragments of `fragmentLength`, the last padded with zeros.
    public static func partition(_ message: [UInt8], fragmentLength: Int) -> [[UInt8]] {
        stride(from: 0, to: message.count, by: fragmentLength).map { start in
            let chunk = Array(message[start..<min(message.count, start + fragmentLength)])
            return chunk + [UInt8](repeating: 0, count: fragmentLength - chunk.count)
        }
    }

    /// How many fragments a part mixes: degree d with probability ∝ 1/d.
    public static func degree(sequenceLength: Int, random: inout Xoshiro256) -> Int {
        let sampler = RandomSampler((1...sequenceLength).map { 1 / Double($0) })
        return sampler.next { random.nextDouble() } + 1
    }

    /// The first `count` items of a Fisher–Yates shuffle drawn from `random`.
    public static func shuffled<T>(_ items: [T], random: inout Xoshiro256, count: Int) -> [T] {
        var remaining = items, result: [T] = []
        result.reserveCapacity(count)
        while result.count < count {
            result.append(remaining.remove(at: random.nextInt(in: 0...(remaining.count - 1))))
        }
        return result
    }

    /// The fragment indexes of part `sequenceNumber` (from 1): the first `sequenceLength` parts
    /// are the fragments in order; later ones mix fragments chosen with a generator seeded from
    /// the part's number and the message's checksum.
    public static func fragments(sequenceNumber: UInt32, sequenceLength: Int, checksum: UInt32) -> Set<Int> {
        if UInt64(sequenceNumber) <= UInt64(sequenceLength) { return [Int(sequenceNumber) - 1] }
        var random = Xoshiro256(seed: Xoshiro256.bigEndian(sequenceNumber) + Xoshiro256.bigEndian(checksum))
        let degree = degree(sequenceLength: sequenceLength, random: &random)
        return Set(shuffled(Array(0..<sequenceLength), random: &random, count: degree))
    }

    /// `a` XOR `b` (equal lengths).
    static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] { zip(a, b).map { $0 ^ $1 } }
}

/// One part of a fountain-coded message: CBOR `[seqNum, seqLen, messageLen, checksum, data]`.
public struct FountainPart: Sendable, Equatable {
    public let sequenceNumber: UInt32
    public let sequenceLength: Int
    public let messageLength: Int
    public let checksum: UInt32
    public let data: [UInt8]

    public init(sequenceNumber: UInt32, sequenceLength: Int, messageLength: Int, checksum: UInt32, data: [UInt8]) {
        self.sequenceNumber = sequenceNumber
        self.sequenceLength = sequenceLength
        self.messageLength = messageLength
        self.checksum = checksum
        self.data = data
    }

    public var cbor: CBOR {
        .array([.unsigned(UInt64(sequenceNumber)), .unsigned(UInt64(sequenceLength)), .unsigned(UInt64(messageLength)),
                .unsigned(UInt64(checksum)), .bytes(data)])
    }

    /// Bounds on what a part may announce, checked before anything is allocated for it.
    public static let maximumSequenceLength = 10_000
    public static let maximumMessageLength = 1 << 20

    /// A part read from its CBOR, within the bounds above and self-consistent (the sequence
    /// length is the message length in fragments of this part's length).
    public init(cbor bytes: [UInt8]) throws(URError) {
        let item: CBOR
        do { item = try CBOR(decoding: bytes) } catch { throw .cbor(error) }
        guard case .array(let fields) = item, fields.count == 5,
              case .unsigned(let n) = fields[0], case .unsigned(let len) = fields[1], case .unsigned(let size) = fields[2],
              case .unsigned(let sum) = fields[3], case .bytes(let data) = fields[4]
        else { throw .invalidPart("expected [seqNum, seqLen, messageLen, checksum, data]") }
        guard (1...UInt64(UInt32.max)).contains(n) else { throw .invalidPart("sequence number \(n)") }
        guard (1...UInt64(Self.maximumSequenceLength)).contains(len) else {
            throw .invalidPart("\(len) parts (at most \(Self.maximumSequenceLength))")
        }
        guard (1...UInt64(Self.maximumMessageLength)).contains(size) else {
            throw .invalidPart("a message of \(size) bytes (at most \(Self.maximumMessageLength))")
        }
        guard sum <= UInt64(UInt32.max) else { throw .invalidPart("checksum \(sum)") }
        guard !data.isEmpty, (Int(size) + data.count - 1) / data.count == Int(len) else {
            throw .invalidPart("\(len) parts of \(data.count) bytes cannot hold \(size) bytes")
        }
        self.init(sequenceNumber: UInt32(n), sequenceLength: Int(len), messageLength: Int(size), checksum: UInt32(sum), data: data)
    }
}

/// Splits a message into fountain parts: the fragments in order, then mixed parts without end.
public struct FountainEncoder: Sendable {
    public let messageLength: Int
    public let checksum: UInt32
    public let fragmentLength: Int
    private let fragments: [[UInt8]]
    /// The number of the last part made (the next is one more, wrapping at 2³²).
    public private(set) var sequenceNumber: UInt32

    public init(message: [UInt8], maxFragmentLength: Int, minFragmentLength: Int = 10, firstSequenceNumber: UInt32 = 0) {
        precondition(!message.isEmpty)
        messageLength = message.count
        checksum = CRC32.checksum(message)
        fragmentLength = FountainCode.fragmentLength(messageLength: message.count, minFragmentLength: minFragmentLength,
                                                     maxFragmentLength: maxFragmentLength)
        fragments = FountainCode.partition(message, fragmentLength: fragmentLength)
        sequenceNumber = firstSequenceNumber
    }

    public var sequenceLength: Int { fragments.count }
    /// True once every fragment has been sent in order at least once.
    public var isComplete: Bool { UInt64(sequenceNumber) >= UInt64(sequenceLength) }

    public mutating func nextPart() -> FountainPart {
        sequenceNumber &+= 1
        let indexes = FountainCode.fragments(sequenceNumber: sequenceNumber, sequenceLength: sequenceLength, checksum: checksum)
        let data = indexes.dropFirst().reduce(fragments[indexes.first!]) { FountainCode.xor($0, fragments[$1]) }
        return FountainPart(sequenceNumber: sequenceNumber, sequenceLength: sequenceLength, messageLength: messageLength,
                            checksum: checksum, data: data)
    }
}

/// Rebuilds a message from fountain parts received in any order, with repeats.
public struct FountainDecoder: Sendable {
    /// What happened to one part.
    public enum Received: Sendable, Equatable {
        /// It brought something new (or was reduced away to nothing new).
        case accepted
        /// Its fragments were already known or the same mix was already held.
        case duplicate
        /// It belongs to another message (checksum, length or count differ): not used.
        case otherMessage
    }

    private struct Mix {
        var indexes: Set<Int>
        var data: [UInt8]
    }

    private var expected: (sequenceLength: Int, messageLength: Int, checksum: UInt32, fragmentLength: Int)?
    private var fragments: [Int: [UInt8]] = [:]
    private var mixed: [Set<Int>: [UInt8]] = [:]
    private var seenParts = Set<UInt32>()
    /// The message once every fragment is known and its checksum matches.
    public private(set) var message: [UInt8]?
    /// Parts given so far, repeats included.
    public private(set) var partsRead = 0

    public init() {}

    public var sequenceLength: Int? { expected?.sequenceLength }
    /// Fragments recovered so far.
    public var fragmentsKnown: Int { fragments.count }

    /// Takes one part. A part of another message is reported, not used.
    /// - Throws: `URError.messageChecksum` when the fragments are all in and the message is wrong.
    @discardableResult
    public mutating func receive(_ part: FountainPart) throws(URError) -> Received {
        partsRead += 1
        if let e = expected {
            guard e.sequenceLength == part.sequenceLength, e.messageLength == part.messageLength, e.checksum == part.checksum,
                  e.fragmentLength == part.data.count else { return .otherMessage }
        } else {
            expected = (part.sequenceLength, part.messageLength, part.checksum, part.data.count)
        }
        guard message == nil, seenParts.insert(part.sequenceNumber).inserted else { return .duplicate }
        let indexes = FountainCode.fragments(sequenceNumber: part.sequenceNumber, sequenceLength: part.sequenceLength,
                                             checksum: part.checksum)
        var queue = [Mix(indexes: indexes, data: part.data)]
        var new = false
        while let item = queue.popLast() {
            var mix = item
            for (i, data) in fragments where mix.indexes.contains(i) && mix.indexes.count > 1 {
                mix.indexes.remove(i)
                mix.data = FountainCode.xor(mix.data, data)
            }
            for (other, data) in mixed where other.isStrictSubset(of: mix.indexes) {
                mix.indexes.subtract(other)
                mix.data = FountainCode.xor(mix.data, data)
            }
            if mix.indexes.count == 1 {
                let i = mix.indexes.first!
                guard fragments[i] == nil else { continue }
                fragments[i] = mix.data
                new = true
                // Every held mix that contains this fragment loses it; those left with one become fragments.
                for (other, data) in mixed where other.contains(i) {
                    mixed[other] = nil
                    queue.append(Mix(indexes: other.subtracting([i]), data: FountainCode.xor(data, mix.data)))
                }
            } else if mixed[mix.indexes] == nil, !mix.indexes.isEmpty,
                      mixed.count < 4 * part.sequenceLength + 64 {
                // The new mix reduces the held mixes it is a strict part of.
                for (other, data) in mixed where mix.indexes.isStrictSubset(of: other) {
                    mixed[other] = nil
                    queue.append(Mix(indexes: other.subtracting(mix.indexes), data: FountainCode.xor(data, mix.data)))
                }
                mixed[mix.indexes] = mix.data
                new = true
            }
        }
        if fragments.count == part.sequenceLength {
            let joined = (0..<part.sequenceLength).flatMap { fragments[$0]! }.prefix(part.messageLength)
            guard CRC32.checksum(joined) == part.checksum else { throw .messageChecksum }
            message = Array(joined)
            mixed = [:]
        }
        return new ? .accepted : .duplicate
    }
}
