import UbiquityKit
import UbiquityProtocol

/// The list's settings, kept in the container's key-value store so that they follow the user to
/// their other devices (docs/grocery.md, docs/kv-store.md).
extension GroceryList {
    /// The key of the list's sort order: `"name"` or `"created"`.
    public static let sortOrderKey = "grocery.sortOrder"

    /// The sort order last chosen on any device; nil when none was (or an unknown one was stored).
    public func storedSortOrder() async throws -> GroceryItemOrder? {
        let result = try await connection.send(KVGet(container: container, key: GroceryList.sortOrderKey))
        guard case .string(let raw)? = result.value else { return nil }
        return GroceryItemOrder(rawValue: raw)
    }

    /// The order to show items in when a command chose none: the stored one, else by name.
    public func sortOrder() async throws -> GroceryItemOrder {
        try await storedSortOrder() ?? .name
    }

    /// Remembers `order` for every device; returns once it is on disk.
    public func setSortOrder(_ order: GroceryItemOrder) async throws {
        let store = try await KeyValueStore.open(container, connection: connection)
        try await store.set(order.rawValue, forKey: GroceryList.sortOrderKey)
        await store.close()
    }
}
