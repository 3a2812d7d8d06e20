public import UbiquityIndex

/// What the watcher saw in one read of the kernel queue (or one rescan), in order.
public struct WatchBatch: Sendable {
    /// 1, 2, 3, ...: ``FileWatcher/sync(timeout:)`` returns the sequence number that a consumer
    /// must have applied to reflect every change made before the sync.
    public var sequence: UInt64
    /// Apply in order with `MetadataIndex.apply(_:)`.
    public var changes: [FileSystemChange]
    /// What happened to the watching itself: resyncs, containers coming and going, unwatched subtrees.
    public var notices: [WatchNotice]
}

/// Something subscribers (and the journal) should hear about the watching itself.
public enum WatchNotice: Sendable, Hashable {
    /// The container root exists and is watched (at start, and when it reappears).
    case containerAvailable(ContainerID)
    /// The container root is gone (deleted, moved away, unmounted); its items were removed.
    /// The watcher keeps checking and sends ``containerAvailable(_:)`` when it is back.
    case containerUnavailable(ContainerID)
    /// The container was rescanned from scratch and the index told only the real differences.
    case resync(ContainerID, reason: ResyncReason)
    /// A subtree could not be watched; it is kept correct by periodic rescans.
    case subtreeUnwatched(UnwatchedSubtree)
    /// A subtree that was unwatched is watched again.
    case subtreeWatched(ContainerID, [String])
    /// A directory or entry could not be read (permissions, I/O); its contents are not indexed.
    case skipped(ContainerID, [String], reason: String)
}

/// Why a container was rescanned.
public enum ResyncReason: String, Sendable, Hashable {
    /// The kernel's event queue overflowed (`IN_Q_OVERFLOW`): events were lost.
    case queueOverflow
}

/// A directory the watcher could not put a watch on, and why.
public struct UnwatchedSubtree: Sendable, Hashable, CustomStringConvertible {
    public var container: ContainerID
    /// Components below the container root.
    public var path: [String]
    /// `the configured watch budget of 100 is used up`, `inotify_add_watch failed ...: (ENOSPC)`.
    public var reason: String

    public var description: String { "\(container)/\(path.joined(separator: "/")): \(reason)" }
}

/// A snapshot of the watcher's health, for `status` commands and the journal.
public struct WatchStatus: Sendable, Hashable {
    /// inotify watches held (one per watched directory).
    public var watchesUsed: Int
    /// The most watches this watcher will hold (configured, and below the kernel limit).
    public var watchBudget: Int
    /// `/proc/sys/fs/inotify/max_user_watches`: shared by every process of this uid.
    public var kernelWatchLimit: Int?
    /// Subtrees kept correct by periodic rescans instead of watches.
    public var unwatchedSubtrees: [UnwatchedSubtree]
    /// How many times the kernel queue overflowed.
    public var overflowCount: Int
    /// How many full rescans overflows caused (fewer than overflows when they came in a burst).
    public var resyncCount: Int
    public var availableContainers: [ContainerID]
    public var unavailableContainers: [ContainerID]
    /// The sequence number of the last batch emitted.
    public var lastSequence: UInt64

    public init(
        watchesUsed: Int = 0, watchBudget: Int = 0, kernelWatchLimit: Int? = nil,
        unwatchedSubtrees: [UnwatchedSubtree] = [], overflowCount: Int = 0, resyncCount: Int = 0,
        availableContainers: [ContainerID] = [], unavailableContainers: [ContainerID] = [], lastSequence: UInt64 = 0
    ) {
        self.watchesUsed = watchesUsed
        self.watchBudget = watchBudget
        self.kernelWatchLimit = kernelWatchLimit
        self.unwatchedSubtrees = unwatchedSubtrees
        self.overflowCount = overflowCount
        self.resyncCount = resyncCount
        self.availableContainers = availableContainers
        self.unavailableContainers = unavailableContainers
        self.lastSequence = lastSequence
    }
}
