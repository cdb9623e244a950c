/// The optimal-string-alignment distance (restricted Damerau–Levenshtein) between two
/// character sequences: insert, delete, substitute, or swap two neighbours, each costing 1.
/// Used wherever kcs says "did you mean": BIP-39 words (`Wordlist.suggestions`) and key names
/// (`KeyNaming.suggestion`). The language's own command suggestions live in KCSSyntax, which
/// depends on nothing.
public enum EditDistance {
    /// The distance between `a` and `b`, or nil as soon as it must exceed `bound`.
    public static func between(_ a: [Character], _ b: [Character], bound: Int = .max) -> Int? {
        if abs(a.count - b.count) > bound { return nil }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        // Three rolling rows: the swap step looks two rows back.
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMin = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, previous2[j - 2] + 1)
                }
                current[j] = best
                rowMin = min(rowMin, best)
            }
            // No later cell can be below this row's minimum: a swap's value D[i-1][j-2] + 1 is
            // never below D[i][j-1], which a substitution reaches from the same cell.
            if rowMin > bound { return nil }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count] <= bound ? previous[b.count] : nil
    }
}
