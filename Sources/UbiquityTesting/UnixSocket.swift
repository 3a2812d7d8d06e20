public import Glibc
import Foundation

/// `AF_UNIX` sockets for the test helpers: one place that fills a `sockaddr_un` and says what
/// went wrong, for clients (``connected(to:type:)``) and listeners (``bound(to:type:listening:)``).
public enum UnixSocket {
    /// A new socket of `type`, connected to `path`.
    public static func connected(to path: String, type: __socket_type = SOCK_STREAM) throws -> Int32 {
        let fd = try make(type)
        let result = try withAddress(path) { Glibc.connect(fd, $0, $1) }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw TestDaemonError("connect \(path): \(reason)")
        }
        return fd
    }

    /// Whether a socket bound to `path` is listening (`/proc/net/unix`: the `__SO_ACCEPTCON`
    /// flag, 0x10000): a bound path alone still refuses connections.
    public static func isListening(_ path: String) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8) else { return false }
        // Num RefCount Protocol Flags Type St Inode Path
        return table.split(separator: "\n").dropFirst().contains { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, let flags = UInt32(fields[3], radix: 16) else { return false }
            return flags & 0x10000 != 0 && fields[7...].joined(separator: " ") == path
        }
    }

    /// A new socket of `type`, bound to `path` (and listening, when asked).
    public static func bound(to path: String, type: __socket_type = SOCK_STREAM, listening: Bool) throws -> Int32 {
        let fd = try make(type)
        let result = try withAddress(path) { bind(fd, $0, $1) }
        guard result == 0, !listening || listen(fd, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw TestDaemonError("bind\(listening ? "/listen" : "") \(path): \(reason)")
        }
        return fd
    }

    private static func make(_ type: __socket_type) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestDaemonError("socket: \(String(cString: strerror(errno)))") }
        return fd
    }

    private static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) throws -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw TestDaemonError("socket path too long (\(bytes.count) bytes; 107 at most): \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, byte) in bytes.enumerated() { raw[i] = byte } }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
