import Testing
import UbiquityPredicate
import UbiquityProtocol
import UbiquityStore
import UbiquityStoreFiles
@testable import UbiquityServer

/// StoreFetchPlan without a daemon: the predicate's names resolve to the table's columns and
/// relationship ends, it ANDs with where, and only the ends it reads are loaded; the ends of a
/// relationship of a table with itself; how a related row is named.
@Suite("StoreFetchPlan: predicate, related, ends")
struct StoreFetchPlanTests {
    static let schema = try! Schema(version: 1, tables: [
        TableSchema("items", columns: [ColumnSchema("name", .string, nullable: false), ColumnSchema("quantity", .integer), ColumnSchema("created", .date)]),
        TableSchema("tags", columns: [ColumnSchema("name", .string, nullable: false)], uniqueBy: ["name"]),
        TableSchema("aisles", columns: [ColumnSchema("number", .integer, nullable: false)], uniqueBy: ["number"]),
        TableSchema("people", columns: [ColumnSchema("name", .string, nullable: false)]),
    ], relationships: [
        RelationshipSchema("tags", from: "items", to: "tags", inverse: "items"),
        RelationshipSchema("aisles", from: "items", to: "aisles", inverse: "goods"),
        RelationshipSchema("friends", from: "people", to: "people", inverse: "friendOf"),
    ])

    static let carrots = StoreRow(id: RowID(high: 0, low: 1), values: ["name": .string("carrots"), "quantity": .integer(2), "created": .date(1_767_225_600_000)])
    static let bread = StoreRow(id: RowID(high: 0, low: 2), values: ["name": .string("bread"), "quantity": .integer(1)])

    static func plan(_ predicate: String?, where conditions: [StoreCondition] = [], related: [String] = []) throws -> StoreFetchPlan {
        try StoreFetchPlan(StoreFetch(store: "grocery", table: "items", where: conditions, predicate: predicate, related: related),
                           schema: schema, limits: StoreLimits())
    }

    @Test("The predicate reads columns and ends; only the ends it names are loaded; it ANDs with where")
    func predicateAndWhere() throws {
        let plan = try Self.plan("tags CONTAINS 'mall' AND created > '2025-12-31'")
        #expect(plan.ends.map(\.name) == ["tags", "aisles"])
        #expect(plan.endsRead == [0], "aisles is not read")
        var lists = Array(repeating: [RowID: [Value]](), count: plan.ends.count)
        lists[0] = [Self.carrots.id: [.string("mall")], Self.bread.id: [.string("mall")]]
        let filter = try #require(plan.filter(lists: lists))
        #expect(filter(Self.carrots) && !filter(Self.bread), "bread has no date")
        let unrelated = try #require(plan.filter(lists: Array(repeating: [:], count: 2)))
        #expect(!unrelated(Self.carrots), "no related rows: no match")

        let both = try Self.plan("tags CONTAINS 'mall'", where: [StoreCondition("quantity", .less, .integer(2))])
        let anded = try #require(both.filter(lists: lists))
        #expect(!anded(Self.carrots) && anded(Self.bread))
        let none = try Self.plan(nil)
        #expect(none.filter(lists: []) == nil, "nothing to filter")
    }

    @Test("related names ends of the table, each once; an unknown or repeated one is refused")
    func related() throws {
        let plan = try Self.plan(nil, related: ["aisles", "tags"])
        #expect(plan.related.map(\.name) == ["aisles", "tags"])
        #expect(plan.related.map(\.byFrom) == [true, true])
        #expect(throws: StoreError.self) { try Self.plan(nil, related: ["tags", "tags"]) }
        do {
            _ = try Self.plan(nil, related: ["items"])
            Issue.record("items is an end of tags, not of items")
        } catch let error as StoreError {
            #expect(error.message.contains("table 'items' has no relationship end 'items'") && error.message.contains("its ends are tags, aisles"))
        }
        #expect(throws: MetadataPredicateError.self) { try Self.plan("aisle CONTAINS '3'") }
    }

    @Test("A relationship of a table with itself has both its ends; a related row is named by its first key column as text, else its id")
    func endsAndDisplayKeys() {
        let ends = StoreRelationshipEnd.ends(of: "people", in: Self.schema)
        #expect(ends.map(\.name) == ["friends", "friendOf"] && ends.map(\.byFrom) == [true, false])
        #expect(ends.allSatisfy { $0.relationship == "friends" && $0.other == "people" })
        let aisle = StoreRow(id: RowID(high: 5, low: 5), values: ["number": .integer(7)])
        #expect(StoreRelationshipEnd.displayKey(aisle, keyColumn: "number") == "7")
        #expect(StoreRelationshipEnd.displayKey(aisle, keyColumn: nil) == aisle.id.description)
        #expect(StoreRelationshipEnd.displayKey(StoreRow(id: aisle.id, values: [:]), keyColumn: "number") == aisle.id.description)
    }

    @Test("A store's values as the predicate reads them: dates in seconds, data and JSON only as being there")
    func values() {
        #expect(StorePredicateRow.value(.date(1_500)) == .date(1.5))
        guard case .date(let before) = StorePredicateRow.value(.date(-1)) else { Issue.record("not a date"); return }
        #expect(ISODate.format(before) == "1969-12-31T23:59:59.999Z", "a millisecond before 1970, as ISO 8601 reads it")
        #expect(StorePredicateRow.value(.data([1])) != .null && StorePredicateRow.value(.json(.null)) != .null)
        #expect(StorePredicateRow.value(.null) == .null)
    }
}
