/// A column of a table that a predicate parsed over columns (``PredicateColumns``) may name,
/// instead of a metadata attribute: its name, its type, and its position, which is what
/// ``AttributeProvider/value(ofColumn:)`` is asked for when the predicate is evaluated.
public struct PredicateColumn: Sendable, Hashable {
    /// A column's type as the type checker sees it.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Compared as strings (and with the string operators).
        case string
        /// Integers and doubles are numbers, compared exactly across the two.
        case integer
        case double
        case bool
        /// The value is a ``Value/date(_:)`` (seconds since 1970); a string literal is read as ISO 8601.
        case date
        /// Bytes and JSON values: only `== nil` and `!= nil` apply to them.
        case data
        case json
        /// Many strings, like a multi-valued attribute: `CONTAINS`, `IN` and `ANY`/`ALL`/`NONE`
        /// apply, and `==` means "any of them" (a to-many relationship's related rows, each by
        /// its display key).
        case list
    }

    public let name: String
    public let kind: Kind
    /// The column's position in its ``PredicateColumns``.
    public let index: Int

    public init(name: String, kind: Kind, index: Int) {
        self.name = name
        self.kind = kind
        self.index = index
    }

    var isMultiValued: Bool { kind == .list }
}
