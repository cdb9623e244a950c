import BigInt
import KCSRuntime
import WalletCrypto

// Small readers for the bodies of builtin tables. `Builtin.bind` has already checked every
// argument against its declared type, so these only unwrap; a mismatch here means the table
// and the body disagree, which a test catches.

extension CallArguments {
    /// The argument or option `name` (options are looked up when no argument has the name).
    func value(_ name: String) -> Value? {
        switch values[name] ?? options[name] {
        case .none, .some(.null): nil
        case .some(let v): v
        }
    }

    /// The string argument or option `name`, if given.
    func string(_ name: String) -> String? {
        if case .string(let s) = value(name) { return s }
        return nil
    }

    /// The integer argument or option `name`, if given.
    func integer(_ name: String) -> BigInt? { value(name)?.bigIntValue }

    /// The integer option `name` whose table entry declares its range (`OptionSpec(in:)`), which
    /// `bind` has checked: it fits an `Int`.
    func int(_ name: String) -> Int? { integer(name).flatMap { Int(exactly: $0) } }

    /// The list argument `name` (empty when absent).
    /// A message given as text (its UTF-8 bytes, even when it looks like hex) or as bytes.
    func textOrBytes(_ name: String) -> [UInt8] {
        switch value(name) {
        case .bytes(let b)?: b
        case .string(let s)?: Array(s.utf8)
        default: []
        }
    }

    func list(_ name: String) -> [Value] {
        if case .list(let l) = value(name) { return l }
        return []
    }

    /// The map argument `name` (empty when absent).
    func map(_ name: String) -> ValueMap {
        if case .map(let m) = value(name) { return m }
        return ValueMap()
    }

    /// The domain value of type `T` in argument or option `name`.
    func domain<T: DomainValue>(_ name: String, as type: T.Type) -> T? {
        if case .domain(let d) = value(name) { return d as? T }
        return nil
    }
}

extension Builtins {
    /// A secret's `Secret` payload, or an error when another layer made it.
    static func secretBytes(_ s: SecretValue) throws(BuiltinError) -> Secret {
        guard let secret = s.walletSecret else { throw .foreignSecret(kind: s.kind) }
        return secret
    }

    /// A non-negative integer argument that fits an `Int`, or an error naming it.
    static func smallInt(_ n: BigInt, _ name: String, in range: ClosedRange<Int>) throws(BuiltinError) -> Int {
        guard let v = Int(exactly: n), range.contains(v) else {
            throw .outOfRange(
                name: name, expected: "\(range.lowerBound) to \(range.upperBound)",
                got: String(n))
        }
        return v
    }

    /// Big-endian magnitude bytes of `n` (at least one byte).
    static func bigEndian(_ n: BigInt) -> [UInt8] {
        var digits = String(n.magnitude, radix: 16)
        if digits.count % 2 == 1 { digits = "0" + digits }
        return (try? Hex.decode(digits)) ?? [0]
    }

    /// The unsigned integer whose big-endian bytes are `bytes` (0 for none).
    static func integer(bigEndian bytes: [UInt8]) -> BigInt {
        bytes.isEmpty ? 0 : BigInt(BigUInt(Hex.encode(bytes), radix: 16) ?? 0)
    }
}
