// Uniform Resources (BCR-2020-005; docs/ur.md §1): `ur:TYPE/BYTEWORDS` for one part, and
// `ur:TYPE/N-M/BYTEWORDS` for the parts of a fountain-coded message too large for one QR code.
// The bytewords are minimal style; the CBOR at the top is untagged (the type says what it is).

/// A type and its CBOR.
public struct UniformResource: Sendable, Equatable {
    public let type: String
    public let cbor: [UInt8]

    /// - Throws: `URError.invalidType` unless `type` is `[a-z0-9-]+`.
    public init(type: String, cbor: [UInt8]) throws(URError) {
        guard Self.isValidType(type) else { throw .invalidType(type) }
        self.type = type
        self.cbor = cbor
    }

    static func isValidType(_ t: String) -> Bool {
        !t.isEmpty && t.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    /// The single-part text, lower case.
    public var singlePart: String { "ur:\(type)/" + Bytewords.encode(cbor, style: .minimal) }
}

/// Makes the parts of a UR: one part when it fits in `maxFragmentLength` bytes, else the
/// fountain parts `ur:TYPE/N-M/…` without end (the first M are the fragments in order).
public struct UREncoder: Sendable {
    public let resource: UniformResource
    private var fountain: FountainEncoder

    public init(
        _ resource: UniformResource, maxFragmentLength: Int, minFragmentLength: Int = 10,
        firstSequenceNumber: UInt32 = 0
    ) {
        self.resource = resource
        fountain = FountainEncoder(
            message: resource.cbor, maxFragmentLength: maxFragmentLength,
            minFragmentLength: minFragmentLength, firstSequenceNumber: firstSequenceNumber)
    }

    public var isSinglePart: Bool { fountain.sequenceLength == 1 }
    /// The number of fragments (parts needed at the least).
    public var sequenceLength: Int { fountain.sequenceLength }

    public mutating func nextPart() -> String {
        if isSinglePart { return resource.singlePart }
        let part = fountain.nextPart()
        return "ur:\(resource.type)/\(part.sequenceNumber)-\(part.sequenceLength)/"
            + Bytewords.encode(part.cbor.encoded, style: .minimal)
    }
}

/// Reads UR text parts in any order, with repeats, until the resource is complete.
public struct URDecoder: Sendable {
    private var type: String?
    private var fountain = FountainDecoder()
    /// The resource once complete.
    public private(set) var result: UniformResource?

    public init() {}

    /// Progress of a multi-part UR: fragments recovered of how many, and parts read.
    public var progress: (fragments: Int, of: Int, parts: Int)? {
        fountain.sequenceLength.map { (fountain.fragmentsKnown, $0, fountain.partsRead) }
    }

    /// One UR from its parts (any order, repeats).
    /// - Throws: as `receive`, or `invalidPart` when the parts do not complete it.
    public static func decodeParts(_ parts: [String]) throws(URError) -> UniformResource {
        var d = URDecoder()
        for part in parts where d.result == nil { try d.receive(part) }
        guard let r = d.result else {
            let p = d.progress
            throw .invalidPart("the parts are not all there: \(p?.fragments ?? 0) of \(p?.of ?? 0) fragments recovered")
        }
        return r
    }

    /// One UR, single-part or complete in the parts given.
    public static func decode(_ text: String) throws(URError) -> UniformResource {
        var d = URDecoder()
        try d.receive(text)
        guard let r = d.result else { throw .invalidPart("one part of a multi-part UR is not the whole resource") }
        return r
    }

    /// Takes one part (any letter case).
    /// - Throws: for text that is not a UR part, a part of another type or message, a bad
    ///   checksum. Nothing read before is lost by a refused part.
    @discardableResult
    public mutating func receive(_ text: String) throws(URError) -> FountainDecoder.Received {
        let lower = text.lowercased()
        guard lower.hasPrefix("ur:") else { throw .notUR }
        let components = lower.dropFirst(3).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard components.count == 2 || components.count == 3 else { throw .notUR }
        let partType = components[0]
        guard UniformResource.isValidType(partType) else { throw .invalidType(partType) }
        if let type, type != partType { throw .typeMismatch(expected: type, got: partType) }
        if components.count == 2 {
            guard result == nil else { return .duplicate }
            let cbor = try Bytewords.decode(components[1], style: .minimal)
            result = try UniformResource(type: partType, cbor: cbor)
            type = partType
            return .accepted
        }
        let sequence = components[1].split(separator: "-", omittingEmptySubsequences: false)
        guard sequence.count == 2, let n = UInt32(sequence[0]), let m = Int(sequence[1]), n >= 1, m >= 1 else {
            throw .invalidSequence(components[1])
        }
        let part = try FountainPart(cbor: Bytewords.decode(components[2], style: .minimal))
        guard part.sequenceNumber == n, part.sequenceLength == m else { throw .sequenceMismatch(text: components[1]) }
        let received = try fountain.receive(part)
        if received == .otherMessage { throw .otherMessage }
        type = partType
        if let message = fountain.message, result == nil { result = try UniformResource(type: partType, cbor: message) }
        return received
    }
}
