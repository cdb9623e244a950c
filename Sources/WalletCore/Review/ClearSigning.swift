// ERC-7730 clear-signing descriptors (docs/eth-signing.md, "ERC-7730"): a JSON file that says how
// to show the calls of a contract or the messages of an EIP-712 domain. Source: ethereum/ERCs
// ERCS/erc-7730.md (schema v2; v1's object-shaped `fields` read too). The subset kcs reads:
// binding by `context.contract.deployments` / `context.eip712.deployments` + `domain`; formats
// keyed by a function signature with parameter names (its selector) or by an EIP-712 type (its
// encodeType, or the primary type's name); `includes` (merged by the session, the including file
// winning); paths `#.` (parameters or message), `@.` (to, from, value, chainId), `$.` (the file);
// the field formats raw, amount, tokenAmount, date, duration, unit, enum, chainId, addressName,
// calldata, nftName; `visible`, `excluded`, `intent` and `interpolatedIntent`. A descriptor only
// adds labels: what kcs decodes itself, and the digests, are always shown too.
import Foundation
import KCSErrors

/// A descriptor that cannot be used.
public enum ClearSigningError: WalletError, Equatable {
    case malformed(file: String, reason: String)

    public var id: String { "eth.descriptor.malformed" }
    public var description: String {
        switch self {
        case .malformed(let file, let reason): "ERC-7730 descriptor \(file): \(reason)"
        }
    }
}

/// What a descriptor makes of one call or message: its intent and labelled values.
public struct ClearSigned: Sendable, Equatable {
    public let intent: String
    public let owner: String?
    public let fields: [(label: String, value: String)]

    public static func == (a: ClearSigned, b: ClearSigned) -> Bool {
        a.intent == b.intent && a.owner == b.owner
            && a.fields.map { $0.label + "\u{0}" + $0.value }
                == b.fields.map { $0.label + "\u{0}" + $0.value }
    }
}

/// One descriptor, its includes already merged.
public struct ClearSigningDescriptor: @unchecked Sendable {
    /// The merged JSON (read only).
    let root: [String: Any]
    public let file: String

    /// The most bytes a descriptor file may hold.
    public static let maximumBytes = 1 << 20

    /// Reads a descriptor; `included` is the file its `includes` names, already read (one level).
    public init(json: [UInt8], file: String, included: [UInt8]? = nil) throws(ClearSigningError) {
        func object(_ bytes: [UInt8], _ name: String) throws(ClearSigningError) -> [String: Any] {
            guard bytes.count <= Self.maximumBytes else {
                throw .malformed(file: name, reason: "expected at most \(Self.maximumBytes) bytes, got \(bytes.count)")
            }
            let any: Any
            do { any = try JSONText.parse(bytes) } catch { throw .malformed(file: name, reason: error.description) }
            guard let o = any as? [String: Any] else { throw .malformed(file: name, reason: "expected a JSON object") }
            return o
        }
        var root = try object(json, file)
        if let included { root = Self.merge(try object(included, "(included by \(file))"), over: root) }
        guard root["display"] is [String: Any] else {
            throw .malformed(file: file, reason: "expected display.formats (an ERC-7730 descriptor)")
        }
        self.root = root
        self.file = file
    }

    /// The relative path `includes` names, if any.
    public static func includes(_ json: [UInt8]) -> String? {
        ((try? JSONText.parse(json)) as? [String: Any])?["includes"] as? String
    }

    /// `top` over `base`: objects merged key by key, `fields` lists merged by `path`, `top` winning.
    static func merge(_ base: [String: Any], over top: [String: Any]) -> [String: Any] {
        var out = base
        for (k, v) in top {
            if let t = v as? [String: Any], let b = base[k] as? [String: Any] {
                out[k] = merge(b, over: t)
            } else if k == "fields", let t = v as? [[String: Any]], let b = base[k] as? [[String: Any]] {
                let paths = Set(t.compactMap { $0["path"] as? String })
                out[k] = b.filter { ($0["path"] as? String).map { !paths.contains($0) } ?? true } + t
            } else {
                out[k] = v
            }
        }
        return out
    }

    var owner: String? { (root["metadata"] as? [String: Any])?["owner"] as? String }
    var formats: [String: Any] { ((root["display"] as? [String: Any])?["formats"] as? [String: Any]) ?? [:] }
    var context: [String: Any] { (root["context"] as? [String: Any]) ?? [:] }

    static func deployments(_ node: [String: Any]?) -> [(UInt256, EthereumAddress)] {
        ((node?["deployments"] as? [[String: Any]]) ?? []).compactMap { d in
            guard let raw = d["chainId"], let chain = try? EthereumTransaction.quantity(raw, field: "chainId"),
                let text = d["address"] as? String, let address = try? EthereumAddress(text)
            else { return nil }
            return (chain, address)
        }
    }

