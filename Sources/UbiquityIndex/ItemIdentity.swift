
/// An item's identity for its whole life: its slot and the slot's generation.
public struct ItemIdentity: Sendable, Hashable, Comparable {
    public let id: ItemID
    public let generation: UInt32
    public static func < (a: ItemIdentity, b: ItemIdentity) -> Bool {
        (a.id, a.generation) < (b.id, b.generation)
    }
}
