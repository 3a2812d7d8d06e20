import UbiquityIndex

/// One ``FileWatcher/sync(timeout:)`` participant, for one container.
struct SyncWaiter: Sendable {
    enum State: Sendable {
        case pending
        case waiting(CheckedContinuation<UInt64, any Error>)
        case acknowledged(UInt64)
    }
    var container: ContainerID
    var cookie: String
    /// No cookie could be written: the reader rescans the container instead.
    var needsRescan = false
    var state: State = .pending
}
