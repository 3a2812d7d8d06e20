/// Which part of a container an item is in.
public enum Scope: String, Sendable, Hashable, CaseIterable {
    /// `Documents/` and everything below it.
    case documents
    /// Everything else in the container.
    case data
}