    // MARK: Calls

    /// The call `data` to `to` on `chainID` (value `value`, from `from`) as the descriptor shows it;
    /// nil when the descriptor is not for this contract and chain, or has no format for the function.
    public func call(
        _ data: [UInt8], to: EthereumAddress, chainID: UInt256?, value: UInt256, from: EthereumAddress?,
        name: (EthereumAddress) -> String? = { _ in nil }
    ) -> ClearSigned? {
        guard let chainID,
            Self.deployments(context["contract"] as? [String: Any]).contains(where: { $0.0 == chainID && $0.1 == to })
        else { return nil }
        for (key, spec) in formats {
            guard let function = try? ABIFunction(key), data.count >= 4, function.selector == Array(data.prefix(4)),
                let values = try? function.decode(data), let spec = spec as? [String: Any]
            else { continue }
            let container = Container(to: to, from: from, value: value, chainID: chainID)
            return render(
                spec, data: .tuple(values.map { ($0.name, Resolved($0.value)) }), container: container, name: name)
        }
        return nil
    }

    // MARK: Messages

    /// EIP-712 `typed` as the descriptor shows it; nil when it is not for this domain and deployment.
    public func message(_ typed: TypedData, name: (EthereumAddress) -> String? = { _ in nil }) -> ClearSigned? {
        guard let eip712 = context["eip712"] as? [String: Any], case .object(let domain) = typed.domain else {
            return nil
        }
        let chain = SigningReview.number(domain["chainId"])
        let verifying = SigningReview.addressText(domain["verifyingContract"]).flatMap { try? EthereumAddress($0) }
        guard let chain, let verifying,
            Self.deployments(eip712).contains(where: { $0.0 == chain && $0.1 == verifying })
        else { return nil }
        for (k, v) in (eip712["domain"] as? [String: Any]) ?? [:] {
            guard let mine = domain[k], Resolved(mine).text == "\(v)" else { return nil }
        }
        let encodeType = try? typed.encodeType(typed.primaryType)
        guard let spec = (encodeType.flatMap { formats[$0] } ?? formats[typed.primaryType]) as? [String: Any] else {
            return nil
        }
        let container = Container(to: verifying, from: nil, value: .zero, chainID: chain)
        return render(spec, data: Resolved(typed.message), container: container, name: name)
    }

    // MARK: Rendering

    struct Container {
        let to: EthereumAddress
        let from: EthereumAddress?
        let value: UInt256
        let chainID: UInt256
    }

    func render(
        _ spec: [String: Any], data: Resolved, container: Container, name: (EthereumAddress) -> String?
    ) -> ClearSigned {
        var fields: [(label: String, value: String)] = []
        let excluded = Set(((spec["excluded"] as? [String]) ?? []).map(Self.strip))
        var byPath: [String: String] = [:]
        func walk(_ list: [[String: Any]], prefix: String) {
            for var field in list {
                if let ref = field["$ref"] as? String, let def = lookup(ref) as? [String: Any] {
                    field = Self.merge(def, over: field)
                }
                let path =
                    (field["path"] as? String).map { prefix.isEmpty ? $0 : prefix + "." + Self.strip($0) } ?? prefix
                if let nested = field["fields"] as? [[String: Any]] {
                    walk(nested, prefix: path)
                    continue
                }
                guard !excluded.contains(Self.strip(path)) else { continue }
                let value = resolve(path, data: data, container: container)
                guard let value, visible(field["visible"], value) else { continue }
                let text = format(value, field, data: data, container: container, name: name)
                byPath[Self.strip(path)] = text
                fields.append(((field["label"] as? String) ?? path, text))
            }
        }
        if let list = spec["fields"] as? [[String: Any]] {
            walk(list, prefix: "")
        } else if let map = spec["fields"] as? [String: Any] {
            // v1: an object keyed by path.
            walk(
                map.keys.sorted().compactMap { k in (map[k] as? [String: Any]).map { ["path": k].merging($0) { $1 } } },
                prefix: "")
        }
        var intent =
            (spec["intent"] as? String)
            ?? ((spec["intent"] as? [String: Any]).map {
                $0.map { "\($0.key): \($0.value)" }.sorted().joined(separator: ", ")
            }) ?? "(no intent)"
        if let template = spec["interpolatedIntent"] as? String, let filled = Self.interpolate(template, byPath) {
            intent = filled
        }
        return ClearSigned(intent: intent, owner: owner, fields: fields)
    }

