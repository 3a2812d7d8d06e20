import Synchronization

/// The incremental snapshot encoder of one engine, behind a lock: the engine hands it to the
/// index store's thread for each save (saves run one at a time, so the lock is never contended).
final class SnapshotEncoderState: Sendable {
    let state = Mutex(IncrementalSnapshotEncoder())
}
