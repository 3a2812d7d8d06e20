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

    public init(container: ContainerID, path: [String], reason: String) {
        self.container = container
        self.path = path
        self.reason = reason
    }

    /// Equal paths are equal byte for byte (``ExactName``), as the kernel tells names apart: two
    /// unreadable directories spelt `café` precomposed and decomposed are two entries, each
    /// listed and counted, where as `String`s the second was taken for the first.
    public static func == (a: SkippedEntry, b: SkippedEntry) -> Bool {
        a.container == b.container && a.reason == b.reason && ExactName.path(a.path) == ExactName.path(b.path)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(container)
        hasher.combine(ExactName.path(path))
        hasher.combine(reason)
    }
}
