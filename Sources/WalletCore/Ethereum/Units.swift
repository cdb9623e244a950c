// Ethereum quantities: a minimal 256-bit unsigned integer (WalletCore has no BigInt) and the
// parser for amounts as people write them — "21000", "20 gwei", "1.5 ether", "0x5208".
// Unit names and their powers of ten follow the ethers.js / web3 unit table
// (wei 0, kwei 3, mwei 6, gwei 9, szabo 12, finney 15, ether 18).

// MARK: - UInt256

/// An unsigned 256-bit integer: the type of every Ethereum quantity (value, fees, gas,
/// chain id) and of EIP-712 `uint256`. Only what the signing code needs: conversion to
/// and from big-endian bytes, decimal and hex text, small multiplications and additions
/// with overflow reporting, comparison, halving and two's complement negation.
public struct UInt256: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Four 64-bit limbs, least significant first.
    var limbs: [UInt64]

    /// Zero.
    public static let zero = UInt256(limbs: [0, 0, 0, 0])
    /// 2^256 − 1.
    public static let max = UInt256(limbs: [.max, .max, .max, .max])

    init(limbs: [UInt64]) { self.limbs = limbs }

    /// A value that fits in 64 bits.
    public init(_ value: UInt64) { limbs = [value, 0, 0, 0] }

    /// Big-endian bytes of at most 32 significant bytes (leading zero bytes are ignored);
    /// nil when the number needs more than 256 bits.
    public init?(bigEndian bytes: [UInt8]) {
        let significant = bytes.drop { $0 == 0 }
        guard significant.count <= 32 else { return nil }
        var limbs: [UInt64] = [0, 0, 0, 0]
        for (i, byte) in significant.reversed().enumerated() {
            limbs[i / 8] |= UInt64(byte) << (UInt64(i % 8) * 8)
        }
        self.limbs = limbs
    }

    /// Parses decimal digits (no sign, no separators); nil for an empty string, a non-digit
    /// or a value of 2^256 or more.
    public init?(decimal text: String) {
        guard !text.isEmpty else { return nil }
        var value = UInt256.zero
        for c in text.utf8 {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt256(UInt64(c - UInt8(ascii: "0"))))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        self = value
    }

    /// The 32-byte big-endian form.
    public var bigEndianBytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 { out[31 - i] = UInt8(truncatingIfNeeded: limbs[i / 8] >> (UInt64(i % 8) * 8)) }
        return out
    }

    /// Big-endian bytes without leading zeros; zero is no bytes (the RLP integer form).
    public var minimalBigEndianBytes: [UInt8] { Array(bigEndianBytes.drop { $0 == 0 }) }

    /// True for zero.
    public var isZero: Bool { limbs.allSatisfy { $0 == 0 } }

    /// The number of significant bits (0 for zero).
    public var bitWidth: Int {
        for i in stride(from: 3, through: 0, by: -1) where limbs[i] != 0 {
            return i * 64 + (64 - limbs[i].leadingZeroBitCount)
        }
        return 0
    }

    /// The value as a `UInt64` when it fits.
    public var uint64: UInt64? { limbs[1] == 0 && limbs[2] == 0 && limbs[3] == 0 ? limbs[0] : nil }

    /// self × m, and whether the result wrapped past 2^256.
    public func multipliedReportingOverflow(by m: UInt64) -> (UInt256, Bool) {
        var out: [UInt64] = [0, 0, 0, 0]
        var carry: UInt64 = 0
        for i in 0..<4 {
            let (high, low) = limbs[i].multipliedFullWidth(by: m)
            let (sum, o) = low.addingReportingOverflow(carry)
            out[i] = sum
            carry = high &+ (o ? 1 : 0)
        }
        return (UInt256(limbs: out), carry != 0)
    }

    /// self + other, and whether the result wrapped past 2^256.
    public func addingReportingOverflow(_ other: UInt256) -> (UInt256, Bool) {
        var out: [UInt64] = [0, 0, 0, 0]
        var carry = false
        for i in 0..<4 {
            let (s1, o1) = limbs[i].addingReportingOverflow(other.limbs[i])
            let (s2, o2) = s1.addingReportingOverflow(carry ? 1 : 0)
            out[i] = s2
            carry = o1 || o2
        }
        return (UInt256(limbs: out), carry)
    }

    /// self − other, and whether it went below zero (the result then wraps).
    public func subtractingReportingOverflow(_ other: UInt256) -> (UInt256, Bool) {
        var out: [UInt64] = [0, 0, 0, 0]
        var borrow = false
        for i in 0..<4 {
            let (d1, o1) = limbs[i].subtractingReportingOverflow(other.limbs[i])
            let (d2, o2) = d1.subtractingReportingOverflow(borrow ? 1 : 0)
            out[i] = d2
            borrow = o1 || o2
        }
        return (UInt256(limbs: out), borrow)
    }

    /// 2^256 − self (mod 2^256): the two's complement bit pattern of −self.
    public var twosComplementNegated: UInt256 { UInt256.zero.subtractingReportingOverflow(self).0 }

    /// self / d and self mod d for a small divisor d > 0.
    public func quotientAndRemainder(dividingBy d: UInt64) -> (quotient: UInt256, remainder: UInt64) {
        precondition(d != 0, "division by zero")
        var out: [UInt64] = [0, 0, 0, 0]
        var rem: UInt64 = 0
        for i in stride(from: 3, through: 0, by: -1) {
            let (q, r) = d.dividingFullWidth((high: rem, low: limbs[i]))
            out[i] = q
            rem = r
        }
        return (UInt256(limbs: out), rem)
    }

    /// Decimal digits.
    public var description: String {
        if isZero { return "0" }
        var digits = [UInt8]()
        var rest = self
        while !rest.isZero {
            let (q, r) = rest.quotientAndRemainder(dividingBy: 10)
            digits.append(UInt8(ascii: "0") + UInt8(r))
            rest = q
        }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }

    /// `0x` and minimal lower-case hex digits (`0x0` for zero), the JSON-RPC quantity form.
    public var hexQuantity: String {
        let hex = Hex.encode(minimalBigEndianBytes)
        let trimmed = hex.drop { $0 == "0" }
        return "0x" + (trimmed.isEmpty ? "0" : trimmed)
    }

    public static func < (a: UInt256, b: UInt256) -> Bool {
        for i in stride(from: 3, through: 0, by: -1) where a.limbs[i] != b.limbs[i] {
            return a.limbs[i] < b.limbs[i]
        }
        return false
    }
}

