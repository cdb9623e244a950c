// The Solidity ABI, for reading call data a descriptor describes (docs/eth-signing.md,
// "ERC-7730"). Source: docs.soliditylang.org, "Contract ABI Specification" (function selector,
// types, head/tail encoding). Call data is untrusted: offsets must stay inside it, arrays hold at
// most `maximumElements` elements and types nest at most `maximumDepth` levels.

import KCSErrors

/// A Solidity type as the ABI encodes it.
public indirect enum ABIType: Sendable, Hashable, CustomStringConvertible {
    case address, bool, string, bytes
    case uint(Int), int(Int)
    /// bytes1 … bytes32.
    case fixedBytes(Int)
    /// `T[]` (count nil) or `T[k]`.
    case array(ABIType, count: Int?)
    /// `(T1 name1, T2 name2, …)`; names may be empty.
    case tuple([(name: String, type: ABIType)])

    public static let maximumDepth = 8
    public static let maximumElements = 1024

    public static func == (a: ABIType, b: ABIType) -> Bool { a.description == b.description }
    public func hash(into h: inout Hasher) { h.combine(description) }

    /// The canonical form, as the selector hashes it: `uint256`, `(address,uint256)[]`.
    public var description: String {
        switch self {
        case .address: "address"
        case .bool: "bool"
        case .string: "string"
        case .bytes: "bytes"
        case .uint(let n): "uint\(n)"
        case .int(let n): "int\(n)"
        case .fixedBytes(let n): "bytes\(n)"
        case .array(let t, let k): "\(t)[\(k.map(String.init) ?? "")]"
        case .tuple(let fields): "(" + fields.map(\.type.description).joined(separator: ",") + ")"
        }
    }

    /// True when the encoding has a tail (a head offset points at it).
    var isDynamic: Bool {
        switch self {
        case .string, .bytes: true
        case .array(let t, let k): k == nil || t.isDynamic
        case .tuple(let f): f.contains { $0.type.isDynamic }
        default: false
        }
    }

    /// Head size in bytes of a static type.
    var headSize: Int {
        switch self {
        case .array(let t, let k?) where !t.isDynamic: k * t.headSize
        case .tuple(let f) where !isDynamic: f.reduce(0) { $0 + $1.type.headSize }
        default: 32
        }
    }

    /// Parses `uint256`, `address[]`, `(address a,uint256 b)[2]`, `uint` (= uint256).
    public static func parse(_ text: String) throws(EthereumError) -> ABIType {
        var p = ABIParser(Array(text.utf8))
        let t = try p.type(depth: 0)
        p.skipSpaces()
        guard p.done else { throw .abiBad(reason: "unexpected text after the type in \(JSONString.quoted(text))") }
        return t
    }
}

/// A function: its name, its parameters (with names where given), the canonical signature and selector.
public struct ABIFunction: Sendable, Hashable {
    public let name: String
    public let parameters: [(name: String, type: ABIType)]

    public static func == (a: ABIFunction, b: ABIFunction) -> Bool { a.signature == b.signature }
    public func hash(into h: inout Hasher) { h.combine(signature) }

    /// `transfer(address,uint256)`.
    public var signature: String { name + ABIType.tuple(parameters).description }

    public var selector: [UInt8] { Array(Hash.keccak256(Array(signature.utf8)).prefix(4)) }

    /// Parses `transfer(address _to, uint256 _amount)` (names optional, spaces allowed).
    public init(_ text: String) throws(EthereumError) {
        let bytes = Array(text.utf8)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")), open > 0 else {
            throw .abiBad(reason: "a function signature must be name(types…), got \(JSONString.quoted(text))")
        }
        name = String(decoding: bytes[..<open], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        var p = ABIParser(Array(bytes[open...]))
        guard case .tuple(let fields) = try p.type(depth: 0) else {
            throw .abiBad(reason: "a function's parameters must be a list in parentheses")
        }
        p.skipSpaces()
        guard p.done else {
            throw .abiBad(reason: "unexpected text after the parameters in \(JSONString.quoted(text))")
        }
        parameters = fields
    }

