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
