// EIP-712 typed structured data hashing, version 4 (the rules of MetaMask's
// eth_signTypedData_v4: arrays, including arrays of structs and nested arrays, are hashed as
// keccak256 of the concatenated encodings of their elements). Source: ethereum/EIPs
// EIPS/eip-712.md ("Definition of encodeType", "Definition of encodeData",
// "Definition of domainSeparator") and its reference assets/eip-712/Example.js.
//
// Stricter than the specification in documented places (docs/wallet-core.md): a value missing
// from the data is an error (v4 implementations would hash zero); struct types that reference
// each other in a cycle are rejected (their data could only be finite through empty arrays,
// which is never what a signer means to sign); and a document is untrusted input, so a type has
// at most `maximumArrayDimensions` array suffixes and struct types nest at most
// `maximumStructDepth` levels (the JSON itself at most `JSONText.maximumDepth`).
import Foundation
import KCSErrors

// MARK: - Values

/// A JSON value of a typed-data document, kept exact: integers keep their decimal text.
public indirect enum TypedDataValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    /// An integer JSON number, as decimal text (possibly negative).
    case integer(String)
    /// A JSON number that is not an exact integer (a fraction, or too large to be exact).
    case inexactNumber(String)
    case string(String)
    case array([TypedDataValue])
    case object([String: TypedDataValue])

    /// Converts the output of `JSONSerialization`.
    public init(jsonObject any: Any) {
        switch any {
        case let s as String: self = .string(s)
        case let b as Bool where type(of: any) == Bool.self: self = .bool(b)
        case let i as Int where type(of: any) == Int.self: self = .integer(String(i))
        case let n as NSNumber:
            switch String(cString: n.objCType) {
            case "c", "B": self = .bool(n.boolValue)
            case "f", "d":
                let d = n.doubleValue
                if d.rounded() == d, abs(d) <= 9_007_199_254_740_992 {
                    self = .integer(String(Int64(d)))
                } else {
                    self = .inexactNumber(n.stringValue)
                }
            case "Q", "L", "I", "S", "C": self = .integer(String(n.uint64Value))
            default: self = .integer(String(n.int64Value))
            }
        case let a as [Any]: self = .array(a.map(TypedDataValue.init(jsonObject:)))
        case let o as [String: Any]: self = .object(o.mapValues(TypedDataValue.init(jsonObject:)))
        default: self = .null
        }
    }

    /// A short rendering for error messages.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .integer(let s), .inexactNumber(let s): "the number \(s)"
        case .string(let s): s.count > 80 ? JSONString.quoted(String(s.prefix(77)) + "…") : JSONString.quoted(s)
        case .array(let a): "an array of \(a.count) elements"
        case .object: "an object"
        }
    }

    /// The field `key` of an object.
    public subscript(key: String) -> TypedDataValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
}

/// One member of a struct type: `{"name": …, "type": …}`.
public struct TypedDataField: Sendable, Hashable {
    public let name: String
    public let type: String
    public init(name: String, type: String) {
        self.name = name
        self.type = type
    }
}

// MARK: - Types

