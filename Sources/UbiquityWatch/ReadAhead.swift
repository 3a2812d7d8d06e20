import CUbiquitySystem
import Glibc
import Synchronization

/// A second walker for a crawl that finds the disk cold: on a thread of its own it reads the
/// directories the crawl will reach last — the tree with each directory's subdirectories taken
/// last first — and the status of every entry in them, so that their blocks and inodes are in
/// memory when the crawl gets there, and two reads are in flight on the disk instead of one.
///
/// It only reads: what it sees is never reported (the crawl reads everything again, from memory).
/// It reaches the disk the way the crawl does: relative to descriptors, never following a
/// symlink. It stops before a directory the crawl has finished (everything it would read after
/// that comes before it in the crawl's order, so the crawl has read it already), or when told.
///
/// ```
/// crawl:      a a/1 a/2 b b/1 b/2 c …            (readdir order, depth first)
/// read-ahead: c … b/2 b/1 ▌ b is finished: stop  (the crawl then finds c … in memory)
/// ```
final class ReadAhead: Sendable {
    private struct State {
        /// Inodes of the directories the crawl has finished.
        var finished: Set<UInt64> = []
        var stopped = false
    }

    private let state = Mutex(State())
    /// Entries read between two looks at whether to stop.
    static let entriesBetweenLooks = 64

    private init() {}

    /// Starts reading below the directory open at `root` (a descriptor of its own is opened).
    /// - Returns: nil when no descriptor or thread could be had: the crawl goes on alone.
    static func start(below root: Int32) -> ReadAhead? {
        let fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let readAhead = ReadAhead()
        do {
            try ReaderThread.start { readAhead.run(fd) }
        } catch {
            close(fd)
            return nil
        }
        return readAhead
    }

    /// The crawl has read the directory with this inode and everything below it.
    func crawlFinished(_ inode: UInt64) { state.withLock { _ = $0.finished.insert(inode) } }

    /// The crawl is over: the read-ahead stops at its next look.
    func stop() { state.withLock { $0.stopped = true } }

    private func mayEnter(_ inode: UInt64) -> Bool { state.withLock { !$0.stopped && !$0.finished.contains(inode) } }
    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// One open directory: its subdirectories still to read, the last found at the end.
    private struct Frame {
        var stream: OpaquePointer
        var subdirectories: [(name: [CChar], inode: UInt64)]
    }

    private func run(_ rootFD: Int32) {
        guard let rootStream = fdopendir(rootFD) else {
            close(rootFD)
            return
        }
        var stack = [Frame(stream: rootStream, subdirectories: [])]
        stack[0].subdirectories = read(rootStream)
        defer { for frame in stack { closedir(frame.stream) } }
        while !stack.isEmpty {
            guard let next = stack[stack.count - 1].subdirectories.popLast() else {
                closedir(stack.removeLast().stream)
                continue
            }
            guard mayEnter(next.inode) else { return }
            let fd = next.name.withUnsafeBufferPointer {
                openat(dirfd(stack[stack.count - 1].stream), $0.baseAddress!, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard fd >= 0 else { continue }
            guard let stream = fdopendir(fd) else {
                close(fd)
                continue
            }
            stack.append(Frame(stream: stream, subdirectories: []))
            stack[stack.count - 1].subdirectories = read(stream)
        }
    }

    /// Takes the status of every entry of a directory (the read that warms its inodes).
    /// - Returns: Its subdirectories, in the order found.
    private func read(_ stream: OpaquePointer) -> [(name: [CChar], inode: UInt64)] {
        var subdirectories: [(name: [CChar], inode: UInt64)] = []
        var sinceLook = 0
        while let entry = readdir(stream) {
            sinceLook += 1
            if sinceLook >= Self.entriesBetweenLooks {
                sinceLook = 0
                if isStopped { break }
            }
            let name = ubq_dirent_name(entry)!
            if Crawler.isDotOrDotDot(name) || Crawler.isCookie(name) { continue }
            var status = ubq_stat()
            guard ubq_statx(dirfd(stream), name, UBQ_AT_SYMLINK_NOFOLLOW, UBQ_STATX_BASIC_AND_BIRTH, &status) == 0,
                  status.mode & UInt32(S_IFMT) == UInt32(S_IFDIR) else { continue }
            subdirectories.append((Array(UnsafeBufferPointer(start: name, count: strlen(name) + 1)), status.inode))
        }
        return subdirectories
    }
}
