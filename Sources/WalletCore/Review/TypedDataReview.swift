// The review of EIP-712 typed data (docs/signing-review.md): the primary type, the domain's
// fields (its chain by name), the message as a tree of named fields in the order its type
// declares them, and the three hashes under ERC-8213's names (Domain Hash, Message Hash, EIP-712
// Digest). Long values are wrapped by the renderer, never cut; a
// message with more than `maximumLines` fields is shown up to that many, with a warning.

extension SigningReview {
    /// The most message lines a review shows (a document is untrusted: its arrays can be long).
    public static let maximumLines = 2_000

    /// The review of `typed`; `name` names an address that is one of the person's keys.
    public static func typedData(
        _ typed: TypedData, name: @escaping (EthereumAddress) -> String? = { _ in nil }
    ) throws(EthereumError) -> SigningReview {
        var review = SigningReview(
            title: "EIP-712 typed data", digest: try typed.digest(), digestName: Digest.eip712)
        review.add("primary type", typed.primaryType)
        var tree = TypedDataTree(typed: typed, name: name)
        review.add("domain", "")
        tree.fields(of: "EIP712Domain", typed.domain, depth: 1, into: &review)
        if typed.primaryType != "EIP712Domain" {
            review.add("message", typed.primaryType)
            tree.fields(of: typed.primaryType, typed.message, depth: 1, into: &review)
        }
        if tree.truncated > 0 {
            review.warnings.append(
                "the message has \(tree.truncated) more fields than the \(maximumLines) shown:"
                    + " what is not shown is signed too")
        }
        review.warnings += tree.warnings
        review.addSafe(typed, name: name)
        review.addPermit(typed)
        review.add(Digest.domain, "0x" + Hex.encode(try typed.domainSeparator()))
        if typed.primaryType != "EIP712Domain" {
            review.add(Digest.message, "0x" + Hex.encode(try typed.messageHash()))
        }
        return review
    }
}

/// Walks a typed-data value by its declared types, adding a line per field.
struct TypedDataTree {
    let typed: TypedData
    let name: (EthereumAddress) -> String?
    let structs: Set<String>
    var shown = 0
    var truncated = 0
    var warnings: [String] = []

    init(typed: TypedData, name: @escaping (EthereumAddress) -> String?) {
        self.typed = typed
        self.name = name
        structs = Set(typed.types.keys)
    }

    mutating func add(_ label: String, _ value: String, depth: Int, into review: inout SigningReview) -> Bool {
        guard shown < SigningReview.maximumLines else {
            truncated += 1
            return false
        }
        shown += 1
        review.add(label, value, depth: depth)
        return true
    }

    mutating func fields(of typeName: String, _ value: TypedDataValue, depth: Int, into review: inout SigningReview) {
        for field in typed.types[typeName] ?? [] {
            let member = value[field.name] ?? .null
            self.value(field.name, field.type, member, depth: depth, into: &review)
        }
    }

    mutating func value(
        _ label: String, _ typeName: String, _ value: TypedDataValue, depth: Int, into review: inout SigningReview
    ) {
        guard let type = TypedDataType.parse(typeName, structs: structs) else {
            _ = add(label, String(describing: value), depth: depth, into: &review)
            return
        }
        switch type {
        case .structType(let s):
            guard add(label, s, depth: depth, into: &review) else { return }
            fields(of: s, value, depth: depth + 1, into: &review)
        case .array:
            guard case .array(let items) = value else {
                _ = add(label, String(describing: value), depth: depth, into: &review)
                return
            }
            let element = String(typeName[..<typeName.lastIndex(of: "[")!])
            guard
                add(
                    label, "\(items.count) item\(items.count == 1 ? "" : "s") of \(element)", depth: depth,
                    into: &review)
            else {
                truncated += items.count
                return
            }
            for (i, item) in items.enumerated() { self.value("[\(i)]", element, item, depth: depth + 1, into: &review) }
        default:
            _ = add(label, atomic(type, label, value), depth: depth, into: &review)
        }
    }

    /// An atomic value as a person reads it: an address with its key's name, a chain id by
    /// name, an integer in decimal (the largest uint256 called unlimited), text quoted.
    mutating func atomic(_ type: TypedDataType, _ label: String, _ value: TypedDataValue) -> String {
        switch (type, value) {
        case (.address, .string(let s)):
            guard let a = try? EthereumAddress(s) else { return s }
            return a.checksummed + (name(a).map { " (your key \($0))" } ?? "")
        case (.uint, _), (.int, _):
            let text: String
            switch value {
            case .integer(let s): text = s
            case .string(let s) where s.hasPrefix("0x") || s.hasPrefix("0X"):
                text = (try? EthereumUnits.parse(s))?.description ?? s
            case .string(let s): text = s
            default: text = String(describing: value)
            }
            if label == "chainId", let id = UInt256(decimal: text) { return EthereumChain.label(id) }
            if case .uint(256) = type, let n = UInt256(decimal: text), n >= CallData.unlimited {
                warnings.append("\(label) is \(n == .max ? "2^256 − 1" : "over 2^128"): an unlimited amount")
                return text + " (unlimited)"
            }
            return text
        case (.string, .string(let s)):
            return "\"" + s + "\""
        case (.bool, .bool(let b)):
            return b ? "true" : "false"
        default:
            if case .string(let s) = value { return s }
            return String(describing: value)
        }
    }
}
