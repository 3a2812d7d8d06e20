/// One query's next event, as a group's reader receives it (``QueryEngine/nextEvents(_:)``).
public struct QueryGroupEvent: Sendable, Equatable {
    public let query: QueryID
    /// Nil: the query has ended for this reader (stopped and read out, or released); it left the group.
    public let event: QueryEvent?

    public init(query: QueryID, event: QueryEvent?) {
        self.query = query
        self.event = event
    }
}
