import Foundation
import Glibc

/// A directory of the package opened once, without following a symbolic link, so every name
/// below is created, listed and deleted relative to that directory and never through a link
/// someone put in its place (`images -> /home/me`: nothing there is ever written or deleted).
///
/// Owns its descriptor: use it inside ``PackageDirectory/with(_:_:)``, which closes it.
struct PackageDirectory: ~Copyable {
    let fd: Int32
    /// For messages only.
    let path: String

    /// Opens `path` as a directory; a symbolic link or anything else there is a corrupt package.
    static func with<T>(_ path: String, _ body: (borrowing PackageDirectory) throws -> T) throws -> T {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ELOOP || errno == ENOTDIR {
                throw GroceryError.corruptPackage(path: path, reason: "it is not a directory (a symbolic link or a file is there)")
            }
            throw PackageFileSystem.error("open directory", path)
        }
        let directory = PackageDirectory(fd: fd, path: path)
        defer { close(fd) }
        return try body(directory)
    }

    /// Creates `name` (it must not exist, and is never a link), writes `data` and fsyncs it.
    func writeNewFile(_ name: String, _ data: Data) throws {
        let fd = openat(self.fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PackageFileSystem.error("create", path + "/" + name) }
        defer { close(fd) }
        try PackageFileSystem.writeAll(fd, data, path: path + "/" + name)
    }

    /// The names in the directory, without `.` and `..`.
    func names() throws -> [String] {
        let copy = dup(fd)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            throw PackageFileSystem.error("list", path)
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Deletes the file `name` in this directory (never a file a link points to); a name already
    /// gone is not an error.
    func unlink(_ name: String) {
        _ = unlinkat(fd, name, 0)
    }

    /// Makes creations, renames and deletions in the directory durable.
    func sync() throws {
        guard fsync(fd) == 0 else { throw PackageFileSystem.error("fsync", path) }
    }
}
