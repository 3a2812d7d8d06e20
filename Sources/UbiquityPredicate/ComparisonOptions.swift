/// String comparison modifiers: `[c]`, `[d]`, and Spotlight's word-based `w`.
public struct ComparisonOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `c`: case-insensitive.
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `d`: diacritic-insensitive.
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    /// `w`: word-based (Spotlight): the value matches if any word of the string matches.
    public static let wordBased = ComparisonOptions(rawValue: 4)

    /// The letters as written inside `[...]`, in canonical order (`cdw`).
    public var letters: String {
        (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "")
            + (contains(.wordBased) ? "w" : "")
    }
}
