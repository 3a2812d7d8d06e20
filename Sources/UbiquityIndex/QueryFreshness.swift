/// How fresh a query's first answer must be.
///
/// The default answer is exact (guarantee 1 in docs/live-queries.md): it reflects every change
/// made before the query started, so after a restart it waits for the crawl that checks the saved
/// index against the file system. A view that would rather show the last known list at once, and
/// then be corrected, asks for ``saved``.
public enum QueryFreshness: String, Sendable, Hashable, CaseIterable {
    /// Reflects every change made before the query started.
    case exact
    /// While the index restored at start is not yet checked against the file system, answered at
    /// once from it and marked unverified; what the check finds arrives as ordinary updates, then
    /// ``QueryEvent/verified``. Once the index is checked, the same as ``exact``.
    case saved
}
