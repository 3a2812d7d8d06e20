/// Anything that can answer attribute values: an index entry, a JSON object, a test fixture.
///
/// Return `nil` (or `.null`) for a missing attribute. Multi-valued attributes return `.list`.
public protocol AttributeProvider {
    func value(of attribute: Attribute) -> Value?
    /// The value of column `index` of a predicate parsed over columns (``PredicateColumns``):
    /// `.list` of strings for a ``PredicateColumn/Kind/list`` column. Items that only answer
    /// attributes need not implement it: no column has a value for them.
    func value(ofColumn index: Int) -> Value?
}

extension AttributeProvider {
    public func value(ofColumn index: Int) -> Value? { nil }
}
