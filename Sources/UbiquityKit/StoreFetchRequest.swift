public import UbiquityProtocol
import UbiquityStore

/// What to fetch from a relational store (`NSFetchRequest`'s shape): a table's rows that meet
/// every condition (and the predicate, when given), sorted, at most ``fetchLimit``, each with the
/// ids of the rows it is related to by the relationships in ``related``.
///
/// ```swift
/// var request = StoreFetchRequest(table: "items")
/// request.conditions = [StoreCondition("quantity", .greaterOrEqual, .integer(2))]
/// request.sortDescriptors = [StoreSortDescriptor(key: "name")]
/// request.related = ["tags"]
/// for row in try await store.fetch(request) { print(row.string("name") ?? "", row.related["tags"] ?? []) }
/// ```
public struct StoreFetchRequest: Sendable, Hashable {
    public var table: String
    /// All of them must hold (docs/protocol.md, "store.fetch").
    public var conditions: [StoreCondition]
    /// A predicate over the table's columns (`name BEGINSWITH 'car' AND tags CONTAINS 'mall'`),
    /// sent as the daemon's `predicate`; nil: none. It holds together with ``conditions``.
    public var predicate: String?
    public var sortDescriptors: [StoreSortDescriptor]
    /// At most this many rows; nil: all.
    public var fetchLimit: Int?
    /// Relationships (by the name seen from ``table``) whose related ids each row carries
    /// (``StoreRow/related``).
    public var related: [String]

    public init(table: String, conditions: [StoreCondition] = [], predicate: String? = nil,
                sortDescriptors: [StoreSortDescriptor] = [], fetchLimit: Int? = nil, related: [String] = []) {
        self.table = table
        self.conditions = conditions
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.related = related
    }

    /// Whether `a` comes before `b` in this request's order: by each sort descriptor, then by id
    /// (the daemon's order, ``StoreValue/order(_:_:)``).
    public func precedes(_ a: StoreRow, _ b: StoreRow) -> Bool {
        for descriptor in sortDescriptors {
            let order = StoreValue.order(a[descriptor.key], b[descriptor.key])
            if order != 0 { return descriptor.ascending ? order < 0 : order > 0 }
        }
        return a.id < b.id
    }
}
