/// Who is told, on the engine's apply path, that a batch changed a folder at the top of some
/// containers: the daemon's key-value stores reload when their folder (`.ubiquity-kv`) changes,
/// and its relational stores import when a segment lands under `.ubiquity-stores`.
/// Called on the engine's actor once per batch that touches the folder: it must only note the
/// containers and return, never wait.
public struct FolderChanges: Sendable {
    /// The folder's name, an entry at the top of a container.
    public let folder: String
    public let changed: @Sendable (Set<ContainerID>) -> Void

    public init(folder: String, changed: @escaping @Sendable (Set<ContainerID>) -> Void) {
        self.folder = folder
        self.changed = changed
    }
}
