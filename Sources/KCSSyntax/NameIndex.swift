/// Names mapped to small integers by open addressing over two arrays: the builtin registry's
/// names and the command table's words. Not a `Dictionary` or `Set`: the first insertion of a
/// `String` key into either instantiates its storage's metadata at run time, and that checks
/// `String: Hashable` by scanning every protocol-conformance record in the binary (~7,700 in
/// kcs, ~0.2 ms) — at every start, before any script ran (docs/architecture.md, "Start-up").
public struct NameIndex: Sendable, Equatable {
    /// The names in the order they were added, each once.
    public private(set) var names: [String] = []
    private var values: [Int] = []
    /// Slot → index into `names`, or -1 for an empty slot; the count is a power of two.
    private var slots: [Int]

    public init(capacity: Int = 8) {
        var size = 8
        while size < capacity * 2 { size *= 2 }
        slots = Array(repeating: -1, count: size)
    }

    public var count: Int { names.count }

    /// The value of `name`, or nil.
    public func value(of name: String) -> Int? {
        let slot = find(name)
        return slots[slot] < 0 ? nil : values[slots[slot]]
    }

    public func contains(_ name: String) -> Bool { slots[find(name)] >= 0 }

    /// Adds `name` with `value`; false (and nothing changed) when it is already there.
    @discardableResult
    public mutating func insert(_ name: String, value: Int = 0) -> Bool {
        if (names.count + 1) * 2 > slots.count { grow() }
        let slot = find(name)
        guard slots[slot] < 0 else { return false }
        slots[slot] = names.count
        names.append(name)
        values.append(value)
        return true
    }

    /// The slot holding `name`, else the empty slot where it would go.
    private func find(_ name: String) -> Int {
        let mask = slots.count - 1
        var slot = name.hashValue & mask
        while slots[slot] >= 0, names[slots[slot]] != name { slot = (slot + 1) & mask }
        return slot
    }

    private mutating func grow() {
        slots = Array(repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (i, name) in names.enumerated() {
            var slot = name.hashValue & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = i
        }
    }

    /// Equal when they hold the same names with the same values, in any order.
    public static func == (a: NameIndex, b: NameIndex) -> Bool {
        a.count == b.count && zip(a.names, a.values).allSatisfy { b.value(of: $0.0) == $0.1 }
    }
}
