import UbiquityPredicate

/// What a live query's membership, order and deltas depend on: two running queries with equal
/// keys, both exact against the same index, hold the same results and are told the same changes,
/// so the engine keeps one ``LiveQuery`` for them and applies each change set to it once
/// (``QueryEngine``'s delivery). What differs between them — batching, pending updates, readers
/// — is each query's own ``QueryLifecycle``.
///
/// Nil for a query that is not live (it never applies a change) and for one whose predicate
/// reads the clock (``MetadataPredicate/readsTheClock``): compiled at another moment, it may
/// match other items.
struct SharedQueryKey: Hashable {
    let predicate: MetadataPredicate
    /// The containers as the index numbers them (nil: all).
    let containers: Set<Int>?
    /// How many times the engine's containers were added, configured anew or removed before the
    /// query started: a container configured anew (other package types, say) keeps its number, and
    /// a query started before it may no longer hold what a gathering gives now.
    let containerReconfigurations: Int
    let scopes: Set<Scope>
    let sort: [MetadataSortDescriptor]
    let attributes: [Attribute]
    let changes: ChangeReporting

    init?(_ query: LiveQuery, containerReconfigurations: Int) {
        let specification = query.specification
        guard specification.live, !specification.predicate.readsTheClock else { return nil }
        predicate = specification.predicate
        containers = query.containerFilter
        self.containerReconfigurations = containerReconfigurations
        scopes = specification.scopes
        sort = specification.sort
        attributes = specification.attributes
        changes = specification.changes
    }
}