    /// `{path}` replaced by the field shown at that path; `{{`/`}}` are braces; nil on any failure.
    static func interpolate(_ template: String, _ values: [String: String]) -> String? {
        var out = "", i = template.startIndex
        while i < template.endIndex {
            let c = template[i]
            let next = template.index(after: i)
            if c == "{" && next < template.endIndex && template[next] == "{" {
                out.append("{")
                i = template.index(after: next)
            } else if c == "}" && next < template.endIndex && template[next] == "}" {
                out.append("}")
                i = template.index(after: next)
            } else if c == "{" {
                guard let close = template[next...].firstIndex(of: "}"),
                    let v = values[strip(String(template[next..<close]))]
                else { return nil }
                out += v
                i = template.index(after: close)
            } else {
                out.append(c)
                i = next
            }
        }
        return out
    }

    /// A path without its `#.` root.
    static func strip(_ path: String) -> String { path.hasPrefix("#.") ? String(path.dropFirst(2)) : path }

    /// A `$.` reference into the descriptor itself.
    func lookup(_ ref: String) -> Any? {
        guard ref.hasPrefix("$.") else { return nil }
        var node: Any = root
        for part in ref.dropFirst(2).split(separator: ".") {
            guard let o = node as? [String: Any], let n = o[String(part)] else { return nil }
            node = n
        }
        return node
    }

    func resolve(_ path: String, data: Resolved, container: Container) -> Resolved? {
        if path.hasPrefix("@.") {
            switch path.dropFirst(2) {
            case "to": return .address(container.to)
            case "from": return container.from.map { .address($0) }
            case "value": return .int(container.value)
            case "chainId": return .int(container.chainID)
            default: return nil
            }
        }
        if path.hasPrefix("$.") { return lookup(path).map { Resolved(json: $0) } }
        var node = data
        for part in Self.strip(path).split(separator: ".") where !part.isEmpty {
            if part == "[]" { continue }
            if part.hasPrefix("[") && part.hasSuffix("]") {
                let inner = part.dropFirst().dropLast()
                if let colon = inner.firstIndex(of: ":"), case .bytes(let b) = node {
                    let a = Int(inner[..<colon]) ?? 0, z = Int(inner[inner.index(after: colon)...]) ?? b.count
                    guard a >= 0, z <= b.count, a <= z else { return nil }
                    node = .bytes(Array(b[a..<z]))
                } else if let i = Int(inner), case .list(let l) = node {
                    let k = i < 0 ? l.count + i : i
                    guard k >= 0, k < l.count else { return nil }
                    node = l[k]
                } else {
                    return nil
                }
            } else if case .tuple(let fields) = node, let v = fields.first(where: { $0.0 == part })?.1 {
                node = v
            } else if case .list(let l) = node {
                // `items.amount` over a list: each element's field.
                let each = l.compactMap { e -> Resolved? in
                    if case .tuple(let f) = e { return f.first { $0.0 == part }?.1 }
                    return nil
                }
                guard each.count == l.count else { return nil }
                node = .list(each)
            } else {
                return nil
            }
        }
        return node
    }

    func visible(_ rule: Any?, _ value: Resolved) -> Bool {
        switch rule {
        case let s as String: return s != "never"
        case let o as [String: Any]:
            if let not = o["ifNotIn"] as? [Any] { return !not.map { "\($0)" }.contains(value.text) }
            return true
        default: return true
        }
    }

    /// A field's parameter, a `$.` reference followed into the descriptor.
    func parameter(_ params: [String: Any], _ key: String) -> Any? {
        guard let v = params[key] else { return nil }
        if let ref = v as? String, ref.hasPrefix("$.") { return lookup(ref) }
        return v
    }

