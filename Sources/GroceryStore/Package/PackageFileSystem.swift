import FoundationEssentials
import Glibc
import UbiquitySystem

/// The few calls Grocery's reads need that Foundation does not offer (bounded reads of regular
/// files only), and the way into the door (UbiquitySystem's ``Directory``: `fsync` of a
/// directory), each retrying EINTR and failing with ``GroceryError/io(path:operation:message:)``.
/// Writes of the package go through UbiquityKit's ``Document``.
enum PackageFileSystem {
    static func error(_ operation: String, _ path: String, _ code: Int32 = errno) -> GroceryError {
        .io(path: path, operation: operation, message: String(cString: strerror(code)))
    }

    /// Runs calls through the door; a failed one is ``GroceryError/io(path:operation:message:)``
    /// naming the call and its path.
    @discardableResult
    static func door<T>(_ body: () throws(SystemCallError) -> T) throws(GroceryError) -> T {
        do {
            return try body()
        } catch {
            throw GroceryError.io(path: error.path ?? "", operation: error.call, message: error.message)
        }
    }

    /// Makes a rename or creation inside `directory` durable.
    static func syncDirectory(_ directory: String) throws {
        try door { () throws(SystemCallError) in try Directory.open(directory, followingLink: true).sync() }
    }

    /// Reads a whole regular file of at most `limit` bytes.
    ///
    /// Never blocks on a FIFO or a device (opened non-blocking, then refused unless regular), never
    /// reads more than `limit` + 1 bytes (a file that grows meanwhile is still refused), and with
    /// `followLinks` false never reads through a symbolic link.
    /// - Returns: nil when nothing is at `path`.
    /// - Throws: `tooLarge(size)` past the limit; ``GroceryError/io(path:operation:message:)``
    ///   for anything that is not a regular file, or a failed read.
    static func readRegularFile(_ path: String, atMost limit: Int, followLinks: Bool,
                                tooLarge: (Int) -> GroceryError) throws -> Data? {
        let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followLinks ? 0 : O_NOFOLLOW)
        let fd = Glibc.open(path, flags)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw GroceryError.io(path: path, operation: "read", message: "it is a symbolic link") }
            throw error("open", path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw error("stat", path) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw GroceryError.io(path: path, operation: "read", message: "it is not a regular file")
        }
        if info.st_size > limit { throw tooLarge(Int(clamping: info.st_size)) }
        let bytes = try door { () throws(SystemCallError) in
            try Directory.readAll(fd, limit: limit, sizeHint: Int(clamping: info.st_size), path: path)
        }
        guard bytes.count <= limit else { throw tooLarge(bytes.count) }
        return Data(bytes)
    }

    enum Kind { case missing, directory, other }

    static func kind(_ path: String) -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .missing }
        return (info.st_mode & S_IFMT) == S_IFDIR ? .directory : .other
    }
}
