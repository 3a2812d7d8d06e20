/// `query.start`'s `changes`: which changes of a member item are a `changed` (docs/protocol.md).
public enum WireChangeReporting: String, Sendable, Hashable, CaseIterable {
    /// Any change of the item's content or metadata (the default).
    case all
    /// Only changes of the attributes the query asks for, sorts by or tests, its path and its
    /// conflict state.
    case requested
}
