/// A true conflict: two devices wrote one column of one row, neither having seen the other's
/// write. The greater clock reading won everywhere; the loser is reported where the two met.
public struct ColumnConflict: Sendable, Hashable, CustomStringConvertible {
    public let row: RowRef
    public let column: String
    public let winner: StoreValue
    public let winnerClock: HLC
    public let loser: StoreValue
    public let loserClock: HLC

    public init(row: RowRef, column: String, winner: StoreValue, winnerClock: HLC, loser: StoreValue, loserClock: HLC) {
        self.row = row
        self.column = column
        self.winner = winner
        self.winnerClock = winnerClock
        self.loser = loser
        self.loserClock = loserClock
    }

    public var description: String {
        "\(row).\(column): \(winner) from \(winnerClock.device) won over \(loser) from \(loserClock.device)"
    }
}
