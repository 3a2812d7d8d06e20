import Glibc

/// The directories the daemon itself makes inside containers (a container directory and its
/// `Documents/`), created and handed to their owner through descriptors, never through a path
/// that a symbolic link could redirect.
///
/// Why: a container's owner controls what is inside it. Running as root, a `chown` by path on
/// `…/Documents` after the owner replaced it by a link to `/etc/profile.d` would give that
/// directory away. `mkdirat` + `openat(O_NOFOLLOW | O_DIRECTORY)` + `fstat`/`fchown` act on the
/// directory that is really there, or refuse.
enum ContainerDirectory {
    /// Opens a directory without following a link in its last component. The caller closes it.
    static func open(_ path: String) -> Result<Int32, FileProblem> {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return .failure(problem(path, errno)) }
        return .success(fd)
    }

    /// Makes sure `name` is a real directory inside `parent` (creating it with `mode` when
    /// missing) and, as root, gives it to `owner`/`group` when they are configured and differ.
    ///
    /// - Returns: whether it was created, or why it is not usable (a link, a file, no access).
    static func ensure(_ name: String, in parent: Int32, parentPath: String, mode: mode_t,
                       owner: UInt32?, group: UInt32?) -> Result<Bool, FileProblem> {
        let path = parentPath.hasSuffix("/") ? parentPath + name : parentPath + "/" + name
        let created = mkdirat(parent, name, mode) == 0
        guard created || errno == EEXIST else {
            return .failure(FileProblem("cannot create \(path): \(String(cString: strerror(errno)))"))
        }
        let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return .failure(problem(path, errno)) }
        defer { close(fd) }
        if let failure = handOver(fd, path: path, owner: owner, group: group) { return .failure(failure) }
        return .success(created)
    }

    /// `fchown` to the configured owner and group; nothing when none is configured or it matches.
    static func handOver(_ fd: Int32, path: String, owner: UInt32?, group: UInt32?) -> FileProblem? {
        guard owner != nil || group != nil else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return FileProblem("cannot examine \(path): \(String(cString: strerror(errno)))") }
        let uid = owner ?? info.st_uid, gid = group ?? info.st_gid
        if info.st_uid == uid && info.st_gid == gid { return nil }
        guard fchown(fd, uid, gid) == 0 else {
            return FileProblem("cannot give \(path) to uid \(uid), gid \(gid): \(String(cString: strerror(errno)))")
        }
        return nil
    }

    private static func problem(_ path: String, _ code: Int32) -> FileProblem {
        var info = stat()
        let isLink = lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
        return switch code {
        case _ where isLink, ELOOP:
            FileProblem("\(path) is a symbolic link; the daemon never follows links inside containers")
        case ENOTDIR: FileProblem("\(path) exists and is not a directory")
        case ENOENT: FileProblem("\(path) does not exist")
        default: FileProblem("cannot open \(path): \(String(cString: strerror(code)))")
        }
    }
}
