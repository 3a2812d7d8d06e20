import Glibc

/// Files the daemon keeps for itself (the key-value store's, the saved index, the device id),
/// written and read through a directory descriptor, never following a link.
///
/// A replace is durable before it returns: the new content goes to `.<name>.writing`, is fsync-ed,
/// renamed over `<name>`, and the directory is fsync-ed, so after a crash the file is either the
/// old one or the new one, whole.
enum DurableFiles {
    /// Replaces `name` durably; nil, or what failed.
    static func replace(_ name: String, in directory: Int32, with bytes: [UInt8], mode: mode_t = 0o644) -> String? {
        let temporary = "." + name + ".writing"
        let fd = openat(directory, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { return "cannot create \(temporary): \(String(cString: strerror(errno)))" }
        if let failure = writeAll(bytes, to: fd) {
            close(fd)
            unlinkat(directory, temporary, 0)
            return "cannot write \(temporary): \(failure)"
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
        guard fsync(directory) == 0 else { return "cannot fsync the folder of \(name): \(String(cString: strerror(errno)))" }
        return nil
    }

    /// Writes every byte (a short write is continued); nil, or why not.
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n == 0 ? "nothing written" : String(cString: strerror(errno)) }
            written += n
        }
        return nil
    }

    /// A regular file's bytes, at most `limit` + 1 (so that a larger one is seen as such); nil
    /// when it does not exist.
    static func read(_ name: String, in directory: Int32, limit: Int) -> Result<[UInt8], FileProblem>? {
        let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            return .failure(FileProblem("cannot open it: \(String(cString: strerror(errno)))"))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .failure(FileProblem("it is not a regular file")) }
        let cap = limit.addingReportingOverflow(1).overflow ? limit : limit + 1
        var bytes = [UInt8](repeating: 0, count: min(cap, max(0, Int(info.st_size)) + 1))
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return .failure(FileProblem("cannot read it: \(String(cString: strerror(errno)))")) }
            if n == 0 { break }
            count += n
            if count == bytes.count && count < cap { bytes.append(contentsOf: repeatElement(0, count: min(cap - count, 64 << 10))) }
        }
        bytes.removeSubrange(count...)
        return .success(bytes)
    }

    /// `mkdir -p` with mode 0700 for the parts it makes; nil, or what failed.
    static func makeDirectories(_ path: String) -> String? {
        var current = ""
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                return "cannot create \(current): \(String(cString: strerror(errno)))"
            }
        }
        return nil
    }

    /// Opens the daemon's state directory (the device id, the saved index), making it and any
    /// missing parent with mode 0700, and checks it before anything in it is trusted: it must be
    /// a directory (not a link: `O_NOFOLLOW | O_DIRECTORY`), owned by the daemon's effective uid
    /// and not writable by group or others. Otherwise someone else could replace the device id,
    /// plant a saved index, or swap the files under the daemon. The caller closes the descriptor.
    static func openStateDirectory(_ path: String) -> Result<Int32, FileProblem> {
        if let failure = makeDirectories(path) { return .failure(FileProblem(failure)) }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            let why = code == ELOOP ? "it is a symbolic link" : code == ENOTDIR ? "it is not a directory" : String(cString: strerror(code))
            return .failure(FileProblem("cannot use the state directory \(path): \(why); set STATE_DIRECTORY to a directory of the daemon's own"))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let failure = String(cString: strerror(errno))
            close(fd)
            return .failure(FileProblem("cannot examine the state directory \(path): \(failure)"))
        }
        let me = geteuid(), mode = info.st_mode & 0o7777
        guard info.st_uid == me, mode & 0o022 == 0 else {
            close(fd)
            let octal = String(mode, radix: 8)
            return .failure(FileProblem(
                "the state directory \(path) belongs to uid \(info.st_uid) and has mode \(String(repeating: "0", count: max(0, 4 - octal.count)) + octal): "
                + "it must belong to uid \(me) (the daemon) and not be writable by group or others, or another user could "
                + "replace the device id or the saved index; fix it with `chown \(me) \(path) && chmod 700 \(path)`, "
                + "or set STATE_DIRECTORY to a directory of the daemon's own"))
        }
        return .success(fd)
    }
}
