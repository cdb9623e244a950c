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

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

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

    /// The sampler of a part's degree for `sequenceLength` fragments: d with probability ∝ 1/d.
    public static func degreeSampler(sequenceLength: Int) -> RandomSampler {
        RandomSampler((1...sequenceLength).map { 1 / Double($0) })
    }

    /// How many fragments a part mixes: degree d with probability ∝ 1/d.
    public static func degree(sequenceLength: Int, random: inout Xoshiro256) -> Int {
        degreeSampler(sequenceLength: sequenceLength).next { random.nextDouble() } + 1
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
    /// `sampler` is `degreeSampler(sequenceLength:)`, made once by a caller that maps many parts.
    public static func fragments(
        sequenceNumber: UInt32, sequenceLength: Int, checksum: UInt32,
        sampler: RandomSampler? = nil
    ) -> Set<Int> {
        fragments(
            sequenceNumber: sequenceNumber, sequenceLength: sequenceLength, checksum: checksum, sampler: sampler,
            maximumDegree: .max)!
    }

    /// The same, or nil (without drawing them) when the part mixes more than `maximumDegree` fragments.
    public static func fragments(
        sequenceNumber: UInt32, sequenceLength: Int, checksum: UInt32, sampler: RandomSampler?,
        maximumDegree: Int
    ) -> Set<Int>? {
        if UInt64(sequenceNumber) <= UInt64(sequenceLength) { return [Int(sequenceNumber) - 1] }
        var random = Xoshiro256(seed: Xoshiro256.bigEndian(sequenceNumber) + Xoshiro256.bigEndian(checksum))
        let degree = (sampler ?? degreeSampler(sequenceLength: sequenceLength)).next { random.nextDouble() } + 1
        guard degree <= maximumDegree else { return nil }
        return Set(firstOfShuffle(sequenceLength, random: &random, count: degree))
    }

    /// The first `count` items of `shuffled(Array(0..<n), …)`, drawing the same numbers, without
    /// building the array when `count` is small: the k-th remaining index is found by stepping
    /// over the ones already taken (kept sorted), O(count²) instead of O(n) per part.
    static func firstOfShuffle(_ n: Int, random: inout Xoshiro256, count: Int) -> [Int] {
        guard count * count < n else { return shuffled(Array(0..<n), random: &random, count: count) }
        var taken: [Int] = [], result: [Int] = []
        result.reserveCapacity(count)
        while result.count < count {
            var value = random.nextInt(in: 0...(n - result.count - 1))
            var position = 0
            while position < taken.count, taken[position] <= value {
                value += 1
                position += 1
            }
            taken.insert(value, at: position)
            result.append(value)
        }
        return result
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
        .array([
            .unsigned(UInt64(sequenceNumber)), .unsigned(UInt64(sequenceLength)), .unsigned(UInt64(messageLength)),
            .unsigned(UInt64(checksum)), .bytes(data),
        ])
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
            case .unsigned(let n) = fields[0], case .unsigned(let len) = fields[1],
            case .unsigned(let size) = fields[2],
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
        self.init(
            sequenceNumber: UInt32(n), sequenceLength: Int(len), messageLength: Int(size), checksum: UInt32(sum),
            data: data)
    }
}

/// Splits a message into fountain parts: the fragments in order, then mixed parts without end.
public struct FountainEncoder: Sendable {
    public let messageLength: Int
    public let checksum: UInt32
    public let fragmentLength: Int
    private let fragments: [[UInt8]]
    /// The degree sampler of this sequence length, made once.
    private let sampler: RandomSampler
    /// The number of the last part made (the next is one more, wrapping at 2³²).
    public private(set) var sequenceNumber: UInt32

    public init(message: [UInt8], maxFragmentLength: Int, minFragmentLength: Int = 10, firstSequenceNumber: UInt32 = 0)
    {
        precondition(!message.isEmpty)
        messageLength = message.count
        checksum = CRC32.checksum(message)
        fragmentLength = FountainCode.fragmentLength(
            messageLength: message.count, minFragmentLength: minFragmentLength,
            maxFragmentLength: maxFragmentLength)
        fragments = FountainCode.partition(message, fragmentLength: fragmentLength)
        sampler = FountainCode.degreeSampler(sequenceLength: fragments.count)
        sequenceNumber = firstSequenceNumber
    }

    public var sequenceLength: Int { fragments.count }
    /// True once every fragment has been sent in order at least once.
    public var isComplete: Bool { UInt64(sequenceNumber) >= UInt64(sequenceLength) }

