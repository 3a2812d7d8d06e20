/// The type of value an attribute holds.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    case string
    case integer
    case date
    case bool
    /// A multi-valued attribute: a list of strings (`kMDItemUserTags`, `kMDItemContentTypeTree`).
    case stringList

    /// The word used in error messages ("expected a date").
    var noun: String {
        switch self {
        case .string: "a string"
        case .integer: "a number"
        case .date: "a date"
        case .bool: "a boolean"
        case .stringList: "a list of strings"
        }
    }
}