    /// Decodes call data (selector included) into the parameters' values.
    public func decode(_ data: [UInt8]) throws(EthereumError) -> [(name: String, value: ABIValue)] {
        guard data.count >= 4, Array(data.prefix(4)) == selector else {
            throw .abiBad(reason: "the call data does not start with \(signature)'s selector")
        }
        let body = Array(data.dropFirst(4))
        guard case .tuple(let values) = try ABIDecoder(data: body).value(.tuple(parameters), at: 0, depth: 0) else {
            throw .abiBad(reason: "unreachable")
        }
        return values
    }
}

/// A decoded ABI value.
public indirect enum ABIValue: Sendable, Hashable {
    case address(EthereumAddress)
    case bool(Bool)
    case uint(UInt256)
    /// Two's complement over 256 bits, shown signed.
    case int(UInt256)
    case bytes([UInt8])
    case string(String)
    case array([ABIValue])
    case tuple([(name: String, value: ABIValue)])

    public static func == (a: ABIValue, b: ABIValue) -> Bool { a.text == b.text }
    public func hash(into h: inout Hasher) { h.combine(text) }

    /// The value as text: decimal integers, EIP-55 addresses, 0x bytes, quoted strings.
    public var text: String {
        switch self {
        case .address(let a): a.checksummed
        case .bool(let b): b ? "true" : "false"
        case .uint(let n): n.description
        case .int(let n):
            n.bigEndianBytes[0] & 0x80 == 0
                ? n.description
                : "-"
                    + (UInt256.max.subtractingReportingOverflow(n).0.addingReportingOverflow(UInt256(1)).0).description
        case .bytes(let b): "0x" + Hex.encode(b)
        case .string(let s): JSONString.quoted(s)
        case .array(let a): "[" + a.map(\.text).joined(separator: ", ") + "]"
        case .tuple(let f): "(" + f.map(\.value.text).joined(separator: ", ") + ")"
        }
    }
}

/// Reads the head/tail encoding, every offset and length checked against the data.
struct ABIDecoder {
    let data: [UInt8]

    func word(_ at: Int) throws(EthereumError) -> [UInt8] {
        guard at >= 0, at + 32 <= data.count else {
            throw .abiBad(reason: "the call data ends inside a value (at byte \(at))")
        }
        return Array(data[at..<(at + 32)])
    }

    func small(_ at: Int, _ what: String) throws(EthereumError) -> Int {
        guard let n = UInt256(bigEndian: try word(at))?.uint64, n <= UInt64(data.count) else {
            throw .abiBad(reason: "\(what) at byte \(at) points past the call data")
        }
        return Int(n)
    }

    /// The value of `type` whose head is at `at`, within the enclosing block starting at `base`.
    func value(_ type: ABIType, at: Int, depth: Int, base: Int = 0) throws(EthereumError) -> ABIValue {
        guard depth <= ABIType.maximumDepth else {
            throw .abiBad(reason: "types nest deeper than \(ABIType.maximumDepth)")
        }
        if type.isDynamic, depth > 0 {
            return try inner(type, at: base + (try small(at, "an offset")), depth: depth)
        }
        return try inner(type, at: at, depth: depth)
    }

    private func inner(_ type: ABIType, at: Int, depth: Int) throws(EthereumError) -> ABIValue {
        switch type {
        case .address:
            let w = try word(at)
            guard w.prefix(12).allSatisfy({ $0 == 0 }) else {
                throw .abiBad(reason: "an address at byte \(at) is not 20 bytes")
            }
            return .address(try! EthereumAddress(bytes: Array(w.suffix(20))))
        case .bool:
            let w = try word(at)
            guard w.prefix(31).allSatisfy({ $0 == 0 }), w[31] <= 1 else {
                throw .abiBad(reason: "a bool at byte \(at) is not 0 or 1")
            }
            return .bool(w[31] == 1)
        case .uint: return .uint(UInt256(bigEndian: try word(at))!)
        case .int: return .int(UInt256(bigEndian: try word(at))!)
        case .fixedBytes(let n): return .bytes(Array(try word(at).prefix(n)))
        case .bytes, .string:
            let length = try small(at, "a length")
            guard at + 32 + length <= data.count else {
                throw .abiBad(reason: "bytes at byte \(at) run past the call data")
            }
            let b = Array(data[(at + 32)..<(at + 32 + length)])
            if case .string = type { return .string(String(decoding: b, as: UTF8.self)) }
            return .bytes(b)
        case .array(let element, let k):
            let count: Int
            if let k { count = k } else { count = try small(at, "an array length") }
            guard count <= ABIType.maximumElements else {
                throw .abiBad(reason: "an array of \(count) elements (at most \(ABIType.maximumElements))")
            }
            let start = k == nil ? at + 32 : at
            return .array(
                try elements(Array(repeating: element, count: count), start: start, depth: depth).map(\.value))
        case .tuple(let fields):
            return .tuple(try elements(fields.map(\.type), start: at, depth: depth, names: fields.map(\.name)))
        }
    }

