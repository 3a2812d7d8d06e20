import CUbiquitySystem
import Glibc
public import UbiquitySystem

/// Reads and writes Finder-style tags: the `user.xdg.tags` extended attribute, comma-separated.
///
/// The watcher reads tags where it takes an entry's status, relative to the same directory
/// descriptor (``tags(in:named:)``, `getxattrat`), and carries them in the change: the index does
/// no I/O. Never follows a symlink. The path forms are for tools (`ubiq tag`) and tests.
///
/// ```swift
/// try TagReader.setTags(["Red", "urgent"], atPath: "/srv/c/Documents/plan.txt")
/// TagReader.tags(atPath: "/srv/c/Documents/plan.txt")      // ["Red", "urgent"]
/// ```
public enum TagReader {
    /// The extended attribute holding the tags.
    public static let attributeName = "user.xdg.tags"

    /// The largest value read (the kernel's own limit for one attribute value is 64 KiB).
    static let maxValueBytes = 1 << 16

    /// The tags of the entry at `path`: `[]` when it has none, does not exist, or the file system
    /// has no user extended attributes. Surrounding spaces and empty tags are dropped.
    public static func tags(atPath path: String) -> [String] {
        read { ubq_lgetxattr(path, attributeName, $0, $1) }
    }

    /// The tags of the entry `name` in the directory open at `directory`: the watcher's form.
    static func tags(in directory: Int32, named name: UnsafePointer<CChar>) -> [String] {
        read { ubq_getxattrat(directory, name, attributeName, $0, $1) }
    }

    /// Runs `get(buffer, size)` with a growing buffer (`ERANGE`), up to ``maxValueBytes``.
    ///
    /// The first try uses 256 bytes on the stack: this runs for every entry a crawl meets, and
    /// nearly all have no tags (a heap buffer per entry was about 4% of a crawl's time).
    private static func read(_ get: (UnsafeMutableRawPointer?, Int) -> Int) -> [String] {
        var capacity = 256
        let first: [String]?? = withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 1) { buffer in
            let size = System.retrying { get(buffer.baseAddress, buffer.count) }
            if size >= 0 { return .some(parse(ArraySlice(UnsafeRawBufferPointer(rebasing: buffer[..<min(size, buffer.count)])))) }
            return Glibc.errno == ERANGE ? .none : .some(nil)     // ENODATA, ENOTSUP, ENOENT, EACCES: no tags
        }
        switch first {
        case .some(let tags?): return tags
        case .some(nil): return []
        case .none: break           // larger than 256 bytes: grow on the heap
        }
        capacity = max(get(nil, 0), capacity * 2)
        while capacity <= maxValueBytes {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let size = System.retrying { buffer.withUnsafeMutableBytes { get($0.baseAddress, $0.count) } }
            if size >= 0 { return parse(buffer[..<min(size, capacity)]) }
            guard Glibc.errno == ERANGE else { return [] }     // ENODATA, ENOTSUP, ENOENT, EACCES: no tags
            let needed = get(nil, 0)
            capacity = needed > capacity ? needed : capacity * 2
        }
        return []
    }

    /// Sets the tags of the entry at `path` (an empty list removes the attribute).
    ///
    /// - Throws: ``WatchError`` naming `lsetxattr`/`lremovexattr` (`EPERM` on a symlink: Linux
    ///   keeps no user attributes on symlinks; `ENOTSUP` on a file system without them).
    public static func setTags(_ tags: [String], atPath path: String) throws(WatchError) {
        let cleaned = tags.map(trimmed).filter { !$0.isEmpty }
        if cleaned.isEmpty {
            do throws(WatchError) {
                try System.call("lremovexattr", path: path, as: WatchError.self) { ubq_lremovexattr(path, attributeName) }
            } catch {
                if error.errno != ENODATA { throw error }
            }
            return
        }
        let value = Array(cleaned.joined(separator: ",").utf8)
        try System.call("lsetxattr", path: path, as: WatchError.self) {
            value.withUnsafeBytes { ubq_lsetxattr(path, attributeName, $0.baseAddress, $0.count, 0) }
        }
    }

    static func parse(_ bytes: ArraySlice<UInt8>) -> [String] {
        bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true)
            .map { trimmed(String(decoding: $0, as: UTF8.self)) }
            .filter { !$0.isEmpty }
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop(while: { $0 == " " || $0 == "\0" }).reversed().drop(while: { $0 == " " || $0 == "\0" }).reversed())
    }
}
