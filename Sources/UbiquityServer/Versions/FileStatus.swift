import Glibc
import UbiquityProtocol

/// What a versions operation needs to know of one entry, from `fstatat` without following links.
struct FileStatus {
    var isDirectory: Bool
    var isRegularFile: Bool
    var size: Int64
    var modified: Double
    var etag: ItemETag

    /// The entry `name` in `directory`; nil when it is missing, or errno's text otherwise.
    static func of(_ name: String, in directory: Int32) -> Result<FileStatus?, VersionError> {
        var info = stat()
        guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return .success(nil) }
            return .failure(VersionError(.fileSystem, "cannot examine '\(name)': \(String(cString: strerror(errno)))"))
        }
        let type = info.st_mode & S_IFMT
        return .success(FileStatus(
            isDirectory: type == S_IFDIR, isRegularFile: type == S_IFREG, size: Int64(info.st_size),
            modified: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9,
            etag: ItemETag(inode: UInt64(info.st_ino), modifiedSeconds: Int64(info.st_mtim.tv_sec),
                           modifiedNanoseconds: Int64(info.st_mtim.tv_nsec), size: Int64(info.st_size))))
    }
}
