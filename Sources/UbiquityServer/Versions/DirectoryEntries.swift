import CUbiquitySystem
import Glibc

/// Reading and removing directories through descriptors only (never a path a link could redirect),
/// bounded so a hostile tree cannot make the daemon loop or exhaust descriptors.
enum DirectoryEntries {
    /// How deep a package is searched for conflict copies, or removed.
    static let maxDepth = 64
    /// How many entries one directory listing returns at most.
    static let maxEntries = 100_000

    /// The names in `directory` (not `.` and `..`), at most ``maxEntries``.
    static func names(in directory: Int32) -> [String] {
        let copy = fcntl(directory, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        var names: [String] = []
        while names.count < maxEntries, let entry = readdir(stream) {
            let name = String(cString: ubq_dirent_name(entry))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Opens the subdirectory `name` of `directory` without following a link; -1 with errno set.
    static func open(_ name: String, in directory: Int32) -> Int32 {
        openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    }

    /// Removes `name` from `directory`: a file or link with `unlinkat`, a directory with
    /// everything in it. Returns errno's text on failure.
    static func remove(_ name: String, in directory: Int32, depth: Int = 0) -> String? {
        if unlinkat(directory, name, 0) == 0 || errno == ENOENT { return nil }
        guard errno == EISDIR || errno == EPERM else { return String(cString: strerror(errno)) }
        guard depth < maxDepth else { return "deeper than \(maxDepth) levels" }
        let fd = open(name, in: directory)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        for inner in names(in: fd) {
            if let failure = remove(inner, in: fd, depth: depth + 1) { close(fd); return failure }
        }
        close(fd)
        return unlinkat(directory, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? nil : String(cString: strerror(errno))
    }
}