    public mutating func nextPart() -> FountainPart {
        sequenceNumber &+= 1
        let indexes = FountainCode.fragments(
            sequenceNumber: sequenceNumber, sequenceLength: sequenceLength, checksum: checksum,
            sampler: sampler)
        let data = indexes.dropFirst().reduce(fragments[indexes.first!]) { FountainCode.xor($0, fragments[$1]) }
        return FountainPart(
            sequenceNumber: sequenceNumber, sequenceLength: sequenceLength, messageLength: messageLength,
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
    /// The degree sampler of the expected sequence length, made once.
    private var sampler: RandomSampler?
    private var fragments: [Int: [UInt8]] = [:]
    /// The held mixes by id, the id of each by its fragments, and the ids of the mixes that
    /// contain each fragment: a reduction looks only at the mixes that share a fragment with a
    /// part, never at all of them (docs/ur.md, "Bounds").
    private var mixes: [Int: Mix] = [:]
    private var mixID: [Set<Int>: Int] = [:]
    private var containing: [Int: Set<Int>] = [:]
    private var nextID = 0
    private var seenParts = Set<UInt32>()
    /// The message once every fragment is known and its checksum matches.
    public private(set) var message: [UInt8]?
    /// Parts given so far, repeats included.
    public private(set) var partsRead = 0

    public init() {}

    public var sequenceLength: Int? { expected?.sequenceLength }
    /// Fragments recovered so far.
    public var fragmentsKnown: Int { fragments.count }

    /// The most distinct parts one message takes: a fountain decoder needs a little more than
    /// the sequence length; past four times that (and a margin) the sender is not helping.
    public static func maximumParts(sequenceLength: Int) -> Int { 4 * sequenceLength + 1_000 }

    /// Mixed parts of a higher degree are not used (they are drawn with probability ∝ 1/d, so
    /// most are below it; a decoder needs only enough parts, not any given one): every part then
    /// costs at most this many fragment look-ups, whatever the sender chose.
    public static let maximumMixDegree = 64

    private mutating func hold(_ mix: Mix) {
        let id = nextID
        nextID += 1
        mixes[id] = mix
        mixID[mix.indexes] = id
        for i in mix.indexes { containing[i, default: []].insert(id) }
    }

    private mutating func drop(_ id: Int) -> Mix? {
        guard let mix = mixes.removeValue(forKey: id) else { return nil }
        mixID[mix.indexes] = nil
        for i in mix.indexes { containing[i]?.remove(id) }
        return mix
    }

    /// Takes one part. A part of another message is reported, not used.
    /// - Throws: `URError.messageChecksum` when the fragments are all in and the message is wrong;
    ///   `URError.invalidPart` past `maximumParts` distinct parts without a message.
    @discardableResult
    public mutating func receive(_ part: FountainPart) throws(URError) -> Received {
        partsRead += 1
        if let e = expected {
            guard e.sequenceLength == part.sequenceLength, e.messageLength == part.messageLength,
                e.checksum == part.checksum,
                e.fragmentLength == part.data.count
            else { return .otherMessage }
        } else {
            expected = (part.sequenceLength, part.messageLength, part.checksum, part.data.count)
        }
        guard message == nil, !seenParts.contains(part.sequenceNumber) else { return .duplicate }
        guard seenParts.count < Self.maximumParts(sequenceLength: part.sequenceLength) else {
            throw .invalidPart(
                "more than \(Self.maximumParts(sequenceLength: part.sequenceLength)) distinct parts for a message"
                    + " of \(part.sequenceLength) fragments, and it is still incomplete: these parts do not make one message"
            )
        }
        seenParts.insert(part.sequenceNumber)
        if UInt64(part.sequenceNumber) > UInt64(part.sequenceLength), sampler == nil {
            sampler = FountainCode.degreeSampler(sequenceLength: part.sequenceLength)
        }
        guard
            let indexes = FountainCode.fragments(
                sequenceNumber: part.sequenceNumber, sequenceLength: part.sequenceLength,
                checksum: part.checksum, sampler: sampler, maximumDegree: Self.maximumMixDegree)
        else { return .duplicate }
        var queue = [Mix(indexes: indexes, data: part.data)]
        var new = false
        while let item = queue.popLast() {
            var mix = item
            // Known fragments leave the mix (one stays: the mix may be that fragment again).
            for i in item.indexes where mix.indexes.count > 1 {
                if let data = fragments[i] {
                    mix.indexes.remove(i)
                    mix.data = FountainCode.xor(mix.data, data)
                }
            }
            // Held mixes inside this one leave it: a mix is inside when all its fragments are
            // among this one's, counted through the fragments they share.
            var shared: [Int: Int] = [:]
            for i in mix.indexes { for id in containing[i] ?? [] { shared[id, default: 0] += 1 } }
            for (id, count) in shared.sorted(by: { $0.key < $1.key }) {
                guard let other = mixes[id], count == other.indexes.count, other.indexes.count < mix.indexes.count,
                    other.indexes.isStrictSubset(of: mix.indexes)
                else { continue }
                mix.indexes.subtract(other.indexes)
                mix.data = FountainCode.xor(mix.data, other.data)
            }
            if mix.indexes.count == 1 {
                let i = mix.indexes.first!
                guard fragments[i] == nil else { continue }
                fragments[i] = mix.data
                new = true
                // Every held mix that contains this fragment loses it; those left with one become fragments.
                for id in containing[i] ?? [] {
                    guard let other = drop(id) else { continue }
                    queue.append(
                        Mix(indexes: other.indexes.subtracting([i]), data: FountainCode.xor(other.data, mix.data)))
                }
            } else if let first = mix.indexes.first, mixID[mix.indexes] == nil,
                mixes.count < 4 * part.sequenceLength + 64
            {
                // The new mix reduces the held mixes it is a strict part of (each contains its first fragment).
                for id in containing[first] ?? [] {
                    guard let other = mixes[id], mix.indexes.isStrictSubset(of: other.indexes), let held = drop(id)
                    else { continue }
                    queue.append(
                        Mix(indexes: held.indexes.subtracting(mix.indexes), data: FountainCode.xor(held.data, mix.data))
                    )
                }
                hold(mix)
                new = true
            }
        }
        if fragments.count == part.sequenceLength {
            let joined = (0..<part.sequenceLength).flatMap { fragments[$0]! }.prefix(part.messageLength)
            guard CRC32.checksum(joined) == part.checksum else { throw .messageChecksum }
            message = Array(joined)
            mixes = [:]
            mixID = [:]
            containing = [:]
        }
        return new ? .accepted : .duplicate
    }
}
