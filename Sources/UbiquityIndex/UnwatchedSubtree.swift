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

    /// The order the watcher's status and the engine list subtrees in: by container, then by the
    /// path's bytes, so two canonically equal paths (`café` precomposed and decomposed) are no
    /// tie left to a dictionary's order, which differs from run to run.
    public static func precedes(_ a: UnwatchedSubtree, _ b: UnwatchedSubtree) -> Bool {
        a.container != b.container ? a.container < b.container : ExactName.precedes(ExactName.path(a.path), ExactName.path(b.path))
    }
}
