/// One side of a comparison.
public indirect enum Operand: Sendable, Hashable {
    case attribute(Attribute)
    /// A table's column, when the predicate was parsed over columns (``PredicateColumns``).
    case column(PredicateColumn)
    case constant(Value)
    /// `$time.today(-1)` and friends: resolved against the evaluation clock, so a live query
    /// written with them keeps meaning "today".
    case relativeDate(RelativeDate)
    /// `{a, b, c}`: constants and relative dates only.
    case aggregate([Operand])
}

extension Operand {
    /// An attribute or a column: what an item holds, not a value written in the predicate.
    var isField: Bool {
        switch self {
        case .attribute, .column: true
        default: false
        }
    }

    /// The name of an attribute (canonical) or a column, as messages show it.
    var fieldName: String? {
        switch self {
        case .attribute(let a): a.canonicalName
        case .column(let c): c.name
        default: nil
        }
    }

    /// A multi-valued attribute or a list column.
    var isMultiValued: Bool {
        switch self {
        case .attribute(let a): a.isMultiValued
        case .column(let c): c.isMultiValued
        default: false
        }
    }
}
