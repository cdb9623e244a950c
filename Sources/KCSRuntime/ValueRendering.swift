import BigInt
import KCSErrors

/// The two renderings every value has (docs/language.md §5): text for people (records and lists of
/// records as aligned tables, strings in them unquoted) and JSON for scripts (`--json`). Secrets render as
/// `<secret KIND>` in both; nothing here can reveal one.
extension Value {
    /// Text rendering: strings are shown raw at the top level and quoted inside structures.
    public var text: String { render(top: true) }

    /// The text rendering on `display`: a drawing (a QR code) is drawn for it, in colour where
    /// colour is welcome; every other value is its `text`.
    public func text(on display: Display) -> String {
        if case .domain(let d) = self, let drawn = d as? any DrawnValue { return drawn.drawing(on: display) }
        return text
    }

    /// One-line text for string interpolation: strings raw, records and maps in their inline
    /// form (`{k: v}`, a domain value's own text) instead of a table.
    public var inlineText: String {
        if case .string(let s) = self { return s }
        return render(top: false)
    }

    private func render(top: Bool) -> String {
        switch self {
        case .null: return "nil"
        case .bool(let b): return b ? "true" : "false"
        case .int(let n): return String(n)
        case .bigInt(let n): return String(n)
        case .string(let s): return top ? s : Value.quote(s)
        case .bytes(let b): return "0x" + Value.hex(b)
        case .secret(let s): return s.redacted
        case .domain(let d):
            if top, !d.fields.isEmpty { return Value.table(d.fields.map { ($0.name, $0.value) }) }
            return d.text
        case .map(let m):
            if top, !m.keys.isEmpty { return Value.table(m.pairs.map { ($0.key, $0.value) }) }
            return "{"
                + m.pairs.map { Value.quote($0.key) + ": " + $0.value.render(top: false) }.joined(separator: ", ") + "}"
        case .list(let items):
            if top, let table = Value.recordTable(items) { return table }
            return "[" + items.map { $0.render(top: false) }.joined(separator: ", ") + "]"
        }
    }

    /// `name  value` rows with the names padded to one width; strings unquoted, as in every table.
    /// A string of several lines (a signing review) keeps its lines, each under the value column.
    static func table(_ rows: [(String, Value)]) -> String {
        let width = rows.map { $0.0.count }.max() ?? 0
        return rows.map { name, value in
            if case .string(let s) = value, s.contains("\n") {
                let indent = "\n" + String(repeating: " ", count: width + 2)
                return
                    (name.padding(to: width) + "  "
                    + s.split(separator: "\n", omittingEmptySubsequences: false)
                    .map { String($0).trimmingTrailingSpaces() }.joined(separator: indent)).trimmingTrailingSpaces()
            }
            return (name.padding(to: width) + "  " + value.cellText).trimmingTrailingSpaces()
        }.joined(separator: "\n")
    }

    /// A list whose items are all records becomes a table with a header: the columns are every
    /// field in the order first met (a record without one leaves its cell empty, as an HD-MASTER
    /// has an `xpub` its children lack), strings unquoted.
    static func recordTable(_ items: [Value]) -> String? {
        guard !items.isEmpty else { return nil }
        var rows: [[(String, Value)]] = []
        for item in items {
            switch item {
            case .map(let m) where m.count > 0: rows.append(m.pairs.map { ($0.key, $0.value) })
            case .domain(let d) where !d.fields.isEmpty: rows.append(d.fields.map { ($0.name, $0.value) })
            default: return nil
            }
        }
        var header: [String] = []
        for row in rows { for (name, _) in row where !header.contains(name) { header.append(name) } }
        let cells = rows.map { row in
            header.map { name in row.first { $0.0 == name }.map { $0.1.cellText } ?? "" }
        }
        let widths = header.indices.map { i in max(header[i].count, cells.map { $0[i].count }.max() ?? 0) }
        func line(_ parts: [String]) -> String {
            zip(parts, widths).map { $0.padding(to: $1) }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        return ([line(header)] + cells.map(line)).joined(separator: "\n")
    }

    /// A table cell: a string as it is (no quotes), anything else inline, on one line.
    var cellText: String {
        if case .string(let s) = self { return s.replacingNewlines() }
        return render(top: false).replacingNewlines()
    }

    // MARK: JSON

    /// JSON rendering with keys in insertion order. Integers within ±(2⁵³−1) are numbers;
    /// larger ones are decimal strings so no JSON reader rounds a wei amount. Bytes are
    /// `"0x…"` strings; secrets are `"<secret KIND>"`; domain values are an object of their
    /// fields (or their text when they have none).
    public var json: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let n): return abs(n) <= Value.maxSafeJSONInteger ? String(n) : Value.quote(String(n))
        case .bigInt(let n): return Value.quote(String(n))
        case .string(let s): return Value.quote(s)
        case .bytes(let b): return Value.quote("0x" + Value.hex(b))
        case .secret(let s): return Value.quote(s.redacted)
        case .list(let items): return "[" + items.map(\.json).joined(separator: ",") + "]"
        case .map(let m):
            return "{" + m.pairs.map { Value.quote($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
        case .domain(let d):
            if d.fields.isEmpty { return Value.quote(d.text) }
            return "{" + d.fields.map { Value.quote($0.name) + ":" + $0.value.json }.joined(separator: ",") + "}"
        }
    }

    /// 2⁵³ − 1, the largest integer every JSON reader keeps exactly.
    public static let maxSafeJSONInteger = 9_007_199_254_740_991

    // MARK: helpers

    /// A double-quoted string with JSON escapes: `JSONString`, the one JSON quoting rule.
    static func quote(_ s: String) -> String { JSONString.quoted(s) }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out += [digits[Int(b >> 4)], digits[Int(b & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    /// Pads on the right (or on the left with `left`) to `width` characters; a longer string
    /// is left as it is. Builtins align their own columns with it too.
    public func padding(to width: Int, left: Character? = nil) -> String {
        guard count < width else { return self }
        let pad = String(repeating: left ?? " ", count: width - count)
        return left == nil ? self + pad : pad + self
    }

    func replacingNewlines() -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ")
    }

    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
