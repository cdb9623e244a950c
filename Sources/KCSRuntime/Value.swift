import BigInt

/// A value of the kcs language. Integers are exact at any size (wei amounts are 256-bit):
/// `int` holds every value that fits a machine word and `bigInt` only the rest, so the common
/// case stays unboxed and two equal integers always have the same case.
public enum Value: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    // The three rare, large payloads are boxed (`indirect`) so a `Value` is 17 bytes and a
    // copy is at most one retain: this keeps the interpreter's hot paths cheap.
    indirect case bigInt(BigInt)
    case string(String)
    case bytes([UInt8])
    case list([Value])
    case map(ValueMap)
    indirect case secret(SecretValue)
    indirect case domain(any DomainValue)

    /// The integer `n`, in its canonical case.
    public static func integer(_ n: BigInt) -> Value {
        if let small = Int(exactly: n) { return .int(small) }
        return .bigInt(n)
    }

    /// The language's name for the value's type (what `type(x)` returns).
    public var typeName: String {
        switch self {
        case .null: "nil"
        case .bool: "bool"
        case .int, .bigInt: "int"
        case .string: "string"
        case .bytes: "bytes"
        case .list: "list"
        case .map: "map"
        case .secret(let s): "secret \(s.kind)"
        case .domain(let d): d.typeName
        }
    }

    /// The integer value as a BigInt, or nil for a non-integer.
    public var bigIntValue: BigInt? {
        switch self {
        case .int(let n): BigInt(n)
        case .bigInt(let n): n
        default: nil
        }
    }
}

// MARK: - Integer arithmetic with promotion

extension Value {
    /// Errors of integer arithmetic; the interpreter turns them into positioned runtime errors.
    public enum ArithmeticError: Error, Equatable, Sendable {
        case divisionByZero
        case notIntegers(String, String)
    }

    private static func bigOperands(_ a: Value, _ b: Value) throws(ArithmeticError) -> (BigInt, BigInt) {
        guard let x = a.bigIntValue, let y = b.bigIntValue else { throw .notIntegers(a.typeName, b.typeName) }
        return (x, y)
    }

    /// a + b, exact.
    public static func add(_ a: Value, _ b: Value) throws(ArithmeticError) -> Value {
        if case .int(let x) = a, case .int(let y) = b {
            let (r, o) = x.addingReportingOverflow(y)
            if !o { return .int(r) }
        }
        let (x, y) = try bigOperands(a, b)
        return integer(x + y)
    }

    /// a − b, exact.
    public static func subtract(_ a: Value, _ b: Value) throws(ArithmeticError) -> Value {
        if case .int(let x) = a, case .int(let y) = b {
            let (r, o) = x.subtractingReportingOverflow(y)
            if !o { return .int(r) }
        }
        let (x, y) = try bigOperands(a, b)
        return integer(x - y)
    }

    /// a × b, exact.
    public static func multiply(_ a: Value, _ b: Value) throws(ArithmeticError) -> Value {
        if case .int(let x) = a, case .int(let y) = b {
            let (r, o) = x.multipliedReportingOverflow(by: y)
            if !o { return .int(r) }
        }
        let (x, y) = try bigOperands(a, b)
        return integer(x * y)
    }

    /// ⌊a / b⌋ (floor division, so `-7 / 2 == -4` and `a == (a / b) * b + a % b`).
    public static func divide(_ a: Value, _ b: Value) throws(ArithmeticError) -> Value {
        let (x, y) = try bigOperands(a, b)
        guard !y.isZero else { throw .divisionByZero }
        var (q, r) = x.quotientAndRemainder(dividingBy: y)
        if !r.isZero && (r.sign == .minus) != (y.sign == .minus) {
            q -= 1
            r += y
        }
        return integer(q)
    }

    /// a mod b with the sign of b (pairs with floor division).
    public static func remainder(_ a: Value, _ b: Value) throws(ArithmeticError) -> Value {
        let (x, y) = try bigOperands(a, b)
        guard !y.isZero else { throw .divisionByZero }
        var r = x % y
        if !r.isZero && (r.sign == .minus) != (y.sign == .minus) { r += y }
        return integer(r)
    }