/// A parsed EIP-712 type name.
indirect enum TypedDataType: Sendable, Hashable {
    case address, bool, string, bytes
    case fixedBytes(Int)
    case int(Int)
    case uint(Int)
    case array(TypedDataType, count: Int?)
    case structType(String)

    /// Parses `name`; nil when it is no atomic or dynamic type and not in `structs`, or has
    /// more than `TypedData.maximumArrayDimensions` array suffixes. The suffixes are read from
    /// the end in one pass, without copying the name.
    static func parse(_ name: String, structs: Set<String>) -> TypedDataType? {
        var base = Substring(name)
        var counts: [Int?] = []  // outermost dimension first
        while base.hasSuffix("]") {
            guard counts.count < TypedData.maximumArrayDimensions, let open = base.lastIndex(of: "[") else {
                return nil
            }
            let inner = base[base.index(after: open)..<base.index(before: base.endIndex)]
            if inner.isEmpty {
                counts.append(nil)
            } else {
                guard inner.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(inner), n > 0 else { return nil }
                counts.append(n)
            }
            base = base[..<open]
        }
        guard var type = element(String(base), structs: structs) else { return nil }
        for count in counts.reversed() { type = .array(type, count: count) }
        return type
    }

    /// How many array suffixes (`[]`, `[3]`) end `name`, counted from the end in one pass.
    static func arrayDimensions(_ name: String) -> Int {
        var base = Substring(name), count = 0
        while base.hasSuffix("]"), let open = base.lastIndex(of: "[") {
            count += 1
            base = base[..<open]
        }
        return count
    }

    /// An atomic or dynamic type, or a struct in `structs` (no array suffix).
    private static func element(_ name: String, structs: Set<String>) -> TypedDataType? {
        switch name {
        case "address": return .address
        case "bool": return .bool
        case "string": return .string
        case "bytes": return .bytes
        default: break
        }
        if let n = suffixNumber(name, after: "bytes"), (1...32).contains(n) { return .fixedBytes(n) }
        if let n = suffixNumber(name, after: "uint"), n % 8 == 0, (8...256).contains(n) { return .uint(n) }
        if let n = suffixNumber(name, after: "int"), n % 8 == 0, (8...256).contains(n) { return .int(n) }
        if structs.contains(name) { return .structType(name) }
        return nil
    }

    private static func suffixNumber(_ name: String, after prefix: String) -> Int? {
        guard name.hasPrefix(prefix) else { return nil }
        let digits = name.dropFirst(prefix.count)
        guard !digits.isEmpty, digits.first != "0", digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    /// The struct name at the bottom of any array nesting.
    var structName: String? {
        switch self {
        case .structType(let name): name
        case .array(let element, _): element.structName
        default: nil
        }
    }
}

// MARK: - Typed data

/// An EIP-712 document: struct types, the primary type, the domain and the message.
public struct TypedData: Sendable {
    /// Struct types by name, including `EIP712Domain` (inferred from the domain's fields
    /// when the document does not define it, in the order name, version, chainId,
    /// verifyingContract, salt — as ethers.js does).
    public let types: [String: [TypedDataField]]
    public let primaryType: String
    public let domain: TypedDataValue
    public let message: TypedDataValue

    /// The most array suffixes a type may have (`uint256[][]` has 2). A document is untrusted
    /// input: a type with 100,000 suffixes once took gigabytes to parse.
    public static let maximumArrayDimensions = 32
    /// The most struct types a chain of fields may pass through, the primary type included
    /// (`Mail` → `Person` is 2 levels).
    public static let maximumStructDepth = 64

    /// The domain fields EIP-712 defines, in their canonical order.
    public static let domainFieldTypes: [(name: String, type: String)] = [
        ("name", "string"), ("version", "string"), ("chainId", "uint256"),
        ("verifyingContract", "address"), ("salt", "bytes32"),
    ]

    /// Builds and checks a document: every field type must exist, the primary type must be
    /// defined, and no struct may reach itself through its fields.
    public init(
        types: [String: [TypedDataField]], primaryType: String,
        domain: TypedDataValue, message: TypedDataValue
    ) throws(EthereumError) {
        var all = types
        guard case .object(let domainFields) = domain else {
            throw .typedDataMalformed(reason: "domain must be an object, got \(domain)")
        }
        if all["EIP712Domain"] == nil {
            for key in domainFields.keys.sorted() where !Self.domainFieldTypes.contains(where: { $0.name == key }) {
                throw .typedDataMalformed(
                    reason: "domain field \(JSONString.quoted(key)) is not one of"
                        + " name, version, chainId, verifyingContract, salt (define EIP712Domain to use it)")
            }
            all["EIP712Domain"] = Self.domainFieldTypes.filter { domainFields[$0.name] != nil }
                .map { TypedDataField(name: $0.name, type: $0.type) }
        }
        self.types = all
        self.primaryType = primaryType
        self.domain = domain
        self.message = message
        try validate()
    }

    /// Parses a JSON document `{types, primaryType, domain, message}`.
    public init(json: [UInt8]) throws(EthereumError) {
        let object: Any
        do { object = try JSONText.parse(json) } catch {
            throw .typedDataMalformed(reason: "not valid JSON: \(error.description)")
        }
        try self.init(jsonObject: object)
    }

    /// Reads the output of `JSONSerialization`.
    public init(jsonObject: Any) throws(EthereumError) {
        guard let root = jsonObject as? [String: Any] else {
            throw .typedDataMalformed(reason: "the top level is not an object")
        }
        guard let rawTypes = root["types"] as? [String: Any] else {
            throw .typedDataMalformed(reason: "\"types\" is missing or not an object")
        }
        var types = [String: [TypedDataField]]()
        for (name, list) in rawTypes {
            guard let members = list as? [Any] else {
                throw .typedDataMalformed(reason: "types.\(name) is not a list of {name, type}")
            }
            var fields = [TypedDataField]()
            for (i, member) in members.enumerated() {
                guard let m = member as? [String: Any], let fieldName = m["name"] as? String,
                    let fieldType = m["type"] as? String
                else {
                    throw .typedDataMalformed(reason: "types.\(name)[\(i)] is not {\"name\": string, \"type\": string}")
                }
                fields.append(TypedDataField(name: fieldName, type: fieldType))
            }
            types[name] = fields
        }
        guard let primaryType = root["primaryType"] as? String else {
            throw .typedDataMalformed(reason: "\"primaryType\" is missing or not a string")
        }
        guard let domain = root["domain"] else { throw .typedDataMalformed(reason: "\"domain\" is missing") }
        guard let message = root["message"] else { throw .typedDataMalformed(reason: "\"message\" is missing") }
        try self.init(
            types: types, primaryType: primaryType, domain: TypedDataValue(jsonObject: domain),
            message: TypedDataValue(jsonObject: message))
    }

    // MARK: Hashing

    /// `encodeType`: `Name(type1 name1,…)` followed by every referenced struct type, sorted by name.
    public func encodeType(_ name: String) throws(EthereumError) -> String {
        guard types[name] != nil else { throw .typedDataUnknownType(type: name, usedBy: "encodeType") }
        var deps = Set<String>()
        collectDependencies(of: name, into: &deps)
        deps.remove(name)
        return ([name] + deps.sorted()).map { type in
            type + "(" + types[type]!.map { "\($0.type) \($0.name)" }.joined(separator: ",") + ")"
        }.joined()
    }

    /// keccak256(encodeType(name)).
    public func typeHash(_ name: String) throws(EthereumError) -> [UInt8] {
        Hash.keccak256(Array(try encodeType(name).utf8))
    }

    /// typeHash ‖ the 32-byte encoding of each member (what hashStruct hashes).
    public func encodeData(
        _ name: String, _ value: TypedDataValue, path: String = "message"
    ) throws(EthereumError) -> [UInt8] {
        guard let fields = types[name] else { throw .typedDataUnknownType(type: name, usedBy: path) }
        guard case .object(let members) = value else {
            throw .typedDataBadValue(path: path, type: name, reason: "\(value) instead of an object")
        }
        var out = try typeHash(name)
        out.reserveCapacity(32 * (fields.count + 1))
        for field in fields {
            let fieldPath = path + "." + field.name
            guard let member = members[field.name], member != .null else {
                throw .typedDataMissingField(path: fieldPath, type: field.type)
            }
            out += try encodeValue(field.type, member, path: fieldPath)
        }
        return out
    }

    /// hashStruct(value) = keccak256(encodeData).
    public func hashStruct(
        _ name: String, _ value: TypedDataValue, path: String = "message"
    ) throws(EthereumError) -> [UInt8] {
        Hash.keccak256(try encodeData(name, value, path: path))
    }

    /// hashStruct("EIP712Domain", domain).
    public func domainSeparator() throws(EthereumError) -> [UInt8] {
        try hashStruct("EIP712Domain", domain, path: "domain")
    }

    /// hashStruct(primaryType, message).
    public func messageHash() throws(EthereumError) -> [UInt8] {
        try hashStruct(primaryType, message, path: "message")
    }

    /// 0x19 0x01 ‖ domainSeparator ‖ hashStruct(message); for primaryType EIP712Domain the
    /// message hash is left out (as MetaMask does).
    public func signingPayload() throws(EthereumError) -> [UInt8] {
        var out: [UInt8] = [0x19, 0x01]
        out += try domainSeparator()
        if primaryType != "EIP712Domain" { out += try messageHash() }
        return out
    }

    /// The 32-byte digest that gets signed.
    public func digest() throws(EthereumError) -> [UInt8] { Hash.keccak256(try signingPayload()) }

    // MARK: Internals

    private var structNames: Set<String> { Set(types.keys) }

    private func validate() throws(EthereumError) {
        let names = structNames
        for (name, fields) in types.sorted(by: { $0.key < $1.key }) {
            if TypedDataType.parse(name, structs: []) != nil || name.contains("[") {
                throw .typedDataMalformed(
                    reason: "struct name \(JSONString.quoted(name)) is an atomic or array type name")
            }
            var seen = Set<String>()
            for field in fields {
                guard seen.insert(field.name).inserted else {
                    throw .typedDataMalformed(reason: "\(name) has two fields named \(JSONString.quoted(field.name))")
                }
                let dimensions = TypedDataType.arrayDimensions(field.type)
                guard dimensions <= Self.maximumArrayDimensions else {
                    throw .typedDataTooDeep(
                        usedBy: "type of \(name).\(field.name)", what: "array dimensions",
                        limit: Self.maximumArrayDimensions, given: "\(dimensions)")
                }
                guard TypedDataType.parse(field.type, structs: names) != nil else {
                    throw .typedDataUnknownType(type: field.type, usedBy: "\(name).\(field.name)")
                }
            }
        }
        guard types[primaryType] != nil else { throw .typedDataUnknownType(type: primaryType, usedBy: "primaryType") }
        // Cycle search: depth-first, reporting the first cycle found (in name order).
        var done = Set<String>()
        for name in types.keys.sorted() {
            var stack = [String]()
            try visit(name, stack: &stack, done: &done)
        }
    }

    private func visit(_ name: String, stack: inout [String], done: inout Set<String>) throws(EthereumError) {
        if let start = stack.firstIndex(of: name) { throw .typedDataCycle(path: Array(stack[start...]) + [name]) }
        guard !done.contains(name) else { return }
        guard stack.count < Self.maximumStructDepth else {
            throw .typedDataTooDeep(
                usedBy: "struct \(stack[0])", what: "levels of nested struct types",
                limit: Self.maximumStructDepth,
                given: "more: \(stack[0]) → \(stack[1]) → … → \(stack[stack.count - 1]) → \(name)")
        }
        stack.append(name)
        for field in types[name] ?? [] {
            if let child = TypedDataType.parse(field.type, structs: structNames)?.structName {
                try visit(child, stack: &stack, done: &done)
            }
        }
        stack.removeLast()
        done.insert(name)
    }

    private func collectDependencies(of name: String, into deps: inout Set<String>) {
        guard deps.insert(name).inserted else { return }
        for field in types[name] ?? [] {
            if let child = TypedDataType.parse(field.type, structs: structNames)?.structName {
                collectDependencies(of: child, into: &deps)
            }
        }
    }

    private func encodeValue(_ typeName: String, _ value: TypedDataValue, path: String) throws(EthereumError) -> [UInt8]
    {
        guard let type = TypedDataType.parse(typeName, structs: structNames) else {
            throw .typedDataUnknownType(type: typeName, usedBy: path)
        }
        return try encode(type, typeName, value, path: path)
    }

    private func encode(
        _ type: TypedDataType, _ typeName: String, _ value: TypedDataValue,
        path: String
    ) throws(EthereumError) -> [UInt8] {
        func bad(_ reason: String) -> EthereumError { .typedDataBadValue(path: path, type: typeName, reason: reason) }
        switch type {
        case .structType(let name):
            return try hashStruct(name, value, path: path)
        case .array(let element, let count):
            guard case .array(let items) = value else { throw bad("\(value) instead of an array") }
            if let count, items.count != count { throw bad("\(items.count) elements instead of \(count)") }
            let elementName = String(typeName[..<typeName.lastIndex(of: "[")!])
            var joined = [UInt8]()
            for (i, item) in items.enumerated() {
                guard item != .null else { throw .typedDataMissingField(path: "\(path)[\(i)]", type: elementName) }
                joined += try encode(element, elementName, item, path: "\(path)[\(i)]")
            }
            return Hash.keccak256(joined)
        case .string:
            guard case .string(let s) = value else { throw bad("\(value) instead of a string") }
            return Hash.keccak256(Array(s.utf8))
        case .bytes:
            return Hash.keccak256(try hexBytes(value, bad))
        case .fixedBytes(let n):
            let bytes = try hexBytes(value, bad)
            guard bytes.count == n else { throw bad("\(bytes.count) bytes instead of \(n)") }
            return bytes + [UInt8](repeating: 0, count: 32 - n)
        case .address:
            guard case .string(let s) = value else { throw bad("\(value) instead of a 0x address") }
            do { return [UInt8](repeating: 0, count: 12) + (try EthereumAddress(s)).bytes } catch {
                throw bad(error.description)
            }
        case .bool:
            guard case .bool(let b) = value else { throw bad("\(value) instead of true or false") }
            return [UInt8](repeating: 0, count: 31) + [b ? 1 : 0]
        case .uint(let bits), .int(let bits):
            let signed: Bool
            if case .int = type { signed = true } else { signed = false }
            return try encodeInteger(value, bits: bits, signed: signed, typeName: typeName, path: path)
        }
    }

    private func hexBytes(_ value: TypedDataValue, _ bad: (String) -> EthereumError) throws(EthereumError) -> [UInt8] {
        guard case .string(let s) = value else { throw bad("\(value) instead of 0x hex") }
        guard s.hasPrefix("0x") || s.hasPrefix("0X") else { throw bad("\(value), which lacks the 0x prefix") }
        do { return try Hex.decode(s) } catch { throw bad(error.description) }
    }

    private func encodeInteger(
        _ value: TypedDataValue, bits: Int, signed: Bool, typeName: String,
        path: String
    ) throws(EthereumError) -> [UInt8] {
        var text: String
        switch value {
        case .integer(let s): text = s
        case .string(let s): text = s.trimmingSpaces
        case .inexactNumber(let s):
            throw .typedDataBadValue(
                path: path, type: typeName,
                reason: "the number \(s), which is not an exact integer (write large integers as strings)")
        default:
            throw .typedDataBadValue(path: path, type: typeName, reason: "\(value) instead of an integer")
        }
        let shown = text
        var negative = false
        if text.hasPrefix("-") {
            negative = true
            text.removeFirst()
        }
        let magnitude: UInt256
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            let digits = text.dropFirst(2)
            guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit) else {
                throw .typedDataBadValue(
                    path: path, type: typeName, reason: "\(JSONString.quoted(shown)), which is not an integer")
            }
            let significant = digits.drop { $0 == "0" }
            guard significant.count <= 64 else {
                throw .typedDataIntegerOutOfRange(path: path, type: typeName, value: shown)
            }
            let even = significant.count % 2 == 1 ? "0" + significant : String(significant)
            magnitude = UInt256(bigEndian: (try? Hex.decode(even)) ?? [])!
        } else {
            guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw .typedDataBadValue(
                    path: path, type: typeName, reason: "\(JSONString.quoted(shown)), which is not an integer")
            }
            guard let m = UInt256(decimal: text) else {
                throw .typedDataIntegerOutOfRange(path: path, type: typeName, value: shown)
            }
            magnitude = m
        }
        if magnitude.isZero { return [UInt8](repeating: 0, count: 32) }
        let fits: Bool
        if !signed {
            fits = !negative && magnitude.bitWidth <= bits
        } else if !negative {
            fits = magnitude.bitWidth <= bits - 1
        } else {
            // −2^(bits−1) is the smallest value.
            var limit = UInt256.zero
            limit.limbs[(bits - 1) / 64] = 1 << UInt64((bits - 1) % 64)
            fits = magnitude <= limit
        }
        guard fits else { throw .typedDataIntegerOutOfRange(path: path, type: typeName, value: shown) }
        return negative ? magnitude.twosComplementNegated.bigEndianBytes : magnitude.bigEndianBytes
    }
}
