import Glibc

/// inotify on one path, so a helper that waits for a file to change (a log growing, an entry
/// appearing) wakes up when it does rather than looking again after a pause.
final class FileEvents {
    private let fd: Int32

    /// Watches `path` for the events in `mask` (`IN_MODIFY`, `IN_CREATE`, …).
    /// The descriptor is stored only once the watch is in place: a class whose stored properties
    /// are all set runs its `deinit` even when its `init` then throws, so closing it here and
    /// storing it too would close the number twice — by then perhaps another thread's socket.
    init(watching path: String, mask: UInt32) throws {
        let made = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard made >= 0 else { throw TestDaemonError("inotify_init1: \(String(cString: strerror(errno)))") }
        guard inotify_add_watch(made, path, mask) >= 0 else {
            let message = String(cString: strerror(errno))
            close(made)
            throw TestDaemonError("inotify_add_watch \(path): \(message)")
        }
        fd = made
    }

    deinit { close(fd) }

    /// Blocks until an event arrives (and takes every pending one) or `seconds` pass.
    /// - Returns: whether an event arrived.
    @discardableResult
    func wait(within seconds: Double) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(min(Double(Int32.max), max(0, seconds * 1000)).rounded(.up))
        guard poll(&entry, 1, milliseconds) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(fd, &buffer, buffer.count) > 0 {}
        return true
    }
}
