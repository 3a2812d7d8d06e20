/// Which part of a container a query looks at.
public enum WireScope: String, Sendable, Hashable, CaseIterable {
    case documents
    case data
}
