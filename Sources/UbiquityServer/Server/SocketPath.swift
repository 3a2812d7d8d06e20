import UbiquitySystem
import Glibc
import UbiquityProtocol

/// Makes a socket path safe to bind: the directory exists, is ours and writable only by us;
/// a stale socket from a crashed daemon is removed, a live one is an error.
enum SocketPath {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static func prepare(_ path: String) throws(Problem) {
        guard path.hasPrefix("/") else { throw Problem(description: "the socket path '\(path)' must be absolute") }
        guard path.utf8.count < 108 else {
            throw Problem(description: "the socket path '\(path)' is \(path.utf8.count) bytes; Unix sockets allow 107")
        }
        let directory = PathBytes.directory(of: path)
        if !directory.isEmpty { try makeDirectory(directory) }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw Problem(description: "'\(path)' exists and is not a socket; refusing to replace it")
            }
            if isListening(path) {
                throw Problem(description: "another ubiquityd is already listening on '\(path)'")
            }
            unlink(path)
        }
    }

    /// `mkdir -p`, then insists the directory is a real directory (not a link), owned by us and
    /// not writable by others, so nobody can swap the socket under our clients.
    private static func makeDirectory(_ directory: String) throws(Problem) {
        let mode: mode_t = geteuid() == 0 ? 0o755 : 0o700
        var prefix = ""
        for component in PathBytes.components(of: directory) {
            prefix += "/" + component
            if mkdir(prefix, mode) != 0 && errno != EEXIST {
                throw Problem(description: "cannot create the socket directory '\(prefix)': \(String(cString: strerror(errno)))")
            }
        }
        // lstat, not stat: a symbolic link planted at the path (say /tmp/ubiquity-UID pointing at
        // a directory we own) would pass the checks below and could be re-pointed afterwards.
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            throw Problem(description: "cannot read the socket directory '\(directory)': \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw Problem(description: "the socket directory '\(directory)' is a symbolic link or not a directory; refusing to bind through it")
        }
        guard info.st_uid == geteuid() else {
            throw Problem(description: "the socket directory '\(directory)' belongs to uid \(info.st_uid), not to us (uid \(geteuid())); use a directory the service owns, e.g. $XDG_RUNTIME_DIR/ubiquity")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw Problem(description: "the socket directory '\(directory)' is writable by others (mode \(String(info.st_mode & 0o777, radix: 8))); use a directory only the service can write")
        }
    }

    /// Whether something accepts connections on `path` (a daemon already running).
    static func isListening(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0
    }
}
