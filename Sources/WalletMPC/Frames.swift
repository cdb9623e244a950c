import Foundation
import WalletCrypto

// The wire: 4-byte big-endian length ‖ canonical JSON (sorted keys, no whitespace), at most 1 MiB
// (docs/two-party-protocol.md §2). A frame's fields are strings (hex or names), small numbers,
// lists and objects; anything else is refused.

/// One JSON value of a frame.
public indirect enum WireValue: Sendable, Equatable {
    case string(String)
    case int(Int)
    case list([WireValue])
    case object([String: WireValue])

    static func hex(_ bytes: [UInt8]) -> WireValue { .string(Hex.encode(bytes)) }

    /// Canonical JSON text.
    func write(into out: inout String) {
        switch self {
        case .string(let s): out += JSONCanon.quoted(s)
        case .int(let n): out += String(n)
        case .list(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            // Sorted by the keys' UTF-16 code units, as Python's sort_keys does for ASCII keys.
            for (i, key) in fields.keys.sorted(by: { Array($0.utf16).lexicographicallyPrecedes(Array($1.utf16)) })
                .enumerated()
            {
                if i > 0 { out += "," }
                out += JSONCanon.quoted(key) + ":"
                fields[key]!.write(into: &out)
            }
            out += "}"
        }
    }

    static func from(_ any: Any) throws(MPCError) -> WireValue {
        switch any {
        case let s as String: return .string(s)
        case let n as NSNumber:
            // JSON's true/false arrive as NSNumbers of type "c", fractions as "d".
            let kind = String(cString: n.objCType)
            guard kind != "c", kind != "d", kind != "f", let i = Int(exactly: n.int64Value), n.stringValue == String(i)
            else { throw .badFrame(reason: "a number that is not a small integer") }
            return .int(i)
        case let a as [Any]:
            var out: [WireValue] = []
            for x in a { out.append(try from(x)) }
            return .list(out)
        case let d as [String: Any]:
            var out: [String: WireValue] = [:]
            for (k, v) in d { out[k] = try from(v) }
            return .object(out)
        default: throw .badFrame(reason: "a JSON value kcs-2pecdsa does not use (null, true/false, a fraction)")
        }
    }
}

enum JSONCanon {
    /// A JSON string literal as Python's `json.dumps(ensure_ascii=False)` writes it: `"` and `\`
    /// escaped, \b \f \n \r \t by name, other control characters as \u00xx, the rest as UTF-8.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                out += String(format: "\\u%04x", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}

/// A frame: `v` 1, `type`, `step`, `sid` (the initiator's nonce) and the step's fields.
public struct Frame: Sendable, Equatable {
    public static let maxSize = 1 << 20

    public var type: String
    public var step: Int
    public var sid: [UInt8]
    public var fields: [String: WireValue]

    public init(type: String, step: Int, sid: [UInt8], fields: [String: WireValue] = [:]) {
        self.type = type
        self.step = step
        self.sid = sid
        self.fields = fields
    }

    /// The canonical JSON (without the length prefix).
    public var json: [UInt8] {
        var all = fields
        all["v"] = .int(1)
        all["type"] = .string(type)
        all["step"] = .int(step)
        all["sid"] = .hex(sid)
        var out = ""
        WireValue.object(all).write(into: &out)
        return Array(out.utf8)
    }

    /// Length prefix ‖ JSON.
    public var encoded: [UInt8] {
        let body = json
        let n = UInt32(body.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] + body
    }

    /// Parses one frame's JSON (the length prefix already taken off).
    public init(json: [UInt8]) throws(MPCError) {
        guard json.count <= Self.maxSize else {
            throw .badFrame(reason: "a frame of \(json.count) bytes (at most 1 MiB)")
        }
        let any: Any
        do { any = try JSONSerialization.jsonObject(with: Data(json)) } catch {
            throw .badFrame(reason: "not JSON")
        }
        guard case .object(var all) = try WireValue.from(any) else { throw .badFrame(reason: "not a JSON object") }
        guard all.removeValue(forKey: "v") == .int(1) else { throw .badFrame(reason: "v is not 1") }
        guard case .string(let type)? = all.removeValue(forKey: "type") else { throw .badFrame(reason: "no type") }
        guard case .int(let step)? = all.removeValue(forKey: "step") else { throw .badFrame(reason: "no step") }
        guard case .string(let sidHex)? = all.removeValue(forKey: "sid"), let sid = try? Hex.decode(sidHex),
            sid.count == 32
        else {
            throw .badFrame(reason: "no 32-byte sid")
        }
        self.init(type: type, step: step, sid: sid, fields: all)
    }

    /// An `abort` frame naming the check that failed.
    static func abort(step: Int, sid: [UInt8], error: MPCError) -> Frame {
        var message = ""
        if case .checkFailed(_, let reason) = error { message = reason }
        return Frame(
            type: "abort", step: step, sid: sid, fields: ["check": .string(error.check), "message": .string(message)])
    }

    /// Checks type, step, sid and the exact field names; an `abort` from the peer is thrown.
    func expect(_ type: String, step: Int, sid: [UInt8], fields names: Set<String>) throws(MPCError) {
        if self.type == "abort" {
            guard case .string(let check)? = fields["check"] else {
                throw .badFrame(reason: "an abort without a check")
            }
            var message = ""
            if case .string(let m)? = fields["message"] { message = m }
            throw .peerAborted(check: check, message: message)
        }
        guard self.type == type, self.step == step else {
            throw .badFrame(reason: "expected \(type) step \(step), got \(self.type) step \(self.step)")
        }
        guard self.sid == sid else { throw .badFrame(reason: "\(type): a frame of another session") }
        guard Set(fields.keys) == names else {
            let extra = Set(fields.keys).subtracting(names).sorted(), missing = names.subtracting(fields.keys).sorted()
            throw .badFrame(
                reason: "\(type): fields " + (extra.isEmpty ? "" : "not expected \(extra) ")
                    + (missing.isEmpty ? "" : "missing \(missing)"))
        }
    }
}

/// Typed reading of a frame's fields; every failure names the field.
struct FieldReader {
    let frame: Frame
    let fields: [String: WireValue]

    init(_ frame: Frame) {
        self.frame = frame
        fields = frame.fields
    }
    init(_ frame: Frame, object: [String: WireValue]) {
        self.frame = frame
        fields = object
    }

    func bad(_ key: String, _ what: String) -> MPCError { .badFrame(reason: "\(frame.type).\(key): \(what)") }

    func string(_ key: String) throws(MPCError) -> String {
        guard case .string(let s)? = fields[key] else { throw bad(key, "expected a string") }
        return s
    }

    func int(_ key: String) throws(MPCError) -> Int {
        guard case .int(let n)? = fields[key] else { throw bad(key, "expected a number") }
        return n
    }

    static func hexBytes(_ s: String) -> [UInt8]? {
        guard s.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        return try? Hex.decode(s)
    }

    func bytes(_ key: String, count: Int) throws(MPCError) -> [UInt8] {
        guard let b = Self.hexBytes(try string(key)), b.count == count else {
            throw bad(key, "expected \(count) bytes as lower-case hex")
        }
        return b
    }

    func point(_ key: String) throws(MPCError) -> PublicKey {
        let b = try bytes(key, count: 33)
        guard let p = try? PublicKey(bytes: b) else { throw bad(key, "not a point on secp256k1") }
        return p
    }

    func fixed(_ key: String, width: Int) throws(MPCError) -> BigNum {
        let b = try bytes(key, count: width)
        return try arith { try BigNum(bytes: b) }
    }

    static func unbounded(_ s: String, maxBits: Int) -> BigNum? {
        guard let b = hexBytes(s), !b.isEmpty, b.count == 1 || b[0] != 0, b.count * 8 <= maxBits + 8,
            let n = try? BigNum(bytes: b), n.bitCount <= maxBits
        else { return nil }
        return n
    }

    func unbounded(_ key: String, maxBits: Int) throws(MPCError) -> BigNum {
        guard let n = Self.unbounded(try string(key), maxBits: maxBits) else {
            throw bad(key, "expected a minimal hex integer of at most \(maxBits) bits")
        }
        return n
    }

    func list(_ key: String, count: Int) throws(MPCError) -> [String] {
        guard case .list(let items)? = fields[key], items.count == count else {
            throw bad(key, "expected a list of \(count)")
        }
        var out: [String] = []
        for item in items {
            guard case .string(let s) = item else { throw bad(key, "expected strings") }
            out.append(s)
        }
        return out
    }

    func fixedList(_ key: String, count: Int, width: Int) throws(MPCError) -> [BigNum] {
        var out: [BigNum] = []
        for s in try list(key, count: count) {
            guard let b = Self.hexBytes(s), b.count == width else { throw bad(key, "expected \(width)-byte hex items") }
            out.append(try arith { try BigNum(bytes: b) })
        }
        return out
    }

    func unboundedList(_ key: String, count: Int, maxBits: Int) throws(MPCError) -> [BigNum] {
        var out: [BigNum] = []
        for s in try list(key, count: count) {
            guard let n = Self.unbounded(s, maxBits: maxBits) else {
                throw bad(key, "expected minimal hex integers of at most \(maxBits) bits")
            }
            out.append(n)
        }
        return out
    }

    func object(_ key: String, fields names: Set<String>) throws(MPCError) -> FieldReader {
        guard case .object(let o)? = fields[key] else { throw bad(key, "expected an object") }
        guard Set(o.keys) == names else { throw bad(key, "expected the fields \(names.sorted())") }
        return FieldReader(frame, object: o)
    }
}

extension BigNum {
    /// The fixed-width wire form.
    func wire(_ width: Int) throws(MPCError) -> WireValue {
        guard let b = bytes(count: width) else { throw .arithmetic("a number wider than its \(width)-byte field") }
        return .hex(b)
    }
    /// The unbounded wire form (minimal hex).
    var wireU: WireValue { .hex(bytes) }
}
