public import UbiquityIndex

/// Feeds a ``QueryEngine`` from a ``FileWatcher``: batches keep their sequence numbers, so the
/// engine's complete-gathering barrier is the watcher's cookie sync.
public struct WatcherChangeSource: ChangeSource {
    public let watcher: FileWatcher

    public init(_ watcher: FileWatcher) { self.watcher = watcher }

    /// The watcher's batches as the engine's, forwarded in order by one task.
    public func batches() -> AsyncStream<ChangeBatch> {
        let watcher = self.watcher
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeBatch.self)
        let forwarder = Task {
            for await batch in watcher.batches {
                continuation.yield(ChangeBatch(sequence: batch.sequence, changes: batch.changes,
                                               notices: batch.notices.compactMap(WatcherChangeSource.notice)))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forwarder.cancel() }
        return stream
    }

    public func sync() async throws -> UInt64 { try await watcher.sync() }

    /// What subscribers hear about the watching; the rest stays in ``FileWatcher/status``.
    static func notice(_ notice: WatchNotice) -> ChangeNotice? {
        switch notice {
        case .containerAvailable(let id): .containerAvailable(id)
        case .containerUnavailable(let id): .containerUnavailable(id)
        case .resync(let id, let reason):
            .rescanned(id, reason: reason == .queueOverflow ? "the kernel event queue overflowed" : reason.rawValue)
        case .subtreeUnwatched(let subtree):
            .unwatched(subtree.container, path: subtree.path.joined(separator: "/"), reason: subtree.reason)
        case .subtreeWatched, .skipped: nil
        }
    }
}
