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
