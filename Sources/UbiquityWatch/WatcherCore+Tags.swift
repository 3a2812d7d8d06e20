import CUbiquitySystem
import Glibc
import UbiquityIndex
import UbiquitySystem

/// The tag pass: after a crawl's listing went out, the tags of the entries of each watched
/// directory it read, as ``FileSystemChange/tags(_:_:directoryInode:_:)``.
///
/// Each directory is read in one go between two reads of the kernel queue, relative to the held
/// root (``DirectoryResolver``), and only when it is still the directory that was watched (same
/// inode): what it reads is then as new as everything emitted before it, and any tag change
/// after it comes as an event (`IN_ATTRIB`) with the entry's tags, as always.
extension WatcherCore {
    /// How long one chunk of the tag pass may keep the reader from the kernel queue.
    static let tagChunkNanoseconds: Int64 = 5_000_000
    /// Entries whose tags are read between two looks at the kernel queue and the command pipe.
    static let entriesBetweenLooks = 16

    /// Whether to read tags now: there are some to read, and someone waits for them, or the
    /// kernel queue is quiet (``FileWatcher/Configuration/tagPassQuietPeriod``) and the consumer
    /// has applied everything (``FileWatcher/Configuration/tagPassFollowsConsumer``).
    var tagPassMayRun: Bool {
        guard tagPass.isRunnable else { return false }
        if tagPass.isAwaited { return true }
        guard nanosecondsUntilTagPassQuiet == 0 else { return false }
        return !configuration.tagPassFollowsConsumer || shared.consumerHasApplied(sequence)
    }

    /// An answer the consumer has under way counts as activity, like the kernel queue's events:
    /// the pass waits for the consumer to be quiet as for the queue (looked at before each
    /// decision, as an answer may begin or end at any time).
    func noteConsumerAnswering() {
        guard configuration.tagPassFollowsConsumer, tagPass.isRunnable else { return }
        tagPass.noteActivity(at: shared.consumerLastAnswering(at: System.monotonicNanoseconds()))
    }

    /// What is left of the quiet period a pass nobody waits for needs (0: none).
    var nanosecondsUntilTagPassQuiet: Int64 {
        tagPass.nanosecondsUntilQuiet(at: System.monotonicNanoseconds(), quietPeriod: configuration.tagPassQuietPeriod.nanoseconds,
                                      longestDeferral: configuration.tagPassLongestDeferral.nanoseconds)
    }

    /// Reads tags for up to ``tagChunkNanoseconds`` and emits them; then resumes the waiters
    /// whose crawls are all read.
    func runTagPass() {
        noteConsumerAnswering()
        if tagPassMayRun {
            flush()     // events read before: their statuses go out before the tags read after them
            // Put off for as long as it may be (the queue never went quiet): this chunk reads
            // its whole time whatever arrives, or a busy queue would let it read almost nothing.
            let overdue = tagPass.isOverdue(at: System.monotonicNanoseconds(), quietPeriod: configuration.tagPassQuietPeriod.nanoseconds,
                                            longestDeferral: configuration.tagPassLongestDeferral.nanoseconds)
            let deadline = System.monotonicNanoseconds() + Self.tagChunkNanoseconds
            var resolvers: [Int: DirectoryResolver] = [:]
            defer { for slot in resolvers.keys { resolvers[slot]?.close() } }
            // A directory retried in this chunk waits for the events of the next read.
            var budget = tagPass.pending
            // The kernel queue and the command pipe, looked at (not read) after each directory:
            // a sync's cookie event or a caller's command ends the chunk at once, so a query
            // made while the pass runs waits for one directory's tags, not for the whole chunk.
            var waiting = [pollfd(fd: shared.wakeFD, events: Int16(POLLIN), revents: 0)]
                + channels.map { pollfd(fd: $0.inotify.fd, events: Int16(POLLIN), revents: 0) }
            while budget > 0, let job = tagPass.next() {
                budget -= 1
                let finished = readTags(job, &resolvers, &waiting, interruptible: !overdue)
                if !finished || System.monotonicNanoseconds() >= deadline || !overdue && poll(&waiting, nfds_t(waiting.count), 0) > 0 { break }
            }
            flush()
            tagPass.noteRead(at: System.monotonicNanoseconds())
        }
        let finished = tagPass.finishedWaiters()
        if !finished.isEmpty {
            publishStatus()
            for waiter in finished { waiter.resume() }
        }
    }

    /// Reads the tags of one directory's entries and queues them, or retries it when another
    /// directory is at its path.
    ///
    /// - Returns: false when it stopped half way because the kernel queue or a caller has
    ///   something for the reader (looked at every ``entriesBetweenLooks`` entries, unless
    ///   someone waits for tags or the directory was interrupted often enough): the directory
    ///   is read again later, so an event waits for a few entries' tags, not a whole directory's.
    @discardableResult
    private func readTags(_ job: TagPass.Job, _ resolvers: inout [Int: DirectoryResolver], _ waiting: inout [pollfd],
                          interruptible mayStop: Bool) -> Bool {
        let channel = channel(job.slot)
        guard let container = containers[job.slot], container.available, let root = container.root,
              let node = channel.tree.directory(job.wd), node.container == job.slot else {
            tagPass.done(job)        // the watch or its container is gone: nothing to tell
            return true
        }
        let path = channel.tree.path(of: job.wd)
        if resolvers[job.slot] == nil { resolvers[job.slot] = DirectoryResolver(root: root.fd) }
        guard let location = resolvers[job.slot]!.directory(path) else {
            tagPass.retry(job)
            return true
        }
        let fd = openat(location, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            if Glibc.errno == EACCES { tagPass.done(job) } else { tagPass.retry(job) }
            return true
        }
        var info = stat()
        guard fstat(fd, &info) == 0, node.inode == 0 || UInt64(info.st_ino) == node.inode,
              let stream = fdopendir(fd) else {
            close(fd)
            tagPass.retry(job)
            return true
        }
        defer { closedir(stream) }
        var tags: [ExactName: [String]] = [:]
        let interruptible = mayStop && !tagPass.isAwaited && job.interruptions < TagPass.maxInterruptions
        var sinceLook = 0
        while let entry = readdir(stream) {
            sinceLook += 1
            if interruptible && sinceLook >= Self.entriesBetweenLooks {
                sinceLook = 0
                if poll(&waiting, nfds_t(waiting.count), 0) > 0 {
                    tagPass.putBack(job)
                    return false
                }
            }
            // Symlinks carry no user attributes on Linux (the crawler reads none for them either).
            if entry.pointee.d_type == UInt8(DT_LNK) { continue }
            let name = ubq_dirent_name(entry)!
            if Crawler.isDotOrDotDot(name) || Crawler.isCookie(name) { continue }
            let found = TagReader.tags(in: fd, named: name)
            if !found.isEmpty, let text = String(validatingCString: name) { tags[ExactName(text)] = found }
        }
        operations.append(.ready(.tags(container.descriptor.id, path, directoryInode: UInt64(info.st_ino), tags)))
        tagPass.done(job)
        return true
    }
}
