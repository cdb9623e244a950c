import Foundation

/// Loads published test vectors copied into a test target's `Vectors/` folder.
/// Files are found relative to the calling test file (`#filePath`), not through
/// resource bundles (STYLE §2), so tests run the same under any build system.
public enum Vectors {
    /// The parsed JSON in `Vectors/<name>` beside `file`.
    public static func json(_ name: String, file: StaticString = #filePath) -> JSON {
        let url = folder(file).appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            fatalError("test vector file missing: \(url.path)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            fatalError("test vector file is not JSON: \(url.path)")
        }
        return JSON(object)
    }

    /// The text of `Vectors/<name>` beside `file`.
    public static func text(_ name: String, file: StaticString = #filePath) -> String {
        let url = folder(file).appendingPathComponent(name)
        guard let s = try? String(contentsOf: url, encoding: .utf8) else {
            fatalError("test vector file missing: \(url.path)")
        }
        return s
    }

    /// The `Vectors` folder next to `file`.
    public static func folder(_ file: StaticString) -> URL {
        URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("Vectors")
    }
}

/// A JSON value that is `Sendable`, so vector rows can be `@Test(arguments:)`.
/// Accessors fail loudly on a missing or mistyped field: a broken vector file must
/// never make a test pass silently.
public enum JSON: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// Converts the output of `JSONSerialization`.
    public init(_ any: Any) {
        switch any {
        case let s as String: self = .string(s)
        case let n as NSNumber:
            switch String(cString: n.objCType) {
            case "c", "B": self = .bool(n.boolValue)
            case "f", "d": self = .double(n.doubleValue)
            default: self = .int(n.intValue)
            }
        case let a as [Any]: self = .array(a.map(JSON.init))
        case let o as [String: Any]: self = .object(o.mapValues(JSON.init))
        default: self = .null
        }
    }

    /// The field `key` of an object, or nil.
    public subscript(key: String) -> JSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// True when the object has `key`.
    public func has(_ key: String) -> Bool { self[key] != nil }

    /// A string field.
    public func string(_ key: String) -> String {
        guard case .string(let s)? = self[key] else { fatalError("vector field \(key) missing or not a string") }
        return s
    }

    /// An optional string field.
    public func optionalString(_ key: String) -> String? {
        if case .string(let s)? = self[key] { return s }
        return nil
    }

    /// An integer field.
    public func int(_ key: String) -> Int {
        guard case .int(let i)? = self[key] else { fatalError("vector field \(key) missing or not an integer") }
        return i
    }

    /// A boolean field.
    public func bool(_ key: String) -> Bool {
        guard case .bool(let b)? = self[key] else { fatalError("vector field \(key) missing or not a boolean") }
        return b
    }

    /// A nested object field.
    public func object(_ key: String) -> JSON {
        guard let v = self[key], case .object = v else { fatalError("vector field \(key) missing or not an object") }
        return v
    }

    /// A list field (elements of any kind).
    public func array(_ key: String) -> [JSON] {
        guard case .array(let a)? = self[key] else { fatalError("vector field \(key) missing or not a list") }
        return a
    }

    /// A list-of-objects field (same as `array`, named for readability).
    public func objects(_ key: String) -> [JSON] { array(key) }

    /// A list-of-strings field.
    public func strings(_ key: String) -> [String] { array(key).map(\.stringValue) }

    /// This value as a string.
    public var stringValue: String {
        guard case .string(let s) = self else { fatalError("vector value is not a string: \(self)") }
        return s
    }

    /// This value as a list.
    public var arrayValue: [JSON] {
        guard case .array(let a) = self else { fatalError("vector value is not a list: \(self)") }
        return a
    }

    /// This value as an integer.
    public var intValue: Int {
        guard case .int(let i) = self else { fatalError("vector value is not an integer: \(self)") }
        return i
    }

    /// The keys of an object.
    public var keys: [String] {
        if case .object(let o) = self { return o.keys.sorted() }
        return []
    }

    /// Short label for test output: a row's `name`/`description`/`path` when it has one.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return "\(b)"
        case .int(let i): return "\(i)"
        case .double(let d): return "\(d)"
        case .string(let s): return s.count > 60 ? String(s.prefix(57)) + "…" : s
        case .array(let a): return "[\(a.count) items]"
        case .object(let o):
            for k in ["name", "description", "reason", "path", "address", "string", "mnemonic", "msg_hex"] {
                if case .string(let s)? = o[k] { return s.count > 60 ? String(s.prefix(57)) + "…" : s }
            }
            return "{\(o.keys.sorted().prefix(4).joined(separator: ", "))}"
        }
    }
}

/// Strips an optional 0x and lower-cases, for comparing hex written in any style.
public func normHex(_ s: String) -> String {
    (s.hasPrefix("0x") || s.hasPrefix("0X") ? String(s.dropFirst(2)) : s).lowercased()
}

/// Runs `body` and returns the typed error it threw, or nil when it did not throw; for
/// asserting on an error's `id` and rendered message together.
public func caught<E: Error>(_ body: () throws(E) -> Void) -> E? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}
