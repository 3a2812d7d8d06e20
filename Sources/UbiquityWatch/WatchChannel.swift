/// One inotify instance and what the watcher knows through it: its watch tree, its overflow
/// schedule, the containers it watches.
///
/// Each container gets a channel of its own (up to ``FileWatcher/Configuration/maxInotifyInstances``;
/// past that, or when the kernel refuses another instance, containers share the first one): the
/// kernel's queue limit is per instance, so a user flooding their own container overflows only
/// their channel, and only their containers are rescanned.
///
/// Single-threaded: owned by the watcher's reader thread.
final class WatchChannel {
    let inotify: Inotify
    var tree = WatchTree()
    var resync: ResyncSchedule
    /// The container slots watched through this channel.
    var slots: Set<Int> = []
    /// Whether other containers may join (the shared channel) or it closes with its container.
    let isShared: Bool

    init(inotify: Inotify, backoffNanoseconds: Int64, isShared: Bool) {
        self.inotify = inotify
        self.isShared = isShared
        resync = ResyncSchedule(backoffNanoseconds: backoffNanoseconds)
    }
}

@available(*, unavailable, message: "owned by the watcher's reader thread")
extension WatchChannel: Sendable {}
