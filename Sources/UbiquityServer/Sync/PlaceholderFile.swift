import CUbiquitySystem
import Glibc
import UbiquityIndex
import UbiquitySystem

/// The disk side of files on demand (docs/architecture.md, "Files on demand"): an evicted item's
/// file becomes its placeholder `.NAME.ubiquity-evicted` in the same directory, and the
/// placeholder is removed once the item's own file is back. Blocking system calls: run on a
/// thread of NIO's pool.
enum PlaceholderFile {
    /// The placeholder's name (bytes) for an item named `name`; nil when too long for one.
    static func name(for name: [UInt8]) -> [UInt8]? {
        guard name.count <= EvictedPlaceholderName.maxItemNameBytes else { return nil }
        return [UInt8(ascii: ".")] + name + Array(EvictedPlaceholderName.suffix.utf8)
    }

    enum Outcome: Equatable {
        case evicted(size: Int64)
        /// Nothing named `name` is there (evicted already, or gone).
        case missing
        case failed(String)
    }

    /// Turns the file `name` in `directory` into its placeholder: renamed (so it keeps its inode,
    /// birth time and tags: the index keeps the item as it was), emptied to no data blocks at the
    /// same size (a hole punched over it), its access and modification times set back, then both
    /// made durable.
    ///
    /// A crash after the rename leaves the placeholder with its content (nothing lost; the space
    /// is freed at the next eviction of the item, which finds it evicted and empties it again).
    static func evict(_ name: [UInt8], in directory: Int32) -> Outcome {
        guard let placeholder = Self.name(for: name) else {
            return .failed("the name is longer than \(EvictedPlaceholderName.maxItemNameBytes) bytes: its placeholder's would not fit")
        }
        let renamed = Beneath.withCString(name) { from in
            Beneath.withCString(placeholder) { to in renameat(directory, from, directory, to) }
        }
        if renamed != 0 {
            let code = errno
            return code == ENOENT ? .missing : .failed("renaming to its placeholder failed: \(String(cString: strerror(code)))")
        }
        return empty(placeholder, in: directory)
    }

    /// Frees the placeholder's data blocks, keeping its size and times.
    static func empty(_ placeholder: [UInt8], in directory: Int32) -> Outcome {
        let fd = Beneath.withCString(placeholder) { openat(directory, $0, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { return .failed("opening the placeholder failed: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .failed("reading the placeholder's status failed: \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFREG else { return .failed("the placeholder is not a regular file") }
        let size = status.st_size
        var times = [status.st_atim, status.st_mtim]
        // A hole over the whole file keeps its size at every moment (a watcher reading it between
        // two steps sees the item's size); a file system without holes: truncated and grown back.
        // Up to the end of the last block: a block only partly punched is zeroed, not freed.
        let block = Int64(max(status.st_blksize, 512))
        let (rounded, overflow) = Int64(size).addingReportingOverflow(block - 1)
        if size > 0, ubq_punch_hole(fd, overflow ? Int64.max : rounded / block * block) != 0 {
            guard errno == EOPNOTSUPP, ftruncate(fd, 0) == 0, ftruncate(fd, size) == 0 else {
                return .failed("emptying the placeholder failed: \(String(cString: strerror(errno)))")
            }
        }
        guard futimens(fd, &times) == 0, fsync(fd) == 0, fsync(directory) == 0 else {
            return .failed("keeping the placeholder's times failed: \(String(cString: strerror(errno)))")
        }
        return .evicted(size: Int64(size))
    }

    /// Whether an entry `name` is in `directory` (not following a link).
    static func exists(_ name: [UInt8], in directory: Int32) -> Bool {
        var status = stat()
        return Beneath.withCString(name) { fstatat(directory, $0, &status, AT_SYMLINK_NOFOLLOW) } == 0
    }

    /// Removes the placeholder of `name` when `name` itself is there again (the item's file
    /// wins). Returns whether one was removed.
    @discardableResult
    static func removeIfReplaced(_ name: [UInt8], in directory: Int32) -> Bool {
        guard let placeholder = Self.name(for: name), exists(name, in: directory), exists(placeholder, in: directory) else { return false }
        return Beneath.withCString(placeholder) { unlinkat(directory, $0, 0) } == 0
    }
}
