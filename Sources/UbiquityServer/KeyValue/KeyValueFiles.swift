import Glibc
import UbiquityKeyValue

/// The store's files on disk (docs/kv-store.md): `<container>/.ubiquity-kv/<device>.json`, read and
/// written through the directory's descriptor, never following a link.
///
/// A write is durable before it returns (``DurableFiles``): after a crash the file is either the
/// old one or the new one, whole.
enum KeyValueFiles {
    /// The folder in every container (one of ``SyncEngineFiles``' names: never an item).
    static let directory = ".ubiquity-kv"

    /// Opens the store's folder of the container at `root`, creating it (as root, for the
    /// container's owner) when missing and `create`; nil when it is missing and not `create`.
    /// The caller closes the descriptor.
    static func openDirectory(root: String, create: Bool, owner: UInt32?, group: UInt32?) -> Result<Int32, FileProblem>? {
        let fd: Int32
        switch ContainerDirectory.open(root) {
        case .success(let value): fd = value
        case .failure(let problem): return .failure(problem)
        }
        defer { close(fd) }
        if create {
            let asRoot = geteuid() == 0
            if case .failure(let problem) = ContainerDirectory.ensure(directory, in: fd, parentPath: root, mode: 0o755,
                                                                      owner: asRoot ? owner : nil, group: asRoot ? group : nil) {
                return .failure(problem)
            }
        }
        let inner = DirectoryEntries.open(directory, in: fd)
        if inner >= 0 { return .success(inner) }
        if errno == ENOENT && !create { return nil }
        return .failure(FileProblem("cannot open \(root)/\(directory): \(String(cString: strerror(errno)))"))
    }

    /// The store files in the folder: `*.json` not starting with a dot (a sync engine's temporary
    /// files and our own `.writing` files start with one). Conflict copies a sync engine may make
    /// (`X.sync-conflict-….json`) are read too: merging them is harmless.
    static func names(in directory: Int32) -> [String] {
        DirectoryEntries.names(in: directory).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
    }

    /// A file's bytes, at most ``KVReplica/maxFileBytes`` (+1, so that a larger one is seen as such).
    /// nil when it is gone.
    static func read(_ name: String, in directory: Int32) -> Result<[UInt8], KVFileProblem>? {
        DurableFiles.read(name, in: directory, limit: KVReplica.maxFileBytes).map { $0.mapError { KVFileProblem($0.message) } }
    }

    /// Replaces `name` durably (``DurableFiles/replace(_:in:with:mode:)``).
    static func write(_ bytes: [UInt8], to name: String, in directory: Int32) -> String? {
        DurableFiles.replace(name, in: directory, with: bytes)
    }
}