    /// A block of heads starting at `start`: static values in place, dynamic ones at offsets from `start`.
    private func elements(
        _ types: [ABIType], start: Int, depth: Int, names: [String]? = nil
    ) throws(EthereumError) -> [(name: String, value: ABIValue)] {
        var out: [(name: String, value: ABIValue)] = []
        var head = start
        for (i, t) in types.enumerated() {
            out.append((names?[i] ?? "", try value(t, at: head, depth: depth + 1, base: start)))
            head += t.isDynamic ? 32 : t.headSize
        }
        return out
    }
}

/// Parses type text: elementary names, arrays, tuples in parentheses with optional names.
struct ABIParser {
    let text: [UInt8]
    var i = 0

    init(_ text: [UInt8]) { self.text = text }

    var done: Bool { i >= text.count }

    mutating func skipSpaces() { while i < text.count, text[i] == 0x20 { i += 1 } }

    mutating func word() -> String {
        let start = i
        while i < text.count, let c = Optional(text[i]),
            (c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7A) || c == 0x5F || c == 0x24
        {
            i += 1
        }
        return String(decoding: text[start..<i], as: UTF8.self)
    }

    mutating func type(depth: Int) throws(EthereumError) -> ABIType {
        guard depth <= ABIType.maximumDepth else {
            throw .abiBad(reason: "types nest deeper than \(ABIType.maximumDepth)")
        }
        skipSpaces()
        var t: ABIType
        if i < text.count, text[i] == UInt8(ascii: "(") {
            i += 1
            var fields: [(name: String, type: ABIType)] = []
            skipSpaces()
            if i < text.count, text[i] == UInt8(ascii: ")") {
                i += 1
            } else {
                while true {
                    let f = try type(depth: depth + 1)
                    skipSpaces()
                    var name = word()
                    if ["memory", "calldata", "storage", "indexed"].contains(name) {
                        skipSpaces()
                        name = word()
                    }
                    fields.append((name, f))
                    skipSpaces()
                    guard i < text.count else { throw .abiBad(reason: "a parameter list is not closed") }
                    if text[i] == UInt8(ascii: ",") {
                        i += 1
                        continue
                    }
                    guard text[i] == UInt8(ascii: ")") else {
                        throw .abiBad(reason: "expected , or ) in a parameter list")
                    }
                    i += 1
                    break
                }
            }
            t = .tuple(fields)
        } else {
            t = try Self.elementary(word())
        }
        while i < text.count, text[i] == UInt8(ascii: "[") {
            i += 1
            let k = word()
            guard i < text.count, text[i] == UInt8(ascii: "]") else {
                throw .abiBad(reason: "an array suffix is not closed")
            }
            i += 1
            if k.isEmpty {
                t = .array(t, count: nil)
            } else {
                guard let n = Int(k), n > 0, n <= ABIType.maximumElements else {
                    throw .abiBad(reason: "an array size must be 1…\(ABIType.maximumElements), got \(k)")
                }
                t = .array(t, count: n)
            }
        }
        return t
    }

    static func elementary(_ name: String) throws(EthereumError) -> ABIType {
        switch name {
        case "address": return .address
        case "bool": return .bool
        case "string": return .string
        case "bytes": return .bytes
        case "uint": return .uint(256)
        case "int": return .int(256)
        default:
            for (prefix, make) in [("uint", ABIType.uint), ("int", ABIType.int)] as [(String, (Int) -> ABIType)]
            where name.hasPrefix(prefix) {
                if let n = Int(name.dropFirst(prefix.count)), n % 8 == 0, (8...256).contains(n) { return make(n) }
            }
            if name.hasPrefix("bytes"), let n = Int(name.dropFirst(5)), (1...32).contains(n) { return .fixedBytes(n) }
            throw .abiBad(reason: "\(JSONString.quoted(name)) is not an ABI type")
        }
    }
}
