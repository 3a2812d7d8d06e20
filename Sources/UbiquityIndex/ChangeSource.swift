/// Where changes come from: the inotify watcher in production, a script in unit tests.
public protocol ChangeSource: Sendable {
    /// Batches in the order they happened, numbered 1, 2, 3, ... The first ones carry the
    /// initial crawl listings.
    func batches() -> AsyncStream<ChangeBatch>
    /// Returns the sequence number of a batch that reflects every change made before the call
    /// (the watcher writes a cookie file and waits for its event). A consumer that has applied
    /// that batch is up to date.
    func sync() async throws -> UInt64
}