    /// `value` as `field`'s format shows it; `data` is what the field's path parameters
    /// (`tokenPath`, `collectionPath`) are resolved in, as the field's own path was.
    func format(
        _ value: Resolved, _ field: [String: Any], data: Resolved, container: Container,
        name: (EthereumAddress) -> String?
    ) -> String {
        let params = (field["params"] as? [String: Any]) ?? [:]
        if case .list(let items) = value {
            return items.map { format($0, field, data: data, container: container, name: name) }
                .joined(separator: "; ")
        }
        let symbol = EthereumChain.symbol(container.chainID)
        switch (field["format"] as? String, value) {
        case ("amount", .int(let n)):
            return SigningReview.amount(n, symbol: symbol)
        case ("tokenAmount", .int(let n)):
            let tokenValue =
                parameter(params, "token").map { Resolved(json: $0) }
                ?? (params["tokenPath"] as? String).flatMap { resolve($0, data: data, container: container) }
            let tokenAddress: EthereumAddress? = if case .address(let a)? = tokenValue { a } else { nil }
            if let threshold = parameter(params, "threshold"),
                let limit = try? EthereumTransaction.quantity(threshold, field: "threshold"), n >= limit
            {
                return ((params["message"] as? String) ?? "Unlimited") + " (\(n))"
            }
            if let a = tokenAddress, let token = KnownToken.find(a, chainID: container.chainID) {
                return token.format(n)
            }
            return "\(n) raw units of token \(tokenAddress?.checksummed ?? "?") (its decimals are not known to kcs)"
        case ("date", .int(let n)):
            return (params["encoding"] as? String) == "blockheight" ? "block \(n)" : SigningReview.date(n)
        case ("duration", .int(let n)):
            guard var s = n.uint64 else { return n.description + " s" }
            var parts: [String] = []
            for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60)] as [(String, UInt64)] where s >= size {
                parts.append("\(s / size)\(unit)")
                s %= size
            }
            if s > 0 || parts.isEmpty { parts.append("\(s)s") }
            return parts.joined(separator: " ")
        case ("unit", .int(let n)):
            let decimals = (params["decimals"] as? Int) ?? 0
            return SigningReview.grouped(EthereumUnits.format(n, decimals: decimals))
                + ((params["base"] as? String).map { " " + $0 } ?? "")
        case ("enum", let v):
            if let table = parameter(params, "$ref") as? [String: Any], let label = table[v.text] {
                return "\(label)"
            }
            return v.text
        case ("chainId", .int(let n)):
            return EthereumChain.label(n)
        case ("addressName", .address(let a)):
            return a.checksummed + (name(a).map { " (your key \($0))" } ?? "")
        case ("calldata", .bytes(let b)):
            return "\(b.count) bytes of call data"
                + (b.count >= 4 ? ", selector 0x\(Hex.encode(Array(b.prefix(4))))" : "")
        case ("nftName", .int(let n)):
            let collection = (params["collectionPath"] as? String).flatMap {
                resolve($0, data: data, container: container)
            }
            return "#\(n)" + (collection.map { " of collection \($0.text)" } ?? "")
        default:
            return value.text
        }
    }
}

/// A value a path reaches: from decoded call data, typed data or the descriptor itself.
indirect enum Resolved {
    case int(UInt256)
    case signed(String)
    case address(EthereumAddress)
    case bytes([UInt8])
    case string(String)
    case bool(Bool)
    case list([Resolved])
    case tuple([(String, Resolved)])

    init(_ v: ABIValue) {
        switch v {
        case .address(let a): self = .address(a)
        case .bool(let b): self = .bool(b)
        case .uint(let n): self = .int(n)
        case .int: self = .signed(v.text)
        case .bytes(let b): self = .bytes(b)
        case .string(let s): self = .string(s)
        case .array(let a): self = .list(a.map(Resolved.init))
        case .tuple(let f): self = .tuple(f.map { ($0.name, Resolved($0.value)) })
        }
    }

    init(_ v: TypedDataValue) {
        switch v {
        case .null: self = .string("null")
        case .bool(let b): self = .bool(b)
        case .integer(let s), .inexactNumber(let s): self = (try? EthereumUnits.parse(s)).map { .int($0) } ?? .string(s)
        case .string(let s):
            if s.count == 42, let a = try? EthereumAddress(s) {
                self = .address(a)
            } else if s.hasPrefix("0x"), let b = try? Hex.decode(s) {
                self = .bytes(b)
            } else if let n = try? EthereumUnits.parse(s), s.allSatisfy(\.isNumber) {
                self = .int(n)
            } else {
                self = .string(s)
            }
        case .array(let a): self = .list(a.map(Resolved.init))
        case .object(let o): self = .tuple(o.keys.sorted().map { ($0, Resolved(o[$0]!)) })
        }
    }

    init(json: Any) { self.init(TypedDataValue(jsonObject: json)) }

    var text: String {
        switch self {
        case .int(let n): n.description
        case .signed(let s), .string(let s): s
        case .address(let a): a.checksummed
        case .bytes(let b): "0x" + Hex.encode(b)
        case .bool(let b): b ? "true" : "false"
        case .list(let l): "[" + l.map(\.text).joined(separator: ", ") + "]"
        case .tuple(let f): "(" + f.map(\.1.text).joined(separator: ", ") + ")"
        }
    }
}

extension SigningReview {
    /// Adds what a descriptor makes of the call or message, or says it does not cover it.
    /// `what` names what a descriptor that does not apply leaves uncovered: `call` or `message`.
    public mutating func addClearSigned(_ clear: ClearSigned?, descriptor: ClearSigningDescriptor, what: String) {
        guard let clear else {
            add("clear signing", "\(descriptor.file) does not cover this \(what): shown as kcs decodes it")
            return
        }
        add("clear signing", clear.intent + (clear.owner.map { " (descriptor of \($0))" } ?? ""))
        for f in clear.fields { add(f.label, f.value, depth: 1) }
    }
}
