import UbiquityPredicate
import UbiquityStore
import UbiquityStoreFiles

/// A row as a predicate over columns reads it (``StoreFetchPlan``): column `index` of the
/// plan's ``PredicateColumns`` is `id`, a column of the table, or one of its relationship ends,
/// whose value is the list of the related rows' display keys. Pure.
struct StorePredicateRow: AttributeProvider {
    /// What each predicate column is.
    enum Slot: Sendable {
        case id
        case column(String)
        /// The position of the end in ``lists``.
        case end(Int)
    }

    let row: StoreRow
    let slots: [Slot]
    /// Per end of ``slots``: each row's related rows by display key.
    let lists: [[RowID: [Value]]]

    func value(of attribute: Attribute) -> Value? { nil }

    func value(ofColumn index: Int) -> Value? {
        guard slots.indices.contains(index) else { return nil }
        switch slots[index] {
        case .id: return .string(row.id.description)
        case .column(let name): return Self.value(row[name])
        case .end(let end): return .list(lists[end][row.id] ?? [])
        }
    }

    /// A store's value as the predicate language's: dates in seconds; data and JSON only as
    /// being there (a predicate compares them with nil alone).
    static func value(_ value: StoreValue) -> Value {
        switch value {
        case .null: .null
        case .string(let text): .string(text)
        case .integer(let number): .integer(number)
        case .double(let number): .double(number)
        case .bool(let flag): .bool(flag)
        case .date(let ms): .date(ISODate.seconds(milliseconds: ms))
        case .data, .json: .bool(true)
        }
    }

    /// The predicate type of a column type.
    static func kind(_ type: ColumnType) -> PredicateColumn.Kind {
        switch type {
        case .string: .string
        case .integer: .integer
        case .double: .double
        case .bool: .bool
        case .date: .date
        case .data: .data
        case .json: .json
        }
    }
}
