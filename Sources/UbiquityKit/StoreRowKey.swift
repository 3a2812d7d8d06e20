import UbiquityStore

/// Which row: its table and id (Core Data's object id). A `store.changed` names rows by their
/// address `ubiquity-store://<container>/<store>/<table>/<id>`; this is its last two parts.
public struct StoreRowKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var table: String
    /// 32 lowercase hex digits.
    public var id: String

    public init(table: String, id: String) {
        self.table = table
        self.id = id
    }

    /// The row an address names; nil for anything that is not a row address.
    public init?(address: String) {
        guard let url = StoreRowURL(address) else { return nil }
        self.init(table: url.table, id: url.id.description)
    }

    public var description: String { "\(table)/\(id)" }
    public static func < (a: StoreRowKey, b: StoreRowKey) -> Bool { (a.table, a.id) < (b.table, b.id) }
}
