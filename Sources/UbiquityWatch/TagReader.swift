import CUbiquitySystem
import Glibc

/// Reads and writes Finder-style tags: the `user.xdg.tags` extended attribute, comma-separated.
///
/// Never follows a symlink (`lgetxattr`). Reading costs about one `stat`, so the index reads
/// tags lazily, only for queries that ask for them:
///
/// ```swift
/// index.tagsReader = TagReader.reader
/// ```
public enum TagReader {
    /// The extended attribute holding the tags.
    public static let attributeName = "user.xdg.tags"

    /// For `MetadataIndex.tagsReader`.
    public static let reader: @Sendable (String) -> [String] = { tags(atPath: $0) }

    /// The tags of the entry at `path`: `[]` when it has none, does not exist, or the file system
    /// has no user extended attributes. Surrounding spaces and empty tags are dropped.
    public static func tags(atPath path: String) -> [String] {
        var capacity = 256
        while capacity <= 1 << 16 {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let size = buffer.withUnsafeMutableBytes { ubq_lgetxattr(path, attributeName, $0.baseAddress, $0.count) }
            if size >= 0 { return parse(buffer[..<size]) }
            let error = Glibc.errno
            if error == EINTR { continue }
            guard error == ERANGE else { return [] }     // ENODATA, ENOTSUP, ENOENT, EACCES: no tags
            let needed = ubq_lgetxattr(path, attributeName, nil, 0)
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
                try System.call("lremovexattr", path: path) { ubq_lremovexattr(path, attributeName) }
            } catch {
                if error.errno != ENODATA { throw error }
            }
            return
        }
        let value = Array(cleaned.joined(separator: ",").utf8)
        try System.call("lsetxattr", path: path) {
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
