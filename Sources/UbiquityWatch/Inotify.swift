import CUbiquitySystem
import Glibc
import UbiquitySystem

/// An inotify instance: its descriptor, adding and removing watches, reading events.
///
/// Single-threaded: the watcher's reader thread owns it.
final class Inotify {
    let fd: Int32
    /// Watch through `/proc/self/fd/N` (exactly the inode the crawler opened) when /proc is there.
    private let watchesThroughProc: Bool
    private let buffer: UnsafeMutableRawBufferPointer

    /// The kernel's watch limit for this uid (`/proc/sys/fs/inotify/max_user_watches`), if readable.
    static func kernelWatchLimit() -> Int? {
        readInteger("/proc/sys/fs/inotify/max_user_watches")
    }

    /// Adopts an inotify descriptor (see `Inotify.open()`); ``close()`` releases it.
    init(adopting fd: Int32, bufferSize: Int = 64 * 1024) {
        self.fd = fd
        watchesThroughProc = access("/proc/self/fd", F_OK) == 0
        // Smaller than one maximal event (16 + NAME_MAX + 1) and read() fails with EINVAL.
        let size = max(bufferSize, MemoryLayout<inotify_event>.size + Int(NAME_MAX) + 1)
        buffer = .allocate(byteCount: size, alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    /// Closes the descriptor; called once by the owner when it stops.
    func close() { _ = Glibc.close(fd) }

    /// Watches the directory open at `directory` (falling back to `path` without /proc).
    ///
    /// Through `/proc/self/fd/N` the watch lands on exactly the inode the crawler is about to
    /// read, even if the path was swapped meanwhile; that magic link must be followed, so
    /// `IN_DONT_FOLLOW` is only used with the plain path (with `IN_ONLYDIR` in both cases).
    ///
    /// - Returns: The watch descriptor; the existing one when the inode is already watched.
    /// - Throws: ``WatchError/Code/watchBudgetExhausted`` on `ENOSPC`, else ``WatchError/Code/systemCall``.
    /// - Parameter path: The directory's path: named in an error, and watched by path when
    ///   `/proc` is missing (evaluated only then: a crawl adds a watch per directory).
    func addWatch(directory: Int32, path: @autoclosure () -> String) throws(WatchError) -> Int32 {
        try Self.addWatch(inotify: fd, throughProc: watchesThroughProc, directory: directory, path: path())
    }

    /// ``addWatch(directory:path:)`` on any thread: what a second walker of a crawl
    /// (``SubtreeHelper``) adds its watches with, to the descriptor of the crawl's channel.
    static func addWatch(inotify fd: Int32, throughProc: Bool, directory: Int32,
                         path: @autoclosure () -> String) throws(WatchError) -> Int32 {
        if throughProc {
            return try System.call("inotify_add_watch", path: path(), as: WatchError.self) {
                inotify_add_watch(fd, "/proc/self/fd/\(directory)", InotifyMask.directoryEvents.rawValue)
            }
        }
        let path = path()
        return try System.call("inotify_add_watch", path: path, as: WatchError.self) {
            inotify_add_watch(fd, path, InotifyMask.directoryEvents.union(.dontFollow).rawValue)
        }
    }

    /// Whether watches are added through `/proc/self/fd/N` (``SubtreeWatching``).
    var throughProc: Bool { watchesThroughProc }

    /// Forgets a watch. A watch the kernel already dropped (`EINVAL`) is not an error.
    func removeWatch(_ wd: Int32) {
        _ = inotify_rm_watch(fd, wd)
    }

    /// Reads whatever is queued, appending decoded events to `events`.
    ///
    /// - Returns: false when nothing was queued (`EAGAIN`).
    /// - Throws: ``WatchError`` naming `read`.
    func read(into events: inout [InotifyEvent]) throws(WatchError) -> Bool {
        let count: Int
        do throws(WatchError) {
            count = try System.call("read", as: WatchError.self) { Glibc.read(fd, buffer.baseAddress, buffer.count) }
        } catch {
            if error.errno == EAGAIN { return false }
            throw error
        }
        let header = MemoryLayout<inotify_event>.size
        var offset = 0
        while offset + header <= count {
            let base = buffer.baseAddress! + offset
            let wd = base.loadUnaligned(fromByteOffset: 0, as: Int32.self)
            let mask = base.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            let cookie = base.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
            let length = Int(base.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
            offset += header + length
            var name: String?
            var undecodable: [UInt8]?
            if length > 0 {
                // The name is NUL-padded to `length` bytes after the header.
                let bytes = UnsafeRawBufferPointer(start: base + header, count: length)
                let end = bytes.firstIndex(of: 0) ?? length
                if let decoded = String(validating: bytes[..<end], as: UTF8.self) { name = decoded } else { undecodable = Array(bytes[..<end]) }
            }
            events.append(InotifyEvent(wd: wd, mask: InotifyMask(rawValue: mask), cookie: cookie, name: name,
                                       undecodableName: undecodable))
        }
        return true
    }

    /// Waits until the descriptor is readable or `milliseconds` pass.
    func waitReadable(milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let result = poll(&entry, 1, milliseconds)
            if result >= 0 { return result > 0 }
            if Glibc.errno != EINTR { return false }
        }
    }
}

@available(*, unavailable, message: "owned by the watcher's reader thread")
extension Inotify: Sendable {}

/// Reads a small integer file such as `/proc/sys/fs/inotify/max_user_watches`.
func readInteger(_ path: String) -> Int? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 64)
    let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    let text = String(decoding: bytes[..<count], as: UTF8.self)
    return Int(text.filter { !$0.isWhitespace })
}
