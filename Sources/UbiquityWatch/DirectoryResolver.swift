import CUbiquitySystem
import Glibc
import UbiquityIndex
import UbiquitySystem

/// Reaches directories below a container root one component at a time, each opened relative to
/// its parent's descriptor with `O_NOFOLLOW`: a directory replaced by a symlink is never
/// followed (the entry reads as gone; its events follow), and no path is ever longer than one
/// name, so changes deeper than `PATH_MAX` are seen like any other.
///
/// One resolver serves one pass over a batch: the directories it opened stay open (at most
/// ``maxOpen``) so many changes in one directory cost one walk. ``close()`` releases them.
struct DirectoryResolver {
    /// Descriptors held at once; past this the cache starts over (a batch touching thousands of
    /// directories must not run the process out of descriptors).
    static let maxOpen = 64

    let root: Int32
    /// Keyed by the components' bytes: two canonically equivalent names are two directories
    /// (``ExactName``), and a change in one must not be read in the other.
    private var open: [[ExactName]: Int32] = [:]

    init(root: Int32) { self.root = root }

    /// The descriptor of the directory at `path` below the root (`[]`: the root itself), or nil
    /// when it is gone, is not a directory, or is a symlink.
    mutating func directory(_ path: [String]) -> Int32? {
        if path.isEmpty { return root }
        let key = ExactName.path(path)
        if let fd = open[key] { return fd }
        if open.count + path.count > Self.maxOpen { close() }
        // Start from the deepest ancestor already open.
        var depth = path.count - 1
        while depth > 0 && open[Array(key[..<depth])] == nil { depth -= 1 }
        var fd = depth == 0 ? root : open[Array(key[..<depth])]!
        while depth < path.count {
            let next = openat(fd, path[depth], UBQ_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { return nil }
            depth += 1
            open[Array(key[..<depth])] = next
            fd = next
        }
        return fd
    }

    /// Status and tags of the entry at `path` (never through a symlink), nil when it is gone.
    mutating func entry(_ path: [String], describing: @autoclosure () -> String) -> FileStat? {
        guard let name = path.last, let parent = directory(Array(path.dropLast())) else { return nil }
        return try? System.entry(at: parent, name, describing: describing())
    }

    /// Closes every descriptor opened (never the root).
    mutating func close() {
        for fd in open.values { _ = Glibc.close(fd) }
        open.removeAll(keepingCapacity: true)
    }
}
