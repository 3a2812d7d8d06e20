/// The names a predicate may use when it reads a table's columns rather than the metadata
/// attributes: `name BEGINSWITH 'car' AND tags CONTAINS 'mall'` over Grocery's items. Parse with
/// ``MetadataPredicate/init(parsing:columns:arguments:variables:)``; evaluate with an
/// ``AttributeProvider`` that answers ``AttributeProvider/value(ofColumn:)``.
///
/// Names are case-sensitive and exact: no aliases. An unknown name is
/// ``PredicateErrorCode/unknownAttribute`` with a "did you mean" among these names.
public struct PredicateColumns: Sendable, Hashable {
    /// What the names belong to, for error messages ("table 'items' has no column 'nmae'").
    public let table: String
    /// In order: each column's ``PredicateColumn/index`` is its position here.
    public let columns: [PredicateColumn]
    private let byName: [String: Int]

    /// The first of two columns with one name wins.
    public init(table: String, _ columns: [(name: String, kind: PredicateColumn.Kind)]) {
        self.table = table
        self.columns = columns.enumerated().map { PredicateColumn(name: $1.name, kind: $1.kind, index: $0) }
        var byName: [String: Int] = [:]
        for (index, column) in columns.enumerated() where byName[column.name] == nil { byName[column.name] = index }
        self.byName = byName
    }

    public func named(_ name: String) -> PredicateColumn? { byName[name].map { columns[$0] } }

    /// The sentence for a name that is not here, with the nearest name when one is close.
    func unknown(_ name: String, at offset: Int, argument: Int? = nil) -> MetadataPredicateError {
        let hint = NameSuggestion.nearest(to: name, in: columns.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
        let which = argument.map { " (argument \($0 + 1) for %K)" } ?? ""
        return MetadataPredicateError(.unknownAttribute, at: offset, "table '\(table)' has no column '\(name)'\(which)\(hint)")
    }
}
