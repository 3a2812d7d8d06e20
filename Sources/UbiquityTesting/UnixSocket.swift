public import Glibc
import Foundation

/// `AF_UNIX` sockets for the test helpers: one place that fills a `sockaddr_un` and says what
/// went wrong, for clients (``connected(to:type:)``) and listeners (``bound(to:type:listening:)``).
public enum UnixSocket {
    /// A new socket of `type`, connected to `path`.
    public static func connected(to path: String, type: __socket_type = SOCK_STREAM) throws -> Int32 {
        let fd = try make(type)
        let result = try withAddress(Array(path.utf8), naming: path) { Glibc.connect(fd, $0, $1) }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw TestDaemonError("connect \(path): \(reason)")
        }
        return fd
    }

    /// Whether a socket bound to `path` is listening (`/proc/net/unix`: the `__SO_ACCEPTCON`
    /// flag, 0x10000): a bound path alone still refuses connections.
    ///
    /// The table is read as bytes: any process may bind a name that is not UTF-8 (an abstract
    /// `@\xff` is enough), and the table must still be read. The kernel prints it a page at a time
    /// with no lock across pages, so a socket closed elsewhere meanwhile can shift a line out of
    /// one reading: a miss is read again, three readings in all.
    public static func isListening(_ path: String) -> Bool {
        let wanted = Array(path.utf8)
        for _ in 0..<3 where listeningPaths().contains(wanted) { return true }
        return false
    }

    /// The paths of the listening sockets in `/proc/net/unix`, as bytes.
    private static func listeningPaths() -> Set<[UInt8]> {
        let space = UInt8(ascii: " ")
        var paths = Set<[UInt8]>()
        // Num RefCount Protocol Flags Type St Inode Path
        let table = FileManager.default.contents(atPath: "/proc/net/unix") ?? Data()
        for line in table.split(separator: UInt8(ascii: "\n")).dropFirst() {
            let fields = line.split(separator: space, omittingEmptySubsequences: true)
            guard fields.count >= 8, let flags = UInt32(String(decoding: fields[3], as: UTF8.self), radix: 16),
                  flags & 0x10000 != 0 else { continue }
            paths.insert(Array(fields[7...].joined(separator: [space])))
        }
        return paths
    }

    /// A new socket of `type`, bound to `path` (and listening, when asked).
    public static func bound(to path: String, type: __socket_type = SOCK_STREAM, listening: Bool) throws -> Int32 {
        try bound(address: Array(path.utf8), naming: path, type: type, listening: listening)
    }

    /// A new listening socket bound to the abstract `name` (no file; `/proc/net/unix` shows it as
    /// `@name`), which may be any bytes.
    public static func listening(abstract name: [UInt8]) throws -> Int32 {
        try bound(address: [0] + name, naming: "@" + String(decoding: name, as: UTF8.self), type: SOCK_STREAM, listening: true)
    }

    private static func bound(address: [UInt8], naming path: String, type: __socket_type, listening: Bool) throws -> Int32 {
        let fd = try make(type)
        let result = try withAddress(address, naming: path) { bind(fd, $0, $1) }
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

    /// `address` is `sun_path`'s bytes: a path, or a 0 then an abstract name, whose length the
    /// address's length says (an abstract name's trailing zeros would be part of it).
    private static func withAddress<T>(_ address: [UInt8], naming path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) throws -> T {
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        guard address.count < MemoryLayout.size(ofValue: socketAddress.sun_path) else {
            throw TestDaemonError("socket path too long (\(address.count) bytes; 107 at most): \(path)")
        }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in for (i, byte) in address.enumerated() { raw[i] = byte } }
        let length = address.first == 0
            ? (MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2) + address.count
            : MemoryLayout<sockaddr_un>.size
        return withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }
}
