import UbiquityIndex

/// A request from a caller to the reader thread.
enum WatcherCommand: Sendable {
    case add(ContainerDescriptor)
    case remove(ContainerID)
    case hold(CheckedContinuation<Void, Never>)
    case release
    /// Test hook: the reader sleeps this long while running commands (stands in for a long crawl).
    case stall(Duration)
    /// Resumed once every command sent before it has run and its effects are published
    /// (so `sync` sees containers added just before it, e.g. at start).
    case barrier(CheckedContinuation<Void, Never>)
    /// Resumed once the tag pass has read every directory queued before it (at once when none is);
    /// `hurrying`: the pass runs at once, quiet queue or not.
    case afterTagPass(CheckedContinuation<Void, Never>, hurrying: Bool)
    /// Test hook: the tag pass stops (true) or goes on (false).
    case holdTagPass(Bool)
}
