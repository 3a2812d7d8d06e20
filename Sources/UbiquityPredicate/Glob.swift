import FoundationEssentials

/// A `LIKE` pattern split at its stars: `Item_*x?y` → segments `[Item_]`, `[x, ?, y]`.
///
/// Matching places the first segment at the start, the last at the end, and every middle
/// segment at its leftmost position after the previous one. Leftmost placement is always
/// optimal for globs, so there is no backtracking: time is O(text × pattern) at worst and
/// `*a*a*a*a*b` cannot explode.
struct Glob<U: Equatable & Sendable>: Sendable {
    let segments: [[GlobUnit<U>]]
    /// False when the pattern has no `*`: the only segment must match the whole text.
    let hasStar: Bool

    @inline(__always)
    static func unitMatches(_ unit: GlobUnit<U>, _ value: U) -> Bool {
        if case .literal(let l) = unit { return l == value }
        return true
    }

    func matches<C: RandomAccessCollection>(_ text: C) -> Bool where C.Element == U, C.Index == Int {
        let start = text.startIndex, end = text.endIndex
        func fits(_ segment: [GlobUnit<U>], at position: Int) -> Bool {
            var i = position
            for unit in segment {
                if !Glob.unitMatches(unit, text[i]) { return false }
                i += 1
            }
            return true
        }
        if !hasStar {
            return segments[0].count == end - start && fits(segments[0], at: start)
        }
        let first = segments[0], last = segments[segments.count - 1]
        guard first.count + last.count <= end - start else { return false }
        guard fits(first, at: start), fits(last, at: end - last.count) else { return false }
        var position = start + first.count
        let limit = end - last.count
        for segment in segments.dropFirst().dropLast() where !segment.isEmpty {
            var found = false
            while position + segment.count <= limit {
                if fits(segment, at: position) { found = true; break }
                position += 1
            }
            if !found { return false }
            position += segment.count
        }
        return true
    }

    /// Parses `*`, `?` and `\` escapes (`\*`, `\?`, `\\`; a backslash before anything else is
    /// dropped). `_` and `%` are literal.
    static func parse<S: Sequence>(_ pattern: S, backslash: U, star: U, question: U) -> Glob where S.Element == U {
        var segments: [[GlobUnit<U>]] = [[]]
        var escaped = false
        var hasStar = false
        for unit in pattern {
            if escaped {
                segments[segments.count - 1].append(.literal(unit))
                escaped = false
            } else if unit == backslash {
                escaped = true
            } else if unit == star {
                hasStar = true
                segments.append([])
            } else if unit == question {
                segments[segments.count - 1].append(.anyOne)
            } else {
                segments[segments.count - 1].append(.literal(unit))
            }
        }
        if escaped { segments[segments.count - 1].append(.literal(backslash)) }
        return Glob(segments: segments, hasStar: hasStar)
    }
}