    /// Compares two integers: −1, 0 or 1.
    public static func compareIntegers(_ a: Value, _ b: Value) throws(ArithmeticError) -> Int {
        if case .int(let x) = a, case .int(let y) = b { return x < y ? -1 : (x == y ? 0 : 1) }
        let (x, y) = try bigOperands(a, b)
        return x < y ? -1 : (x == y ? 0 : 1)
    }
}

// MARK: - Equality

extension Value: Equatable {
    /// Structural equality; secrets compare in constant time; domain values by their text.
    public static func == (a: Value, b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.int(let x), .int(let y)): x == y
        case (.bigInt(let x), .bigInt(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.bytes(let x), .bytes(let y)): x == y
        case (.list(let x), .list(let y)): x == y
        case (.map(let x), .map(let y)): x == y
        case (.secret(let x), .secret(let y)): x.kind == y.kind && x.payload.isEqual(to: y.payload)
        case (.domain(let x), .domain(let y)): x.typeName == y.typeName && x.text == y.text
        default: false
        }
    }
}

// MARK: - Maps, secrets, domain values

/// A map with string keys that keeps insertion order (so output is stable).
public struct ValueMap: Sendable, Equatable {
    public private(set) var keys: [String] = []
    private var storage: [String: Value] = [:]

    public init() {}

    /// A map from ordered pairs; a repeated key keeps its first position and its last value.
    public init(_ pairs: [(String, Value)]) {
        for (k, v) in pairs { self[k] = v }
    }

    public subscript(key: String) -> Value? {
        get { storage[key] }
        set {
            if let newValue {
                if storage.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if storage.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// Number of entries.
    public var count: Int { keys.count }

    /// Entries in insertion order.
    public var pairs: [(key: String, value: Value)] { keys.map { ($0, storage[$0]!) } }

    public static func == (a: ValueMap, b: ValueMap) -> Bool { a.keys == b.keys && a.storage == b.storage }
}

/// The bytes behind a secret value. The language never looks inside (it knows nothing about
/// wallets, STYLE §1); the builtins layer conforms WalletCrypto's `Secret` to this.
public protocol SecretPayload: Sendable {
    /// Length in bytes, the only fact renderings may show.
    var byteCount: Int { get }
    /// Constant-time equality with another payload of the same type.
    func isEqual(to other: any SecretPayload) -> Bool
}

/// A secret held by the language: a mnemonic, a private key, a PIN, a password, a seed. It
/// renders as `<secret mnemonic>` everywhere (text, JSON, errors, history) unless a builtin
/// reveals it on purpose.
public struct SecretValue: Sendable {
    /// What the secret is, e.g. "mnemonic", "private key", "PIN".
    public let kind: String
    /// The bytes, opaque to the language.
    public let payload: any SecretPayload

    public init(kind: String, payload: any SecretPayload) {
        self.kind = kind
        self.payload = payload
    }

    /// The only rendering a secret has.
    public var redacted: String { "<secret \(kind)>" }
}

/// A value a builtin namespace registers (path, address, HD key, signature, card, …). The
/// language only needs its type name, a one-line text, its fields (for `x.field` and tables)
/// and a JSON form.
public protocol DomainValue: Sendable {
    /// Type name as `type(x)` shows it.
    var typeName: String { get }
    /// One-line rendering.
    var text: String { get }
    /// Named fields in display order (empty for scalar-like values).
    var fields: [(name: String, value: Value)] { get }
    /// The field called `name`, if any: what `value.name` reads. A value whose fields cost
    /// something to make answers one without making the others.
    func field(_ name: String) -> Value?
}

/// A value shown as a drawing (a QR code): drawn for the display it is shown on when printed
/// or shown at the top level; its `text` is the drawing without colour.
public protocol DrawnValue: DomainValue {
    func drawing(on display: Display) -> String
}

extension DomainValue {
    public var fields: [(name: String, value: Value)] { [] }

    public func field(_ name: String) -> Value? { fields.first { $0.name == name }?.value }
}
