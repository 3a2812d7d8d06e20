import FoundationEssentials

/// One element of a `LIKE` pattern (or a Spotlight `==` wildcard value) between stars.
enum GlobUnit<U: Equatable & Sendable>: Equatable, Sendable {
    case literal(U)
    case anyOne
}
