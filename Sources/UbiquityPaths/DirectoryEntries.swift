import CUbiquitySystem
import Glibc

/// Listing and removing through directory descriptors only (never a path a link could redirect),
/// bounded so a hostile tree cannot make a caller loop, recurse without end or exhaust descriptors.
public enum DirectoryEntries {
    /// How deep a removal (or a package search) goes.
    public static let maxDepth = 64
    /// How many entries one listing returns at most.
    public static let maxEntries = 100_000

    /// The names in `directory` as bytes (not `.` and `..`), at most ``maxEntries``. The
    /// descriptor is not consumed (a duplicate is read) and may be `O_PATH`.
    public static func names(in directory: Int32) -> [[UInt8]] {
        let copy = openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while names.count < maxEntries, let entry = readdir(stream) {
            guard let name = ubq_dirent_name(entry) else { continue }
            let length = strlen(name)
            let bytes = name.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
            if bytes != [0x2E] && bytes != [0x2E, 0x2E] { names.append(bytes) }
        }
        return names
    }

    /// The names in `directory` that are valid UTF-8, as text (a name that is not cannot be
    /// carried by the protocol, so it is never a version or an item).
    public static func textNames(in directory: Int32) -> [String] {
        names(in: directory).compactMap { String(validating: $0, as: UTF8.self) }
    }

    /// Removes `name` from `directory`: a file or link with `unlinkat`, a directory with everything
    /// in it (at most ``maxDepth`` levels). Nothing there is not a failure.
    /// - Returns: nil, or why not (errno's text, or the depth).
    public static func remove(_ name: [UInt8], in directory: Int32, depth: Int = 0) -> String? {
        let first = Beneath.withCString(name) { unlinkat(directory, $0, 0) }
        if first == 0 || errno == ENOENT { return nil }
        guard errno == EISDIR || errno == EPERM else { return String(cString: strerror(errno)) }
        guard depth < maxDepth else { return "deeper than \(maxDepth) levels" }
        let fd = Beneath.withCString(name) { openat(directory, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        for inner in names(in: fd) {
            if let failure = remove(inner, in: fd, depth: depth + 1) { close(fd); return failure }
        }
        close(fd)
        let last = Beneath.withCString(name) { unlinkat(directory, $0, AT_REMOVEDIR) }
        return last == 0 || errno == ENOENT ? nil : String(cString: strerror(errno))
    }
}
