import FoundationEssentials

/// A compiled string test with a constant right-hand side: `==`, `LIKE`, `BEGINSWITH`,
/// `ENDSWITH`, `CONTAINS`, `MATCHES`, with `[c]`, `[d]` and `w`.
///
/// ASCII text against an ASCII pattern is decided on UTF-8 bytes (case folding is then exact);
/// anything else is folded and compared by Characters. A final class, so evaluating never
/// copies (and reference-counts) the pattern's parts.
///
/// `@unchecked Sendable` is safe: every stored property is a `let` set in `init`, and the one
/// non-Sendable one, `literalBytes`, points to memory this object allocates, initialises in
/// `init`, only reads afterwards, and frees in `deinit`.
@usableFromInline
final class StringMatcher: @unchecked Sendable {
    enum Shape: Sendable {
        case equal, prefix, suffix, contains, glob, regex
    }

    let shape: Shape
    let options: ComparisonOptions
    let regex: LinearRegex?
    /// Folded pattern text for `equal/prefix/suffix/contains` (stars removed when simplified).
    let literal: String
    /// `literal` as bytes when the folded pattern is ASCII and no word mode: the fast path.
    /// Owned by this object; freed in `deinit`, never written after `init`.
    private let literalBytes: UnsafeBufferPointer<UInt8>?
    private let asciiGlob: Glob<UInt8>?
    private let glob: Glob<Character>?
    private let foldsASCIICase: Bool
    /// Whether ASCII subjects can be decided on bytes (`literalBytes` or `asciiGlob` is set).
    private let hasASCIIPath: Bool
    /// `BEGINSWITH ''`, `ENDSWITH ''` and `CONTAINS ''` match nothing, as in Foundation.
    private let matchesNothing: Bool

