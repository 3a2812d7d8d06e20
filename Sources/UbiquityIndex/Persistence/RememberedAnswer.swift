import UbiquityPredicate

/// A live query's answer as it stood when a clean shutdown saved the index: after the restart, a
/// query asking for freshness "saved" with the same ``key`` is answered from it at once, while the
/// saved index is still being loaded (docs/architecture.md, "Remembered answers"). Once the index
/// is loaded the engine gathers the query again: the same results go on as they are; others
/// replace the remembered ones with a reset.
public struct RememberedAnswer: Sendable {
    /// What the answer depends on (``key(for:containers:)``).
    public let key: String
    /// The index's clock when the answer was taken: the snapshot's, which the restored index
    /// goes on from.
    public let clock: HistoryClock
    public let results: ResultSet
    /// The snapshot the answer was taken with (set as the file is read; 0 before it is written).
    public let snapshotID: UInt64

    public init(key: String, clock: HistoryClock, results: ResultSet, snapshotID: UInt64 = 0) {
        self.key = key
        self.clock = clock
        self.results = results
        self.snapshotID = snapshotID
    }

    /// Everything a query's results and their values depend on, in one canonical string: the
    /// predicate as printed (parsing it gives back an equal predicate), the scopes, the sort, the
    /// attributes, and each container it reaches with its root and package types (a container
    /// moved or configured anew names other items). Not the batching, liveness or change
    /// reporting, which change what is sent later, not the answer.
    public static func key(for specification: QuerySpecification, containers: [ContainerDescriptor]) -> String {
        let reached = containers
            .filter { specification.containers.isEmpty || specification.containers.contains($0.id) }
            .sorted { $0.id.rawValue < $1.id.rawValue }
            .map { container in
                let packages = container.packageTypes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                return "\(container.id.rawValue)@\(container.root)[\(packages.joined(separator: ","))]"
            }
        return [
            "predicate " + specification.predicate.description,
            "scopes " + specification.scopes.map(\.rawValue).sorted().joined(separator: ","),
            "sort " + specification.sort.map(\.description).joined(separator: ","),
            "attributes " + specification.attributes.map(\.canonicalName).joined(separator: ","),
            "containers " + reached.joined(separator: ";"),
        ].joined(separator: "\n")
    }
}
