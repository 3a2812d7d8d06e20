/// A parsed, type-checked predicate. Build one with ``MetadataPredicate/init(parsing:arguments:variables:)``.
///
/// ```swift
/// let predicate = try MetadataPredicate(parsing: "kMDItemFSName LIKE[c] %@", arguments: [.string("item_*")])
/// let matcher = predicate.compiled()
/// matcher.evaluate(item)                       // item: some AttributeProvider
/// predicate.description                        // kMDItemFSName LIKE[c] "item_*"
/// ```
///
/// Equality is structural; ``description`` prints a canonical form that parses back to an
/// equal predicate.
public indirect enum MetadataPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    case not(MetadataPredicate)
    /// Two or more operands written as one chain (`a AND b AND c`).
    case and([MetadataPredicate])
    /// Two or more operands written as one chain (`a OR b OR c`).
    case or([MetadataPredicate])
    case comparison(Comparison)
}

/// One comparison: `[quantifier] left operator[options] right`.
public struct Comparison: Sendable, Hashable {
    public var quantifier: Quantifier
    public var left: Operand
    public var op: ComparisonOperator
    public var right: Operand
    public var options: ComparisonOptions

    public init(
        _ left: Operand, _ op: ComparisonOperator, _ right: Operand,
        options: ComparisonOptions = [], quantifier: Quantifier = .single
    ) {
        self.quantifier = quantifier
        self.left = left
        self.op = op
        self.right = right
        self.options = options
    }
}

/// `ANY`/`SOME`, `ALL`, `NONE` over a multi-valued attribute, or none written (`single`).
public enum Quantifier: String, Sendable, Hashable {
    case single = ""
    case any = "ANY"
    case all = "ALL"
    case noElement = "NONE"
}

public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case like = "LIKE"
    case matches = "MATCHES"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case `in` = "IN"
    case between = "BETWEEN"

    /// Operators whose both sides are strings.
    var isStringOperator: Bool {
        switch self {
        case .like, .matches, .beginsWith, .endsWith, .contains: true
        default: false
        }
    }

    var isOrdering: Bool {
        switch self {
        case .less, .lessOrEqual, .greater, .greaterOrEqual: true
        default: false
        }
    }
}

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

/// One side of a comparison.
public indirect enum Operand: Sendable, Hashable {
    case attribute(Attribute)
    case constant(Value)
    /// `$time.today(-1)` and friends: resolved against the evaluation clock, so a live query
    /// written with them keeps meaning "today".
    case relativeDate(RelativeDate)
    /// `{a, b, c}`: constants and relative dates only.
    case aggregate([Operand])
}

/// A date relative to the evaluation clock: `$time.now(-3600)`, `$time.today(-1)`, ...
public struct RelativeDate: Sendable, Hashable {
    public enum Anchor: String, Sendable, Hashable, CaseIterable {
        /// Offset in seconds.
        case now
        /// Start of the day; offset in days.
        case today
        /// Start of yesterday; offset in days.
        case yesterday
        /// Start of the week; offset in weeks.
        case thisWeek = "this_week"
        /// Start of the month; offset in months.
        case thisMonth = "this_month"
        /// Start of the year; offset in years.
        case thisYear = "this_year"
    }

    public var anchor: Anchor
    public var offset: Int64

    public init(_ anchor: Anchor, offset: Int64 = 0) {
        self.anchor = anchor
        self.offset = offset
    }
}
