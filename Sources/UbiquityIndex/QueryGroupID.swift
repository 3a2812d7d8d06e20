/// A reader of several queries' events at once (``QueryEngine/makeGroup()``): a server
/// connection reads all its queries with one, so one change that reaches many of them costs one
/// wake-up and one write per connection, not per query.
public struct QueryGroupID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt64
    public var description: String { "group \(rawValue)" }
}
