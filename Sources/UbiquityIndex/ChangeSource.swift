/// Where changes come from: the inotify watcher in production, a script in unit tests.
public protocol ChangeSource: Sendable {
    /// Batches in the order they happened, numbered 1, 2, 3, ... The first ones carry the
    /// initial crawl listings.
    func batches() -> AsyncStream<ChangeBatch>
    /// Returns the sequence number of a batch that reflects every change made before the call
    /// (the watcher writes a cookie file and waits for its event). A consumer that has applied
    /// that batch is up to date. Throws ``EngineError/Code/syncTimedOut`` when it cannot say so
    /// in time.
    func sync() async throws -> UInt64
    /// ``sync()``, and with `includingTags` also every entry's tags: a source may deliver an
    /// entry's tags in a later batch than its status (the watcher's tag pass after a crawl).
    func sync(includingTags: Bool) async throws -> UInt64
    /// The consumer has applied every batch up to `sequence` (the watcher's tag pass waits for
    /// that, so that it does not compete with applying a crawl for the processor).
    func applied(through sequence: UInt64)
    /// The consumer began (`true`) or finished (`false`) answering a query: a source may put
    /// off work of its own meanwhile (the watcher's tag pass), so the answer has the processor.
    func answering(_ busy: Bool)
    /// The consumer answers from what it already has while a crawl of the source checks it
    /// (freshness "saved" after a restart): the source's crawls step aside until
    /// ``releaseCrawl()``, or `bound` from now.
    func holdCrawl(for bound: Duration)
    /// An answer that held the crawl (``holdCrawl(for:)``) is written.
    func releaseCrawl()
}

extension ChangeSource {
    /// A source that does not care how far its consumer is.
    public func applied(through sequence: UInt64) {}

    /// A source with no work of its own to put off.
    public func answering(_ busy: Bool) {}

    /// A source whose crawls cannot step aside.
    public func holdCrawl(for bound: Duration) {}
    public func releaseCrawl() {}

    /// A source whose statuses carry their tags.
    public func sync(includingTags: Bool) async throws -> UInt64 { try await sync() }
}
