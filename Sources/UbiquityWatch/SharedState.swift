import UbiquityIndex

/// What callers and the reader thread share, behind ``WatcherShared``'s `Mutex`.
struct SharedState: Sendable {
    enum Phase: Sendable { case created, running, stopping, stopped }
    var phase = Phase.created
    var commands: [WatcherCommand]
    /// Commands sent so far (the first containers included), and how many of them the reader has
    /// run and published the effects of: while they differ, a sync waits for the reader to run
    /// them (``WatcherCommand/barrier(_:)``); when equal it needs no round trip to the reader.
    var commandsSent: UInt64 = 0
    var commandsPublished: UInt64 = 0
    var waiters: [Int: SyncWaiter] = [:]
    var nextWaiter = 0
    var status: WatchStatus
    /// Available containers' roots: where sync writes cookies, and the directory (device, inode)
    /// the reader holds there: a cookie goes only into that very directory.
    var roots: [ContainerID: RootLocation] = [:]
    var stopWaiters: [CheckedContinuation<Void, Never>] = []
    /// The last batch the consumer says it applied.
    var consumed: UInt64 = 0
    /// The reader waits (to read tags) until the consumer has applied this batch.
    var consumerWake: UInt64?
    /// Queries the consumer is answering now, and when it last finished one (monotonic
    /// nanoseconds): the tag pass leaves the processor to an answer.
    var answersUnderWay = 0
    var lastAnswerEnded: Int64 = 0
    /// Callers waiting for a status that satisfies their condition (``WatcherShared/statusReached(_:)``).
    var statusWaiters: [Int: (condition: @Sendable (WatchStatus) -> Bool, continuation: CheckedContinuation<Void, Never>)] = [:]
    var nextStatusWaiter = 0
}
