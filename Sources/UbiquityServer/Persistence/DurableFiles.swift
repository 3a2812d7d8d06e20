import Glibc
import UbiquityPaths

/// Files the daemon keeps for itself (the key-value store's, the saved index, the device id),
/// written and read through a directory descriptor, never following a link.
///
/// The key-value store's files live inside containers, and a container's owner controls
/// everything in it: any name there may already be a FIFO, a device, a symbolic link or a hard
/// link to someone else's file. So nothing here opens an existing name for writing, and nothing
/// opens a name for reading that is not a regular file (see ``replace(_:in:with:mode:)`` and
/// ``read(_:in:limit:)``). This is the one place that writes such files; keep it the one place.
enum DurableFiles {
    /// Replaces `name` durably; nil, or what failed.
    ///
    /// The new content goes to a fresh temporary file of an unpredictable name
    /// (`.<name>.<16 random hex digits>.writing`), created with `O_CREAT | O_EXCL | O_NOFOLLOW |
    /// O_NONBLOCK` — so a FIFO, link or hard link planted at any name can neither block the write
    /// nor receive it — `fsync`-ed, renamed over `<name>`, and the directory is `fsync`-ed: after
    /// a crash the file is either the old one or the new one, whole.
    static func replace(_ name: String, in directory: Int32, with bytes: [UInt8], mode: mode_t = 0o644) -> String? {
        var fd: Int32 = -1
        var temporary = ""
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<16 {
            temporary = temporaryName(of: name, generator: &generator)
            fd = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { return "cannot create \(temporary): \(String(cString: strerror(errno)))" }
        func fail(_ what: String) -> String {
            close(fd)
            unlinkat(directory, temporary, 0)
            return what
        }
        if let failure = writeAll(bytes, to: fd) { return fail("cannot write \(temporary): \(failure)") }
        guard fsync(fd) == 0 else { return fail("cannot fsync \(temporary): \(String(cString: strerror(errno)))") }
        close(fd)
        guard renameat(directory, temporary, directory, name) == 0 else {
            let failure = String(cString: strerror(errno))
            unlinkat(directory, temporary, 0)
            return "cannot rename \(temporary) to \(name): \(failure)"
        }
        guard fsync(directory) == 0 else { return "cannot fsync the folder of \(name): \(String(cString: strerror(errno)))" }
        return nil
    }

    /// `.<name>.<16 random lowercase hex digits>.writing`.
    static func temporaryName(of name: String, generator: inout some RandomNumberGenerator) -> String {
        let random = UInt64.random(in: 0...UInt64.max, using: &generator)
        let hex = String(random, radix: 16)
        return "." + name + "." + String(repeating: "0", count: 16 - hex.count) + hex + ".writing"
    }

    /// Whether `entry` is a temporary file ``replace(_:in:with:mode:)`` makes for `name` (or made
    /// under its older, fixed name `.<name>.writing`).
    static func isTemporary(_ entry: String, of name: String) -> Bool {
        entry.hasPrefix("." + name + ".") && entry.hasSuffix(".writing") && entry.utf8.count <= name.utf8.count + 26
    }

    /// Removes temporary files of `name` left behind by a crash (or planted there). `unlinkat`
    /// removes the name only: whatever it is, nothing is opened or followed.
    static func removeTemporaries(of name: String, in directory: Int32, among names: [String]) {
        for entry in names where isTemporary(entry, of: name) { unlinkat(directory, entry, 0) }
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
    ///
    /// Never opens a FIFO, a device or a link: `fstatat(AT_SYMLINK_NOFOLLOW)` must say "regular
    /// file" before the `openat(O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)`, and the descriptor's
    /// `fstat` must then name the same inode, still regular (the name may be swapped between).
    /// A file larger than `limit` is refused from its size, without reading it, and a file with
    /// more than one hard link is refused too.
    static func read(_ name: String, in directory: Int32, limit: Int) -> Result<[UInt8], FileProblem>? {
        var named = stat()
        guard fstatat(directory, name, &named, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return nil }
            return .failure(FileProblem("cannot examine it: \(String(cString: strerror(errno)))"))
        }
        if let problem = notRegular(named) { return .failure(problem) }
        // A second name elsewhere (another container's store, linked in where
        // fs.protected_hardlinks is off) is not this folder's file to read.
        guard named.st_nlink <= 1 else {
            return .failure(FileProblem("it has \(named.st_nlink) hard links; a file the daemon reads must have one name"))
        }
        if Int(clamping: named.st_size) > limit { return .failure(tooLarge(Int(clamping: named.st_size), limit: limit)) }
        let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            return .failure(FileProblem("cannot open it: \(String(cString: strerror(errno)))"))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_dev == named.st_dev, info.st_ino == named.st_ino else {
            return .failure(FileProblem("it is not a regular file (it was replaced while being opened)"))
        }
        let cap = limit.addingReportingOverflow(1).overflow ? limit : limit + 1
        var bytes = [UInt8](repeating: 0, count: min(cap, max(0, Int(clamping: info.st_size)) + 1))
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

    /// Why a file of this status is not read, or nil for a regular file.
    static func notRegular(_ info: stat) -> FileProblem? {
        switch info.st_mode & S_IFMT {
        case S_IFREG: nil
        case S_IFLNK: FileProblem("it is a symbolic link, not a regular file (links are never followed)")
        case S_IFIFO: FileProblem("it is a FIFO, not a regular file")
        case S_IFDIR: FileProblem("it is a directory, not a regular file")
        default: FileProblem("it is a device or socket, not a regular file")
        }
    }

    static func tooLarge(_ size: Int, limit: Int) -> FileProblem {
        FileProblem("it is \(size) bytes, more than the \(limit) it may have")
    }

    /// `mkdir -p` with mode 0700 for the parts it makes; nil, or what failed.
    static func makeDirectories(_ path: String) -> String? {
        var current = ""
        for part in PathBytes.components(of: path) {
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
