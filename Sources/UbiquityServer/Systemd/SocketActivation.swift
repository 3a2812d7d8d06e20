import CSystemd
import Glibc
public import UbiquitySystem

/// Socket activation: adopting the listening sockets systemd (or `systemd-socket-activate`) passed.
///
/// With `ubiquityd.socket`, systemd owns `/run/ubiquity/ubiquityd.sock` and starts the daemon on the
/// first connection; the daemon must then serve that very socket instead of binding the path again
/// (which would unlink the socket clients are queued on). See `sd_listen_fds(3)`.
///
/// ```swift
/// if let socket = try SocketActivation.listeningSocket(named: "ubiquityd", unsetEnvironment: true) {
///     // adopt socket.fileDescriptor with ServerBootstrap.withBoundSocket
/// }
/// ```
public enum SocketActivation {
    /// The first passed descriptor: `SD_LISTEN_FDS_START`.
    public static let firstFileDescriptor = Int32(SD_LISTEN_FDS_START)

    /// The sockets passed to this process, with their names, in descriptor order.
    ///
    /// Reads `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` through `sd_listen_fds_with_names(3)`,
    /// which also sets `FD_CLOEXEC` on the descriptors so no child inherits them. Nothing was passed
    /// (an empty array) when `LISTEN_PID` is unset or names another process.
    ///
    /// - Parameter unsetEnvironment: Remove the three variables afterwards, so that a child process
    ///   does not believe the sockets are for it. `unsetenv` is not thread-safe: pass `true` only
    ///   before other threads start reading the environment (early in `main`).
    /// - Returns: One ``ActivatedSocket`` per passed descriptor.
    /// - Throws: ``SystemdError`` naming `sd_listen_fds_with_names` when the variables are malformed
    ///   (`LISTEN_FDS=0`, a name count that differs from the descriptor count: `EINVAL`).
    public static func listeningSockets(unsetEnvironment: Bool) throws(SystemdError) -> [ActivatedSocket] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = try System.callReturningErrno("sd_listen_fds_with_names", as: SystemdError.self) {
            sd_listen_fds_with_names(unsetEnvironment ? 1 : 0, &names)
        }
        // libsystemd allocates the array and each string; we own both.
        defer {
            if let names {
                for index in 0..<Int(count) { free(names[index]) }
                free(names)
            }
        }
        return (0..<count).map { index in
            let name = names?[Int(index)].map { String(cString: $0) } ?? "unknown"
            return ActivatedSocket(fileDescriptor: firstFileDescriptor + index, name: name)
        }
    }

    /// The passed socket named `name`, checked to be a listening `AF_UNIX` stream socket.
    ///
    /// A single unnamed socket (`unknown`, from a unit without `FileDescriptorName=`) is accepted too.
    ///
    /// - Returns: `nil` when nothing was passed: bind the configured path instead.
    /// - Throws: ``SystemdError`` with ``SystemdError/Code/noActivatedSocket`` when sockets were passed
    ///   but none is ours, ``SystemdError/Code/notUnixListener`` when ours is the wrong kind, or the
    ///   errors of ``listeningSockets(unsetEnvironment:)``.
    public static func listeningSocket(named name: String, unsetEnvironment: Bool) throws(SystemdError) -> ActivatedSocket? {
        let sockets = try listeningSockets(unsetEnvironment: unsetEnvironment)
        if sockets.isEmpty { return nil }
        let unnamed = sockets.count == 1 && sockets[0].name == "unknown" ? sockets[0] : nil
        guard let socket = sockets.first(where: { $0.name == name }) ?? unnamed else {
            throw SystemdError(
                .noActivatedSocket,
                message: "the service manager passed \(sockets.map(\.description).joined(separator: ", ")) "
                    + "but none named '\(name)'; set FileDescriptorName=\(name) in the socket unit")
        }
        try checkUnixStreamListener(socket)
        return socket
    }

    /// Checks that `socket` is a listening `AF_UNIX` stream socket, the only kind the daemon serves.
    ///
    /// - Throws: ``SystemdError/Code/notUnixListener`` saying what the descriptor is instead (a file,
    ///   an `AF_INET` socket, a datagram socket, a socket that is not listening), or a `sd_is_socket_unix`
    ///   / `fstat` failure (`EBADF` for a closed descriptor).
    public static func checkUnixStreamListener(_ socket: ActivatedSocket) throws(SystemdError) {
        let fd = socket.fileDescriptor
        let isListener = try System.callReturningErrno("sd_is_socket_unix", as: SystemdError.self) {
            sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0)
        }
        if isListener > 0 { return }
        throw SystemdError(
            .notUnixListener,
            message: "\(socket) is not a listening AF_UNIX stream socket: it is \(try describe(fd)); "
                + "use ListenStream=/path in the socket unit")
    }

    /// The path `socket` is bound to (`getsockname(2)`): the socket unit's `ListenStream=`, which
    /// is what `status` must report, whatever the configuration's `socket` says.
    ///
    /// - Returns: `nil` for a socket that is not an `AF_UNIX` socket bound to a path (unbound,
    ///   abstract, another family) or when `getsockname` fails.
    public static func boundPath(of socket: ActivatedSocket) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let status = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.fileDescriptor, $0, &length) }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        guard status == 0, address.sun_family == sa_family_t(AF_UNIX), Int(length) > pathOffset else { return nil }
        let bytes = withUnsafeBytes(of: address.sun_path) { Array($0.prefix(Int(length) - pathOffset)) }
        // An abstract socket's name starts with NUL; a path ends at its first NUL.
        guard let first = bytes.first, first != 0 else { return nil }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// What `fd` is, in words: `a regular file`, `a non-listening AF_UNIX stream socket`, ...
    private static func describe(_ fd: Int32) throws(SystemdError) -> String {
        var status = stat()
        try System.call("fstat", as: SystemdError.self) { fstat(fd, &status) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a pipe"
        case S_IFCHR: return "a character device"
        case S_IFSOCK: break
        default: return "not a socket"
        }
        let family = socketOption(fd, SO_DOMAIN)
        let type = socketOption(fd, SO_TYPE)
        let listening = socketOption(fd, SO_ACCEPTCONN) == 1
        let familyName = switch family {
        case AF_UNIX: "AF_UNIX"
        case AF_INET: "AF_INET"
        case AF_INET6: "AF_INET6"
        case AF_NETLINK: "AF_NETLINK"
        default: "family \(family.map(String.init) ?? "?")"
        }
        let typeName = switch type {
        case Int32(SOCK_STREAM.rawValue): "stream"
        case Int32(SOCK_DGRAM.rawValue): "datagram"
        case Int32(SOCK_SEQPACKET.rawValue): "seqpacket"
        default: "type \(type.map(String.init) ?? "?")"
        }
        return "a \(listening ? "listening" : "non-listening") \(familyName) \(typeName) socket"
    }

    private static func socketOption(_ fd: Int32, _ option: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, option, &value, &length) == 0 ? value : nil
    }
}
