/// A directory the watcher could not put a watch on, and why.
public struct UnwatchedSubtree: Sendable, Hashable, CustomStringConvertible {
    public var container: ContainerID
    /// Components below the container root.
    public var path: [String]
    /// `the watch budget of 100 watches is used up`, `inotify_add_watch failed ...: (ENOSPC)`.
    public var reason: String

    public init(container: ContainerID, path: [String], reason: String) {
        self.container = container
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(container)/\(path.joined(separator: "/")): \(reason)" }
}
