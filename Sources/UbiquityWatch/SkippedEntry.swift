public import UbiquityIndex

/// An entry the watcher saw but could not index — a name that is not UTF-8, a directory it may
/// not read — kept for `status` and the journal, so nothing is silently invisible.
public struct SkippedEntry: Sendable, Hashable, CustomStringConvertible {
    public var container: ContainerID
    /// Components below the container root; undecodable bytes shown as U+FFFD.
    public var path: [String]
    /// `name: the name is not valid UTF-8`, `openat: Permission denied`.
    public var reason: String

    public var description: String { "\(container)/\(path.joined(separator: "/")): \(reason)" }
}
