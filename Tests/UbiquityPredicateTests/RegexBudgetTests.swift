import Testing
@testable import UbiquityPredicate

/// MATCHES patterns are bounded one by one and all together: many large patterns in one
/// predicate would make every item's evaluation cost their sum.
@Suite struct RegexBudgetTests {
    /// `(a{1000}){10}` compiles to about 10,000 instructions.
    static let large = "(a{1000}){10}"

    static func predicate(patterns count: Int) -> String {
        Array(repeating: "name MATCHES '\(large)'", count: count).joined(separator: " OR ")
    }

    @Test func theTotalOfAllPatternsIsLimited() throws {
        let size = try LinearRegex(Self.large).instructionCount
        #expect(size > 9_000 && size <= 20_000)
        let fits = PredicateLimits.maxTotalRegexInstructions / size
        _ = try MetadataPredicate(parsing: Self.predicate(patterns: fits))
        let error = #expect(throws: MetadataPredicateError.self) {
            _ = try MetadataPredicate(parsing: Self.predicate(patterns: fits + 1))
        }
        #expect(error?.code == .tooComplex)
        #expect(error?.description.contains("in total") == true)
    }

    /// The VM's lists are reused between matches; results must not depend on what ran before.
    @Test func reusedWorkingMemoryGivesTheSameAnswers() throws {
        let regex = try LinearRegex("(ab|a)*c[x-z]?")
        let subjects = ["ababc", "abx", "aac", "abcz", "", "c", "abababababc", "abca"]
        let fresh = try subjects.map { try LinearRegex(regex.pattern).matches($0) }
        for _ in 0..<3 { #expect(subjects.map(regex.matches) == fresh) }
        #expect(fresh == [true, false, true, true, false, true, true, false])
    }
}
