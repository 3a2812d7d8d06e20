import UbiquityPredicate

/// A row of Grocery's items as a predicate over columns reads it (the daemon's provider is
/// StorePredicateRow; this one holds the values by column index).
struct ColumnRow: AttributeProvider {
    var values: [Int: Value]
    func value(of attribute: Attribute) -> Value? { nil }
    func value(ofColumn index: Int) -> Value? { values[index] }
}
