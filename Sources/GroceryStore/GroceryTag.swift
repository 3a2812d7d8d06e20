/// A tag of store mode: its name as first written (tags are unique by their folded name, so
/// `Mall` and ` mall ` are one tag on every device) and how many items carry it.
public struct GroceryTag: Sendable, Hashable {
    /// The row's id: derived from the folded name, the same on every device.
    public let id: String
    public let name: String
    public var itemCount: Int

    public init(id: String, name: String, itemCount: Int) {
        self.id = id
        self.name = name
        self.itemCount = itemCount
    }
}
