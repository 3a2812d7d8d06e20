/// A true conflict: two devices wrote one column of one row, neither having seen the other's
/// write. The greater clock reading won everywhere; the loser is reported where the two met.
public struct ColumnConflict: Sendable, Hashable, CustomStringConvertible {
    public let row: RowRef
    public let column: String
    public let winner: StoreValue
    public let winnerClock: HLC
    public let loser: StoreValue
    public let loserClock: HLC

    public var description: String {
        "\(row).\(column): \(winner) from \(winnerClock.device) won over \(loser) from \(loserClock.device)"
    }
}