    init(op: ComparisonOperator, pattern: String, options: ComparisonOptions) {
        self.options = options
        self.foldsASCIICase = options.contains(.caseInsensitive)
        let folded = Folding.fold(pattern, options.subtracting(.wordBased))
        var shape: Shape
        var literal = folded
        var globCharacters: Glob<Character>?
        var regex: LinearRegex?
        switch op {
        case .beginsWith: shape = .prefix
        case .endsWith: shape = .suffix
        case .contains: shape = .contains
        case .matches:
            // Checked by the type checker; a failure here cannot happen for a parsed predicate.
            regex = try? LinearRegex(pattern, caseInsensitive: options.contains(.caseInsensitive),
                                     diacriticInsensitive: options.contains(.diacriticInsensitive))
            shape = regex == nil ? .equal : .regex
        case .like, .equal, .notEqual:
            if op != .like && !StringMatcher.hasWildcard(pattern) {
                shape = .equal
            } else {
                let g = Glob<Character>.parse(folded, backslash: "\\", star: "*", question: "?")
                globCharacters = g
                shape = .glob
                // Simplify the common shapes to plain string tests.
                let literalOnly = g.segments.allSatisfy { $0.allSatisfy { if case .literal = $0 { true } else { false } } }
                if literalOnly {
                    func text(_ segment: [GlobUnit<Character>]) -> String {
                        String(segment.map { if case .literal(let c) = $0 { c } else { "?" } })
                    }
                    let s = g.segments
                    if !g.hasStar { shape = .equal; literal = text(s[0]) }
                    else if s.count == 2 && s[1].isEmpty { shape = .prefix; literal = text(s[0]) }
                    else if s.count == 2 && s[0].isEmpty { shape = .suffix; literal = text(s[1]) }
                    else if s.count == 3 && s[0].isEmpty && s[2].isEmpty { shape = .contains; literal = text(s[1]) }
                }
            }
        default:
            shape = .equal
        }
        self.shape = shape
        self.regex = regex
        self.literal = literal
        self.glob = globCharacters
        let asciiPattern = Folding.isASCII(folded) && !options.contains(.wordBased) && shape != .regex
        if asciiPattern, shape != .glob {
            let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: literal.utf8.count)
            _ = bytes.initialize(from: literal.utf8)
            self.literalBytes = UnsafeBufferPointer(bytes)
        } else {
            self.literalBytes = nil
        }
        if asciiPattern, shape == .glob {
            self.asciiGlob = Glob<UInt8>.parse(Array(folded.utf8), backslash: UInt8(ascii: "\\"),
                                               star: UInt8(ascii: "*"), question: UInt8(ascii: "?"))
        } else {
            self.asciiGlob = nil
        }
        self.hasASCIIPath = asciiPattern
        self.matchesNothing = [.beginsWith, .endsWith, .contains].contains(op) && folded.isEmpty
    }

    deinit { literalBytes?.deallocate() }

    /// An unescaped `*` or `?`: Spotlight makes `==` a wildcard match then.
    static func hasWildcard(_ pattern: String) -> Bool {
        var escaped = false
        for c in pattern.unicodeScalars {
            if escaped { escaped = false; continue }
            if c == "\\" { escaped = true } else if c == "*" || c == "?" { return true }
        }
        return false
    }

    @usableFromInline
    func matches(_ subject: String) -> Bool {
        if matchesNothing { return false }
        // Hot path: touch nothing reference-counted before the byte comparison.
        if hasASCIIPath, let decided = subject.utf8.withContiguousStorageIfAvailable({ matchesASCII($0) }),
           let decided {
            return decided
        }
        if shape == .regex, let regex { return regex.matches(subject) }
        if options.contains(.wordBased) {
            let folded = Folding.fold(subject, options.subtracting(.wordBased))
            if matchesFolded(folded) { return true }
            return Folding.words(subject).contains { matchesFolded(Folding.fold($0, options.subtracting(.wordBased))) }
        }
        return matchesFolded(Folding.fold(subject, options))
    }

    /// Decides on bytes when it can; `nil` sends the subject to the Unicode path.
    ///
    /// Prefix and equality tests look only at the bytes they compare, plus the byte after the
    /// prefix (a combining mark there would change the last character): the pattern is ASCII,
    /// so a mismatching ASCII byte decides `false` and any non-ASCII byte defers to Unicode.
    @inline(__always)
    private func matchesASCII(_ s: UnsafeBufferPointer<UInt8>) -> Bool? {
        if let p = literalBytes, shape == .prefix || shape == .equal {
            let n = p.count
            if s.count < n || (shape == .equal && s.count > n) {
                return Folding.isASCII(s) ? false : nil
            }
            var i = 0
            while i < n {
                let b = s[i]
                if b >= 0x80 { return nil }
                if (foldsASCIICase ? Folding.lowerASCII(b) : b) != p[i] { return false }
                i += 1
            }
            if s.count > n && (s[n] >= 0x80 || (s[n] == 0x0A && n > 0 && s[n - 1] == 0x0D)) { return nil }
            return true
        }
        // "\r\n" is one Character: leave it to the Unicode path.
        guard Folding.isASCII(s), !Folding.containsCRLF(s) else { return nil }
        guard let p = literalBytes else {
            guard let g = asciiGlob else { return nil }
            return foldsASCIICase ? g.matches(s.map(Folding.lowerASCII)) : g.matches(s)
        }
        let fold = foldsASCIICase
        @inline(__always) func equalAt(_ offset: Int) -> Bool {
            var i = 0
            if fold {
                while i < p.count { if Folding.lowerASCII(s[offset + i]) != p[i] { return false }; i += 1 }
            } else {
                while i < p.count { if s[offset + i] != p[i] { return false }; i += 1 }
            }
            return true
        }
        switch shape {
        case .equal: return s.count == p.count && equalAt(0)
        case .prefix: return s.count >= p.count && equalAt(0)
        case .suffix: return s.count >= p.count && equalAt(s.count - p.count)
        case .contains:
            if p.count > s.count { return false }
            for offset in 0...(s.count - p.count) where equalAt(offset) { return true }
            return false
        case .glob, .regex: return nil
        }
    }

    private func matchesFolded(_ folded: String) -> Bool {
        switch shape {
        case .equal: return folded == literal
        case .prefix: return Array(folded).starts(with: Array(literal))
        case .suffix: return Array(folded).reversed().starts(with: Array(literal).reversed())
        case .contains:
            let text = Array(folded), needle = Array(literal)
            if needle.isEmpty { return true }
            if needle.count > text.count { return false }
            for offset in 0...(text.count - needle.count) where text[offset..<offset + needle.count].elementsEqual(needle) {
                return true
            }
            return false
        case .glob: return glob?.matches(Array(folded)) ?? false
        case .regex: return regex?.matches(folded) ?? false
        }
    }
}
