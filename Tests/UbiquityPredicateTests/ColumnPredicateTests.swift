import Testing
import UbiquityPredicate

/// Predicates over a table's columns (PredicateColumns): names resolve to typed columns, a list
/// column (a relationship end) matches when any of its strings does, and errors are the
/// metadata predicate's (code, offset, "did you mean").
@Suite("Predicates over columns")
struct ColumnPredicateTests {
    static let items = PredicateColumns(table: "items", [
        ("id", .string), ("name", .string), ("quantity", .integer), ("price", .double), ("done", .bool),
        ("created", .date), ("photo", .data), ("extra", .json), ("tags", .list),
    ])

    /// carrots: 2 at 1.5, not done, made 2026-01-01, a photo, tags mall and market.
    static let carrots = ColumnRow(values: [
        0: .string("00000000000000000000000000000001"), 1: .string("carrots"), 2: .integer(2), 3: .double(1.5),
        4: .bool(false), 5: .date(ISODate.seconds(milliseconds: 1_767_225_600_000)), 6: .bool(true),
        8: .list([.string("mall"), .string("market")]),
    ])
    /// bread: 1, done, no tags, no photo.
    static let bread = ColumnRow(values: [0: .string("00000000000000000000000000000002"), 1: .string("bread"), 2: .integer(1), 4: .bool(true), 8: .list([])])

    static func matches(_ text: String, _ row: ColumnRow) throws -> Bool {
        try MetadataPredicate(parsing: text, columns: items).compiled().evaluate(row)
    }

    @Test("Column names resolve to typed columns; strings, numbers, booleans and dates compare by their type", arguments: [
        ("name BEGINSWITH 'car'", true, false),
        ("name BEGINSWITH 'car' AND tags CONTAINS 'mall'", true, false),
        ("name ==[c] 'CARROTS'", true, false),
        ("quantity > 1", true, false),
        ("quantity >= 1 AND quantity < 3", true, true),
        ("price > 1", true, false),
        ("price BETWEEN {1, 2}", true, false),
        ("quantity == 2.0", true, false),
        ("done == NO", true, false),
        ("done == TRUE", false, true),
        ("created > '2025-12-31'", true, false),
        ("created == $time.iso(2026-01-01T00:00:00Z)", true, false),
        ("created == nil", false, true),
        ("photo != nil", true, false),
        ("extra == nil", true, true),
        ("id == '00000000000000000000000000000002'", false, true),
        ("name IN {'bread', 'milk'}", false, true),
        ("NOT name LIKE 'c*'", false, true),
    ])
    func typedColumns(_ text: String, _ carrots: Bool, _ bread: Bool) throws {
        #expect(try Self.matches(text, Self.carrots) == carrots, "\(text) on carrots")
        #expect(try Self.matches(text, Self.bread) == bread, "\(text) on bread")
    }

    @Test("A list column matches when any of its strings does, with CONTAINS, ==, IN and the quantifiers", arguments: [
        ("tags CONTAINS 'mall'", true, false),
        ("tags CONTAINS[c] 'MALL'", true, false),
        ("tags CONTAINS 'garden'", false, false),
        ("tags == 'market'", true, false),
        ("'mall' IN tags", true, false),
        ("tags IN {'garden', 'market'}", true, false),
        ("ANY tags BEGINSWITH 'ma'", true, false),
        ("ALL tags BEGINSWITH 'ma'", true, true),
        ("NONE tags == 'mall'", false, true),
        ("tags == nil", false, false),
    ])
    func listColumns(_ text: String, _ carrots: Bool, _ bread: Bool) throws {
        #expect(try Self.matches(text, Self.carrots) == carrots, "\(text) on carrots")
        #expect(try Self.matches(text, Self.bread) == bread, "\(text) on bread")
    }

    @Test("Errors name the column, the expected type and the place, as the metadata predicate's do", arguments: [
        ("quantty == 1", "predicate.unknownAttribute", 0, "table 'items' has no column 'quantty'; did you mean 'quantity'?"),
        ("done AND nam == 'x'", "predicate.syntax", 5, "expected an operator"),
        ("done == NO AND nam == 'x'", "predicate.unknownAttribute", 15, "did you mean 'name'?"),
        ("kMDItemFSName == 'x'", "predicate.unknownAttribute", 0, "table 'items' has no column 'kMDItemFSName'"),
        ("quantity > 'two'", "predicate.type", 11, "expected a number to compare with quantity, found a string \"two\""),
        ("name > 3", "predicate.type", 7, "expected a string to compare with name, found a number 3"),
        ("created > 'tuesday'", "predicate.type", 10, "dates are ISO 8601"),
        ("done BEGINSWITH 'y'", "predicate.type", 0, "BEGINSWITH compares strings; done is a boolean"),
        ("photo == 'abc'", "predicate.type", 9, "expected data to compare with photo"),
        ("photo > nil", "predicate.type", 8, "cannot compare with nil using >"),
        ("extra == extra", "predicate.type", 6, "extra is JSON, which is only compared with nil"),
        ("ANY name == 'x'", "predicate.type", 4, "ANY needs a to-many relationship after it"),
        ("tags IN 'mall'", "predicate.type", 0, "tags is a list"),
        ("name == 'x' AND", "predicate.syntax", 15, "expected a comparison after 'AND'"),
    ])
    func errors(_ text: String, _ code: String, _ offset: Int, _ message: String) {
        do {
            _ = try MetadataPredicate(parsing: text, columns: Self.items)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.code.rawValue == code, "\(text): \(error)")
            #expect(error.offset == offset, "\(text): \(error)")
            #expect(error.message.contains(message), "\(text): \(error.message)")
        }
    }

    @Test("%K names a column; the predicate lists the columns it reads; its description parses back to the same predicate")
    func argumentsColumnsAndPrinting() throws {
        let predicate = try MetadataPredicate(parsing: "%K BEGINSWITH %@ AND tags CONTAINS 'mall'", columns: Self.items,
                                              arguments: [.string("name"), .string("car")])
        #expect(predicate.compiled().evaluate(Self.carrots))
        #expect(predicate.columns == [1, 8])
        #expect(try MetadataPredicate(parsing: predicate.description, columns: Self.items) == predicate)
        #expect(throws: MetadataPredicateError.self) { try MetadataPredicate(parsing: "%K == 1", columns: Self.items, arguments: [.string("quantty")]) }
        // Attribute names mean nothing over columns, and column names nothing over attributes.
        #expect(throws: MetadataPredicateError.self) { try MetadataPredicate(parsing: "quantity > 1") }
        // A column named like a keyword is written #name, and printed so.
        let keywords = PredicateColumns(table: "t", [("in", .string)])
        let escaped = try MetadataPredicate(parsing: "#in == 'x'", columns: keywords)
        #expect(escaped.description == "#in == \"x\"")
        #expect(try MetadataPredicate(parsing: escaped.description, columns: keywords) == escaped)
    }

    @Test("Milliseconds of a store's date read as the seconds the same ISO-8601 text parses to", arguments: [
        Int64(1_767_225_600_000), 1_767_225_600_123, -1, -1_500, 0,
    ])
    func dates(_ ms: Int64) throws {
        let text = ISODate.format(ISODate.seconds(milliseconds: ms))
        #expect(ISODate.milliseconds(parsing: text) == ms, "\(ms) → \(text)")
    }
}
