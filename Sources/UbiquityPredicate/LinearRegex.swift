import FoundationEssentials

/// A compiled regular expression that matches whole strings in linear time.
///
/// The engine is a Thompson NFA simulated breadth-first (a Pike VM without
/// captures) over Unicode scalars, so `matches(_:)` runs in
/// O(subject scalars × program size) and never backtracks. The syntax is a
/// practical subset of ICU's (what NSPredicate's `MATCHES` uses); constructs
/// that need backtracking (backreferences, lookaround, atomic groups) are
/// rejected at compile time with a `LinearRegexError`.
///
/// Both the pattern's literal characters and the subject are compared in a
/// canonical form: NFC, or with `diacriticInsensitive` the canonical
/// decomposition with every combining mark removed (then recomposed, so that
/// Hangul syllables stay whole).
public struct LinearRegex: Sendable, Hashable {
    public let pattern: String
    public let caseInsensitive: Bool
    public let diacriticInsensitive: Bool
    let program: Program
    /// Thread lists kept between matches: a query tests its pattern against every name, and
    /// allocating two program-sized lists per name dominated the cost of a large program.
    let scratch: ScratchCache

    public init(_ pattern: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) throws(LinearRegexError) {
        self.pattern = pattern
        self.caseInsensitive = caseInsensitive
        self.diacriticInsensitive = diacriticInsensitive
        var parser = Parser(pattern: pattern, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        let tree = try parser.parse()
        self.program = Program(tree: tree, classes: parser.classes)
        self.scratch = ScratchCache()
    }

    /// True when the WHOLE string matches (anchored at both ends, like ICU `matches()`).
    public func matches(_ subject: String) -> Bool {
        let scalars = Scalars.prepare(subject, diacriticInsensitive: diacriticInsensitive)
        // Take the cached lists out (or make new ones when another thread holds them), put them back after.
        var lists = scratch.take() ?? program.makeScratch()
        defer { scratch.put(lists) }
        return program.run(scalars, scratch: &lists)
    }

    /// The size of the compiled program: the cost of matching is subject length × this.
    public var instructionCount: Int { program.instructions.count }

    public static func == (lhs: LinearRegex, rhs: LinearRegex) -> Bool {
        lhs.pattern == rhs.pattern
            && lhs.caseInsensitive == rhs.caseInsensitive
            && lhs.diacriticInsensitive == rhs.diacriticInsensitive
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
        hasher.combine(caseInsensitive)
        hasher.combine(diacriticInsensitive)
    }
}

// MARK: - Limits

extension LinearRegex {
    /// Largest compiled program accepted ("pattern too complex" beyond it).
    static let maxInstructions = 20_000
    /// Largest count accepted in `{n}`, `{n,}` and `{n,m}`.
    static let maxRepetition = 1_000
    /// Deepest nesting of groups and classes accepted.
    static let maxNesting = 200
}
