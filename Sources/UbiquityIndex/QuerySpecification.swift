public import UbiquityPredicate

/// What a query asks for: which items (predicate, containers, scopes), in which order, with
/// which attributes, and how often it wants to hear about changes.
public struct QuerySpecification: Sendable {
    public var predicate: MetadataPredicate
    /// Empty means every registered container.
    public var containers: Set<ContainerID>
    public var scopes: Set<Scope>
    public var sort: [MetadataSortDescriptor]
    /// Attributes each result carries (its path always comes along).
    public var attributes: [Attribute]
    /// Updates are delivered at most once per interval; zero means as soon as possible.
    public var batchingInterval: Duration
    /// False: gather once and stop.
    public var live: Bool
    /// Which changes of a member are a `changed`: any (the default) or those of the attributes
    /// the query reads.
    public var changes: ChangeReporting
    /// Exact (the default), or at once from the saved index after a restart.
    public var freshness: QueryFreshness

    public static let defaultBatchingInterval = Duration.milliseconds(50)

    /// Whether the answer depends on tags (the predicate tests them, results sort by them or
    /// carry them): such a query waits for the tags of a crawl, every other one does not.
    public var readsTags: Bool {
        attributes.contains(.userTags) || sort.contains { $0.attribute == .userTags }
            || predicate.attributes.contains(.userTags)
    }

    public init(
        predicate: MetadataPredicate, containers: Set<ContainerID> = [], scopes: Set<Scope> = Set(Scope.allCases),
        sort: [MetadataSortDescriptor] = [], attributes: [Attribute] = [.name],
        batchingInterval: Duration = QuerySpecification.defaultBatchingInterval, live: Bool = true,
        changes: ChangeReporting = .all, freshness: QueryFreshness = .exact
    ) {
        self.predicate = predicate
        self.containers = containers
        self.scopes = scopes
        self.sort = sort
        self.attributes = attributes
        self.batchingInterval = batchingInterval
        self.live = live
        self.changes = changes
        self.freshness = freshness
    }
}