// MARK: - Units

/// Amounts and other quantities as a user writes them.
public enum EthereumUnits {
    /// The unit names kcs understands and their power of ten (ethers.js / web3 table).
    public static let units: [(name: String, decimals: Int)] = [
        ("wei", 0), ("kwei", 3), ("mwei", 6), ("gwei", 9), ("szabo", 12), ("finney", 15), ("ether", 18),
    ]

    /// Parses `text` into a 256-bit quantity:
    /// - `0x` + hex digits (at most 256 bits);
    /// - decimal digits, meaning wei (`21000`);
    /// - a decimal number, optionally with a fraction, a space (optional) and a unit
    ///   (`20 gwei`, `1.5 ether`, `0.000000001ether`); the fraction may not have more
    ///   digits than the unit has decimals, since a quantity is a whole number of wei.
    ///
    /// Errors (each names the input): empty, negative, malformed, unknown unit, too many
    /// decimals for the unit, and 2^256 or more.
    public static func parse(_ text: String) throws(EthereumError) -> UInt256 {
        let input = text
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { throw .unitsEmpty }
        if trimmed.hasPrefix("-") { throw .unitsNegative(input: input) }
        if trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") {
            let digits = trimmed.dropFirst(2)
            guard !digits.isEmpty else { throw .unitsMalformed(input: input, reason: "no hex digits after 0x") }
            guard digits.allSatisfy(\.isHexDigit) else {
                throw .unitsMalformed(
                    input: input, reason: "\"\(digits.first { !$0.isHexDigit }!)\" is not a hex digit")
            }
            let significant = digits.drop { $0 == "0" }
            guard significant.count <= 64 else { throw .unitsTooLarge(input: input) }
            let padded = significant.count % 2 == 1 ? "0" + significant : String(significant)
            guard let bytes = try? Hex.decode(padded), let value = UInt256(bigEndian: bytes) else {
                throw .unitsTooLarge(input: input)
            }
            return value
        }
        // Split the number from the unit.
        let numberPart = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let unitPart = trimmed.dropFirst(numberPart.count).trimmingSpaces.lowercased()
        guard !numberPart.isEmpty else {
            throw .unitsMalformed(input: input, reason: "expected a number, \"0x\" hex, or a number and a unit")
        }
        var decimals = 0
        var unitName = "wei"
        if !unitPart.isEmpty {
            guard let unit = units.first(where: { $0.name == unitPart }) else {
                throw .unitsUnknownUnit(input: input, unit: unitPart)
            }
            decimals = unit.decimals
            unitName = unit.name
        }
        let pieces = numberPart.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count <= 2 else { throw .unitsMalformed(input: input, reason: "more than one decimal point") }
        let whole = String(pieces[0])
        let fraction = pieces.count == 2 ? String(pieces[1]) : ""
        guard !whole.isEmpty || !fraction.isEmpty, pieces.count == 1 || !fraction.isEmpty || !whole.isEmpty else {
            throw .unitsMalformed(input: input, reason: "no digits")
        }
        if pieces.count == 2 && fraction.isEmpty {
            throw .unitsMalformed(input: input, reason: "no digits after the decimal point")
        }
        let fractionDigits = fraction.reversed().drop { $0 == "0" }.reversed()
        guard fractionDigits.count <= decimals else {
            throw .unitsTooManyDecimals(input: input, unit: unitName, allowed: decimals)
        }
        let digits =
            (whole.isEmpty ? "0" : whole) + String(fractionDigits)
            + String(repeating: "0", count: decimals - fractionDigits.count)
        guard let value = UInt256(decimal: digits) else { throw .unitsTooLarge(input: input) }
        return value
    }
}

extension EthereumUnits {
    /// `wei` as a decimal number of `unit` without trailing zeros: 1500000000000000000 wei in
    /// ether is "1.5", 21000 gwei-wei is "0.000021". An unknown unit formats as wei.
    public static func format(_ wei: UInt256, unit: String) -> String {
        format(wei, decimals: units.first { $0.name == unit }?.decimals ?? 0)
    }

    /// `amount` / 10^decimals in decimal, without trailing zeros: (240000000000000000, 18) → 0.24.
    public static func format(_ wei: UInt256, decimals: Int) -> String {
        let digits = wei.description
        guard decimals > 0 else { return digits }
        let padded = String(repeating: "0", count: max(0, decimals + 1 - digits.count)) + digits
        let whole = padded.dropLast(decimals)
        let fraction = padded.suffix(decimals).reversed().drop { $0 == "0" }.reversed()
        return fraction.isEmpty ? String(whole) : whole + "." + String(fraction)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
