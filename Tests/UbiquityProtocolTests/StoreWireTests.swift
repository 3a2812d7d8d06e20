import Testing
import UbiquityJSON
@testable import UbiquityProtocol
@testable import UbiquityStore

/// Relational stores on the wire: schemas, values by column type, changes and the `store.changed`
/// event (docs/protocol.md, "Relational stores").
@Suite("Store wire forms")
struct StoreWireTests {
    static let grocery = try! Schema(version: 1, tables: [
        TableSchema("items", columns: [ColumnSchema("name", .string, nullable: false), ColumnSchema("quantity", .integer),
                                       ColumnSchema("note", .string), ColumnSchema("created", .date), ColumnSchema("done", .bool),
                                       ColumnSchema("price", .double), ColumnSchema("photo", .data), ColumnSchema("extra", .json)]),
        TableSchema("tags", columns: [ColumnSchema("name", .string, nullable: false), ColumnSchema("color", .string)], uniqueBy: ["name"]),
    ], relationships: [RelationshipSchema("tags", from: "items", to: "tags", inverse: "items")])

    @Test("A schema survives JSON → text → JSON; defaults fill what a client leaves out")
    func schemaRoundTrip() throws {
        let json = StoreWire.json(Self.grocery)
        #expect(try StoreWire.schema(try JSONLine.decode(Array(JSONLine.encode(json).utf8))) == Self.grocery)
        let minimal = try StoreWire.schema(try JSONLine.decode(Array(#"{"version":1,"tables":[{"name":"t","columns":[{"name":"c","type":"string"}]}]}"#.utf8)))
        #expect(minimal.deletes == .lose && minimal.relationships.isEmpty && minimal.table("t")?.column("c")?.nullable == true)
    }

    @Test("A schema that is not one is refused naming where: a bad type, a missing field, the schema's own rules")
    func badSchemas() throws {
        func refusal(_ text: String) -> ProtocolError? {
            do {
                _ = try StoreWire.schema(try JSONLine.decode(Array(text.utf8)))
                return nil
            } catch {
                return error
            }
        }
        let badType = refusal(#"{"version":1,"tables":[{"name":"t","columns":[{"name":"c","type":"text"}]}]}"#)
        #expect(badType?.code == .requestMalformed)
        #expect(badType?.message.contains("schema.tables[0].columns[0].type 'text' is not a column type") == true)
        #expect(refusal(#"{"tables":[]}"#)?.message.contains("'version'") == true)
        #expect(refusal(#"{"version":0,"tables":[]}"#)?.code == .requestMalformed)
        #expect(refusal(#"{"version":1,"deletes":"maybe","tables":[]}"#)?.message.contains("deletes") == true)
        let rules = refusal(#"{"version":1,"tables":[{"name":"t","columns":[{"name":"id","type":"string"}]}]}"#)
        #expect(rules?.code.rawValue == "store.invalidSchema")
    }

    @Test("Each column type's values are written as documented and read back; values of another type are refused")
    func values() {
        let cases: [(ColumnType, StoreValue, JSONValue)] = [
            (.string, .string("Möhren ✓"), .string("Möhren ✓")), (.integer, .integer(Int64.min), .integer(Int64.min)),
            (.double, .double(2.5), .double(2.5)), (.bool, .bool(true), .bool(true)),
            (.date, .date(1_767_225_600_000), .integer(1_767_225_600_000)), (.data, .data([0, 1, 2, 255]), .string("AAEC/w==")),
            (.data, .data([]), .string("")), (.data, .data([1]), .string("AQ==")),
            (.json, .json(.array([.integer(1), .null])), .array([.integer(1), .null])), (.string, .null, .null),
        ]
        for (type, value, json) in cases {
            #expect(StoreWire.json(value) == json, "\(value)")
            #expect(StoreWire.value(json, of: type) == value, "\(json)")
        }
        #expect(StoreWire.value(.string("1"), of: .integer) == nil)
        #expect(StoreWire.value(.integer(1), of: .string) == nil)
        #expect(StoreWire.value(.double(1.5), of: .date) == nil)
        #expect(StoreWire.value(.string("AA=A"), of: .data) == nil)
        #expect(StoreWire.value(.string("AAA"), of: .data) == nil)
        #expect(StoreWire.value(.string("A*=="), of: .data) == nil)
        #expect(StoreWire.value(.integer(3), of: .double) == .double(3))
    }

    @Test("Base64 round-trips every length and byte")
    func base64() {
        var bytes: [UInt8] = []
        for n in 0..<300 {
            #expect(Base64.decode(Base64.encode(bytes)) == bytes, "\(n)")
            bytes.append(UInt8(truncatingIfNeeded: n &* 37))
        }
    }

    @Test("A save's change names exactly one kind; anything else is refused")
    func changes() throws {
        func change(_ text: String) throws -> StoreSaveChange { try StoreSaveChange(json: try JSONLine.decode(Array(text.utf8)), context: "changes[0]") }
        #expect(try change(#"{"insert":"items","values":{"name":"x"}}"#) == .insert(table: "items", id: nil, values: ["name": .string("x")]))
        #expect(try change(#"{"relate":"tags","from":"a","to":"b"}"#) == .relate(relationship: "tags", from: "a", to: "b"))
        #expect(throws: ProtocolError.self) { try change(#"{"insert":"items","delete":"items","id":"a"}"#) }
        #expect(throws: ProtocolError.self) { try change(#"{"values":{}}"#) }
        #expect(throws: ProtocolError.self) { try change(#"{"update":"items","values":{}}"#) }
    }

    @Test("store.changed names rows by URL, lists or says all, and carries conflicts and contests")
    func changedEvent() throws {
        let laptop = DeviceID("laptop")!, phone = DeviceID("phone")!
        let carrots = RowRef(table: "items", id: RowID(high: 0, low: 1))
        var result = ImportResult()
        result.inserted = [carrots]
        result.updated = [RowRef(table: "tags", id: RowID(high: 0, low: 2)): ["name"]]
        result.conflicts = [ColumnConflict(row: carrots, column: "name", winner: .string("Möhren"), winnerClock: HLC(milliseconds: 2, device: phone),
                                           loser: .string("carottes"), loserClock: HLC(milliseconds: 1, device: laptop))]
        var pending = PendingStoreChanges(limit: 10)
        pending.add(result, from: phone)
        let event = StoreChange(handle: 3, container: "com.example.grocery", store: "grocery", pending: pending, clock: "s9").json
        let url = "ubiquity-store://com.example.grocery/grocery/items/00000000000000000000000000000001"
        #expect(event["inserted"] == .array([.string(url)]))
        #expect(event["updated"] == .array([.object(["row": .string("ubiquity-store://com.example.grocery/grocery/tags/00000000000000000000000000000002"),
                                                      "columns": .array([.string("name")])])]))
        #expect(event["conflicts"]?.arrayValue?.first?["loser"] == .string("carottes"))
        #expect(event["conflicts"]?.arrayValue?.first?["loserDevice"] == .string("laptop"))
        #expect(event["devices"] == .array([.string("phone")]))
        #expect(event["all"] == nil && event["clock"] == .string("s9") && event["handle"] == .integer(3))
        pending.markEverything()
        let all = StoreChange(handle: 3, container: "com.example.grocery", store: "grocery", pending: pending, clock: "s9").json
        #expect(all["all"] == .bool(true) && all["inserted"] == nil)
    }
}

extension JSONValue {
    fileprivate subscript(key: String) -> JSONValue? { if case .object(let o) = self { o[key] } else { nil } }
    fileprivate var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
}
