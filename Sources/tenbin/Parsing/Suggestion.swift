/// "Did you mean …?" for a mistyped option or subcommand, as git suggests.
enum Suggestion {
    /// The candidate closest to `typed`, when one is close enough to be what was meant: at
    /// most two edits (insert, delete, replace, or swap two neighbours) away, and fewer edits
    /// than half its length. On a tie the first candidate wins.
    static func closest(to typed: String, among candidates: [String]) -> String? {
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(Array(typed), Array(candidate))
            let meaningful = candidate.drop { $0 == "-" }.count
            guard distance <= 2, distance * 2 < meaningful else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }  // best is non-nil on the right
        }
        return best?.name
    }

    /// The optimal-string-alignment distance: Levenshtein's edits plus swapping two
    /// neighbouring characters ("--tiems" is one edit from "--times").
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
