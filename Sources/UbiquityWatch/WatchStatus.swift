public import UbiquityIndex

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
    /// inotify instances open: one per container up to the configured limit, plus the shared one.
    public var inotifyInstances: Int
    /// How many times a kernel queue overflowed.
    public var overflowCount: Int
    /// How many full rescans overflows caused (fewer than overflows when they came in a burst).
    public var resyncCount: Int
    public var availableContainers: [ContainerID]
    public var unavailableContainers: [ContainerID]
    /// Why an unavailable container is, when more is known than "its directory is missing"
    /// (its root is a symlink, is not a directory, cannot be opened).
    public var unavailableReasons: [ContainerID: String]
    /// The sequence number of the last batch emitted.
    public var lastSequence: UInt64
    /// The latest entries that could not be indexed (names not UTF-8, unreadable directories),
    /// at most 100; ``skippedTotal`` counts them all.
    public var skippedEntries: [SkippedEntry]
    public var skippedTotal: Int
    /// Directories whose entries' tags are still to be read after a crawl (the tag pass).
    public var tagPassPending: Int

    public init(
        watchesUsed: Int = 0, watchBudget: Int = 0, kernelWatchLimit: Int? = nil,
        unwatchedSubtrees: [UnwatchedSubtree] = [], overflowCount: Int = 0, resyncCount: Int = 0,
        availableContainers: [ContainerID] = [], unavailableContainers: [ContainerID] = [],
        unavailableReasons: [ContainerID: String] = [:], lastSequence: UInt64 = 0,
        skippedEntries: [SkippedEntry] = [], skippedTotal: Int = 0, inotifyInstances: Int = 1,
        tagPassPending: Int = 0
    ) {
        self.watchesUsed = watchesUsed
        self.watchBudget = watchBudget
        self.kernelWatchLimit = kernelWatchLimit
        self.unwatchedSubtrees = unwatchedSubtrees
        self.overflowCount = overflowCount
        self.resyncCount = resyncCount
        self.availableContainers = availableContainers
        self.unavailableContainers = unavailableContainers
        self.unavailableReasons = unavailableReasons
        self.lastSequence = lastSequence
        self.skippedEntries = skippedEntries
        self.skippedTotal = skippedTotal
        self.inotifyInstances = inotifyInstances
        self.tagPassPending = tagPassPending
    }
}
