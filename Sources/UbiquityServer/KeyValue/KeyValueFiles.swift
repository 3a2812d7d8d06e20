import Glibc
import UbiquityKeyValue

/// The store's files on disk (docs/kv-store.md): `<container>/.ubiquity-kv/<device>.json`, read and
/// written through the directory's descriptor, never following a link.
///
/// A write is durable before it returns: the new content goes to `.<name>.writing`, is fsync-ed,
/// renamed over `<name>`, and the directory is fsync-ed, so after a crash the file is either the
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
        let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            return .failure(KVFileProblem("cannot open it: \(String(cString: strerror(errno)))"))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return .failure(KVFileProblem("it is not a regular file"))
        }
        let limit = KVReplica.maxFileBytes + 1
        var bytes = [UInt8](repeating: 0, count: min(limit, max(0, Int(info.st_size)) + 1))
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return .failure(KVFileProblem("cannot read it: \(String(cString: strerror(errno)))")) }
            if n == 0 { break }
            count += n
            if count == bytes.count && count < limit { bytes.append(contentsOf: repeatElement(0, count: min(limit - count, 64 << 10))) }
        }
        return .success(Array(bytes[..<count]))
    }

    /// Replaces `name` durably (write, fsync, rename, fsync the folder).
    static func write(_ bytes: [UInt8], to name: String, in directory: Int32) -> String? {
        let temporary = "." + name + ".writing"
        let fd = openat(directory, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return "cannot create \(temporary): \(String(cString: strerror(errno)))" }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let failure = String(cString: strerror(errno))
                close(fd)
                unlinkat(directory, temporary, 0)
                return "cannot write \(temporary): \(failure)"
            }
            written += n
        }
        guard fsync(fd) == 0 else {
            let failure = String(cString: strerror(errno))
            close(fd)
            unlinkat(directory, temporary, 0)
            return "cannot fsync \(temporary): \(failure)"
        }
        close(fd)
        guard renameat(directory, temporary, directory, name) == 0 else {
            let failure = String(cString: strerror(errno))
            unlinkat(directory, temporary, 0)
            return "cannot rename \(temporary) to \(name): \(failure)"
        }
        guard fsync(directory) == 0 else { return "cannot fsync the store's folder: \(String(cString: strerror(errno)))" }
        return nil
    }
}
