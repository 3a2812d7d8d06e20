import Testing
import UbiquityStore

/// A row's wire address: written and read back the same, every malformed form refused.
@Suite("StoreRowURL: ubiquity-store://<container>/<store>/<table>/<id>")
struct StoreRowURLTests {
    static let id = RowID(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)

    @Test("written in the documented form, the id in lowercase hex, and read back equal")
    func roundTrip() throws {
        let url = try #require(StoreRowURL(container: "com.example.grocery", store: "grocery", table: "items", id: Self.id))
        #expect(url.description == "ubiquity-store://com.example.grocery/grocery/items/0123456789abcdeffedcba9876543210")
        let parsed = try #require(StoreRowURL(url.description))
        #expect(parsed == url)
        #expect(parsed.container == "com.example.grocery" && parsed.store == "grocery" && parsed.table == "items")
        #expect(parsed.id == Self.id)
    }

    @Test("an id in upper case is read as the same row")
    func upperCaseID() throws {
        let parsed = try #require(StoreRowURL("ubiquity-store://com.example.grocery/grocery/items/0123456789ABCDEFFEDCBA9876543210"))
        #expect(parsed.id == Self.id)
    }

    @Test("malformed addresses are refused", arguments: [
        "",
        "ubiquity-store://",
        "file:///com.example.grocery/grocery/items/0123456789abcdeffedcba9876543210",
        "ubiquity-store:/com.example.grocery/grocery/items/0123456789abcdeffedcba9876543210",
        "ubiquity-store://com.example.grocery/grocery/items",
        "ubiquity-store://com.example.grocery/grocery/items/0123456789abcdeffedcba9876543210/x",
        "ubiquity-store://com.example.grocery/grocery/items/0123456789abcdeffedcba987654321",
        "ubiquity-store://com.example.grocery/grocery/items/0123456789abcdeffedcba9876543210?x=1",
        "ubiquity-store:///grocery/items/0123456789abcdeffedcba9876543210",
        "ubiquity-store://com.example.grocery//items/0123456789abcdeffedcba9876543210",
        "ubiquity-store://com.example.grocery/grocery/1items/0123456789abcdeffedcba9876543210",
        "ubiquity-store://com.example.grocery/../items/0123456789abcdeffedcba9876543210",
        "ubiquity-store://../grocery/items/0123456789abcdeffedcba9876543210",
        "ubiquity-store://./grocery/items/0123456789abcdeffedcba9876543210",
        "ubiquity-store://com..example/grocery/items/0123456789abcdeffedcba9876543210",
        "ubiquity-store://.com.example/grocery/items/0123456789abcdeffedcba9876543210",
        "ubiquity-store://com example/grocery/items/0123456789abcdeffedcba9876543210",
        "ubiquity-store://com.example.grocery/gro-cery/items/0123456789abcdeffedcba9876543210",
    ])
    func refused(_ text: String) {
        #expect(StoreRowURL(text) == nil, "\(text) was accepted")
    }

    @Test("parts that are not of their form are refused when building")
    func refusedParts() {
        #expect(StoreRowURL(container: "", store: "grocery", table: "items", id: Self.id) == nil)
        #expect(StoreRowURL(container: "com/example", store: "grocery", table: "items", id: Self.id) == nil)
        #expect(StoreRowURL(container: String(repeating: "a", count: 256), store: "grocery", table: "items", id: Self.id) == nil)
        #expect(StoreRowURL(container: String(repeating: "a", count: 255), store: "grocery", table: "items", id: Self.id) != nil)
        #expect(StoreRowURL(container: "com.example.grocery", store: "", table: "items", id: Self.id) == nil)
        #expect(StoreRowURL(container: "com.example.grocery", store: "grocery", table: "id x", id: Self.id) == nil)
    }
}
