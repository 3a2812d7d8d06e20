import Glibc
import UbiquitySystem

/// Files the daemon keeps for itself (the key-value store's, the saved index, the device id),
/// written and read through a directory descriptor, never following a link.
///
/// The key-value store's files live inside containers, and a container's owner controls
/// everything in it: any name there may already be a FIFO, a device, a symbolic link or a hard
/// link to someone else's file. So nothing opens an existing name for writing — every write is
/// the door's durable replace (``Directory/replace(_:with:mode:temporary:)``), which waits for
/// the disk and so runs on an `NIOThreadPool`, never on an actor or Swift's cooperative pool — and
/// nothing opens a name for reading that is not a regular file (``read(_:in:limit:)``).
enum DurableFiles {
    /// Removes temporary files of `name` left behind by a crash (or planted there). `unlinkat`
    /// removes the name only: whatever it is, nothing is opened or followed.
    static func removeTemporaries(of name: String, in directory: Directory, among names: [String]) {
        for entry in names where Directory.isTemporary(entry, of: name) { try? directory.remove(entry) }
    }

    /// A regular file's bytes, at most `limit`; nil when it does not exist. Refused (never
    /// opened): a link, a FIFO, a device, a file with more than one hard link, a file larger than
    /// `limit` (``Directory/read(_:limit:singleLink:)``).
    static func read(_ name: String, in directory: Directory, limit: Int,
                     betweenPieces: (() -> Void)? = nil) -> Result<[UInt8], FileProblem>? {
        directory.read(name, limit: limit, singleLink: true, betweenPieces: betweenPieces)
            .map { $0.mapError { FileProblem($0.description) } }
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
    static func openStateDirectory(_ path: String) -> Result<Directory, FileProblem> {
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
        return .success(Directory(adopting: fd, path: path))
    }
}
