import UbiquityPredicate
import UbiquityStore
import UbiquityStoreFiles

/// One end of a to-many relationship as a table sees it: items see `tags` (they are its `from`
/// table), tags see `items` (the relationship's `inverse`, at its `to` table). What a fetch's
/// `related` and a predicate over columns name. Pure.
struct StoreRelationshipEnd: Sendable, Hashable {
    /// The name the table knows the end by.
    let name: String
    /// The relationship's own name (its `from` end's), as the cache's join table is named.
    let relationship: String
    /// Whether the table is the relationship's `from` table (its rows are the pairs' `from`).
    let byFrom: Bool
    /// The table at the other end, whose rows are the related ones.
    let other: String

    /// Every end of `table`, in the schema's order of relationships; a relationship of a table
    /// with itself gives both its ends.
    static func ends(of table: String, in schema: Schema) -> [StoreRelationshipEnd] {
        var ends: [StoreRelationshipEnd] = []
        for r in schema.relationships {
            if r.from == table { ends.append(StoreRelationshipEnd(name: r.name, relationship: r.name, byFrom: true, other: r.to)) }
            if r.to == table { ends.append(StoreRelationshipEnd(name: r.inverse, relationship: r.name, byFrom: false, other: r.from)) }
        }
        return ends
    }

    /// The end of `table` named `name`, or `store.invalidChange` naming it, with a "did you mean".
    static func named(_ name: String, of table: String, in schema: Schema, field: String) throws(StoreError) -> StoreRelationshipEnd {
        let ends = ends(of: table, in: schema)
        if let end = ends.first(where: { $0.name == name }) { return end }
        let hint = NameSuggestion.nearest(to: name, in: ends.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
        let known = ends.isEmpty ? "it has none" : "its ends are " + ends.map(\.name).joined(separator: ", ")
        throw StoreError(.invalidChange, "\(field): table '\(table)' has no relationship end '\(name)'\(hint) (\(known))",
                         details: ["table": .string(table), "relationship": .string(name), "field": .string(field)])
    }

    /// How a row of the other table is named in a predicate: the value of `keyColumn` (the other
    /// table's first `uniqueBy` column) as text, or the row's id when it has none, or no value
    /// there, or one that is data or JSON.
    static func displayKey(_ row: StoreRow, keyColumn: String?) -> String {
        guard let keyColumn else { return row.id.description }
        switch row[keyColumn] {
        case .string(let text): return text
        case .integer(let value): return String(value)
        case .double(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .date(let ms): return ISODate.format(ISODate.seconds(milliseconds: ms))
        case .null, .data, .json: return row.id.description
        }
    }
}
