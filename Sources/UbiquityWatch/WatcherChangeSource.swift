public import UbiquityIndex

/// Feeds a ``QueryEngine`` from a ``FileWatcher``: the watcher already emits the engine's
/// ``ChangeBatch``es, numbered so that the engine's complete-gathering barrier is the watcher's
/// cookie sync. A plain adapter: no task, no copying.
public struct WatcherChangeSource: ChangeSource {
    public let watcher: FileWatcher

    public init(_ watcher: FileWatcher) { self.watcher = watcher }

    /// The watcher's one stream of batches (one consumer).
    public func batches() -> AsyncStream<ChangeBatch> { watcher.batches }

    public func sync() async throws -> UInt64 { try await sync(includingTags: false) }

    /// The watcher's sync; its timeout becomes the engine's ``EngineError/Code/syncTimedOut``,
    /// which a client may see (a ``WatchError`` may name paths, so it reaches none).
    public func sync(includingTags: Bool) async throws -> UInt64 {
        do {
            return try await watcher.sync(includingTags: includingTags)
        } catch where error.code == .syncTimedOut {
            throw EngineError.syncTimedOut(after: watcher.configuration.syncTimeout)
        }
    }

    public func applied(through sequence: UInt64) { watcher.consumed(through: sequence) }

    public func answering(_ busy: Bool) { watcher.answering(busy) }

    public func holdCrawl(for bound: Duration) { watcher.crawlPause.hold(for: bound) }

    public func releaseCrawl() { watcher.crawlPause.release() }
}
