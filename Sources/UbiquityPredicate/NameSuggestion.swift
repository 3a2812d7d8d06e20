/// "Did you mean" for any list of names: attributes here, operations and config keys elsewhere.
public enum NameSuggestion {
    /// The candidate closest to `word`: a case-only difference first, otherwise the smallest edit
    /// distance within about one edit per three characters (so 'LIKE' does not suggest 'size').
    public static func nearest(to word: String, in candidates: [String]) -> String? {
        let lowered = word.lowercased()
        if let exact = candidates.first(where: { $0.lowercased() == lowered }) { return exact }
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        guard let best else { return nil }
        let allowed = max(1, min(word.count, best.name.count) / 3)
        return best.distance <= allowed ? best.name : nil
    }
}

/// Levenshtein distance over Characters; inputs are short attribute names.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
