/// What ``StoreState/floorDeletedRows()`` changed: the rows shrunk to generation floors and the
/// pair registers dropped because they can never show again. The daemon writes the first anew
/// and removes the second from its cache.
public struct StoreFloors: Sendable, Hashable {
    public var rows: [RowRef] = []
    public var droppedPairs: [PairKey] = []

    public init() {}

    public var isEmpty: Bool { rows.isEmpty && droppedPairs.isEmpty }
}
