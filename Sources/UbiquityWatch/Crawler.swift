import CUbiquitySystem
import Glibc
public import UbiquityIndex
public import UbiquitySystem

/// Reads a container (or one subtree of it) into a ``CrawlListing`` with raw system calls.
///
/// The root is opened without following a final symlink (``ContainerRoot``); every directory
/// below it relative to its parent's descriptor with `openat(O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)`,
/// read with `readdir`, and every entry is `statx`-ed with `AT_SYMLINK_NOFOLLOW` (birth time when
/// the file system reports one) and its tags read with `getxattrat` on the same descriptor —
/// except in directories the visitor watches: there the tags are left to the watcher's tag pass
/// (``FileStat/tagsDeferred``), which reads them after the listing went out.
/// Symlinks are recorded as `.symlink` entries and never followed, so a crawl cannot leave its
/// container, and no path longer than one name is ever handed to the kernel.
/// A directory that cannot be opened is listed with its own status, its contents are skipped and
/// the reason is in ``Result/skipped``. A visitor may take the entries in parts while the walk
/// goes on (``CrawlVisitor/partSize``); the listing still holds them all. No Foundation on this path.
///
/// ```swift
/// let result = try Crawler().crawl(root: "/home/me/.local/share/ubiquity/containers/com.example.grocery")
/// index.apply([.listing(id, [], result.listing)])
/// ```
///
/// - Complexity: one `statx` per entry and one `openat` + `readdir` pass per directory; open
///   descriptors are bounded by the tree's depth.
public struct Crawler: Sendable {
    /// Names starting with this prefix are sync cookies (``FileWatcher/sync(timeout:)``): never listed.
    public static let cookiePrefix = ".ubiquity-sync-"

    /// A directory (or entry) whose contents could not be read.
    public struct Skipped: Sendable, Hashable, CustomStringConvertible {
        /// Components below the crawl's container root.
        public var path: [String]
        /// The call that failed (`openat`, `readdir`, `statx`), or `name` for a name that is not UTF-8.
        public var call: String
        public var errno: Int32
        /// `Permission denied (EACCES)`.
        public var reason: String

        public var description: String { "\(path.joined(separator: "/")): \(call): \(reason)" }
    }

    /// What a crawl saw.
    public struct Result: Sendable {
        public var listing: CrawlListing
        public var skipped: [Skipped]
    }

    public init() {}

    /// Crawls a whole container.
    ///
    /// - Parameter root: The container's absolute path. Never followed when it is itself a
    ///   symlink (nor is anything below it); directories above it are.
    /// - Returns: The listing (`root == nil` when the directory does not exist) and what was skipped.
    /// - Throws: ``WatchError/Code/invalidPath`` when `root` is not absolute, ``WatchError/Code/systemCall``
    ///   when it is not a directory that may be crawled (a symlink, a file).
    public func crawl(root: String) throws(WatchError) -> Result {
        try crawlSubtree(containerRoot: root, relative: [])
    }

    /// Crawls the subtree at `relative` below a container root: a rescan of one directory, or the
    /// status of one file (a listing with a root and no entries).
    ///
    /// - Parameters:
    ///   - containerRoot: The container's absolute path.
    ///   - relative: Components below it; none may be empty, `.`, `..` or contain `/`.
    /// - Returns: The listing (`root == nil` when nothing is there, or a component on the way is
    ///   not a directory) and what was skipped.
    /// - Throws: ``WatchError/Code/invalidPath`` for a relative root or a hostile component.
    public func crawlSubtree(containerRoot: String, relative: [String]) throws(WatchError) -> Result {
        try crawlSubtree(containerRoot: containerRoot, relative: relative, statHelper: false)
    }

    /// ``crawlSubtree(containerRoot:relative:)``, the statuses taken on two threads when
    /// `statHelper` (``StatHelper``), subtrees walked on a second thread when `subtreeHelper`
    /// (``SubtreeHelper``); the result is the same.
    func crawlSubtree(containerRoot: String, relative: [String], statHelper: Bool,
                      subtreeHelper: Bool = false) throws(WatchError) -> Result {
        guard containerRoot.hasPrefix("/") else {
            throw WatchError(.invalidPath, path: containerRoot, message: "a container root must be an absolute path")
        }
        let root: ContainerRoot
        switch ContainerRoot.open(containerRoot) {
        case .success(let opened): root = opened
        case .failure(.missing): return Result(listing: CrawlListing(root: nil), skipped: [])
        case .failure(.refused(let reason)): throw WatchError(.systemCall, path: containerRoot, message: reason)
        }
        defer { root.close() }
        var visitor = NoVisitor(root: containerRoot, statHelper: statHelper, subtreeHelper: subtreeHelper)
        return try walk(root: root.fd, rootPath: containerRoot, relative: relative, visitor: &visitor)
    }

    // MARK: - The walk

    /// One open directory of the depth-first walk.
    private struct Frame {
        var stream: OpaquePointer
        var fd: Int32
        /// The stretch of its entries being gone through, and the next one's position in it.
        var batch: DirectoryBatch
        var cursor = 0
        /// How the last fill of `batch` ended: `.more` until `readdir` said the end (or failed).
        var fill = DirectoryBatch.Fill.more
        /// The directory's position in `entries`, -1 for the listing's root.
        var position: Int32
        /// Whether the visitor wants to hear about directories below this one.
        var visiting: Bool
        var inode: UInt64
        /// Entries of `batch` from here on were looked at for a subtree to hand out (``SubtreeHelper``).
        var offerBelow = 0
        /// The entries of `batch` handed out to the ``SubtreeHelper`` and their jobs, the next to reach last.
        var handedOut: [(index: Int, job: Int)] = []
    }

    /// Walks the subtree, calling `visitor` with each directory's open descriptor BEFORE its
    /// entries are read (the watcher adds its inotify watch there, so nothing created after the
    /// read can be missed).
    ///
    /// - Parameters:
    ///   - root: The container root's descriptor (``ContainerRoot/fd``); not closed.
    ///   - rootPath: Its path, only to describe what was skipped.
    func walk<Visitor: CrawlVisitor>(
        root: Int32, rootPath containerRoot: String, relative: [String], visitor: inout Visitor
    ) throws(WatchError) -> Result {
        var spareBatches: [DirectoryBatch] = []
        return try walk(root: root, rootPath: containerRoot, relative: relative, visitor: &visitor, spareBatches: &spareBatches)
    }

    /// ``walk(root:rootPath:relative:visitor:)`` taking the stretches of its directories from
    /// `spareBatches` and leaving them there: a ``SubtreeHelper`` keeps them from one subtree to
    /// the next (a stretch is about 170 KiB of address space, its status array a mapping of its own).
    func walk<Visitor: CrawlVisitor>(
        root: Int32, rootPath containerRoot: String, relative: [String], visitor: inout Visitor,
        spareBatches: inout [DirectoryBatch]
    ) throws(WatchError) -> Result {
        for component in relative where component.isEmpty || component == "." || component == ".."
            || component.utf8.contains(UInt8(ascii: "/")) {
            throw WatchError(.invalidPath, path: System.join(containerRoot, relative),
                             message: "'\(component)' is not a plain path component")
        }
        var skipped: [Skipped] = []
        func skip(_ path: [String], _ error: WatchError) {
            skipped.append(Skipped(path: path, call: error.call ?? error.code.rawValue, errno: error.errno ?? 0,
                                   reason: error.message))
        }
        let missing = Result(listing: CrawlListing(root: nil), skipped: [])

        // The container root, readable: a fresh open of the held descriptor (its own offset).
        var fd: Int32
        do {
            fd = try System.call("openat", path: containerRoot, as: WatchError.self) {
                openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            }
        } catch where error.errno == ENOENT || error.errno == ENOTDIR {
            return missing
        } catch {
            // Unreadable root: say what statx can still tell about the subtree's root, skip its contents.
            skip([], error)
            var resolver = DirectoryResolver(root: root)
            defer { resolver.close() }
            let stat = relative.isEmpty ? Crawler.restat(root) : resolver.entry(relative, describing: "")
            return Result(listing: CrawlListing(root: stat), skipped: skipped)
        }

        // Down to the subtree's parent, never through a symlink.
        var walked: [String] = []
        for component in relative.dropLast() {
            let parent = fd
            defer { close(parent) }
            walked.append(component)
            do {
                fd = try System.call("openat", path: System.join(containerRoot, walked), as: WatchError.self) {
                    openat(parent, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                }
            } catch where error.errno == ENOENT || error.errno == ENOTDIR || error.errno == ELOOP {
                return missing
            } catch {
                // Cannot reach the subtree: say so, and claim nothing about it.
                skip(walked, error)
                var resolver = DirectoryResolver(root: root)
                defer { resolver.close() }
                return Result(listing: CrawlListing(root: resolver.entry(relative, describing: "")), skipped: skipped)
            }
        }

        // The subtree's root: its own status, then (a directory) its descriptor.
        let rootStat: FileStat?
        if let last = relative.last {
            let parent = fd
            defer { close(parent) }
            do {
                rootStat = try System.entry(at: parent, last, describing: System.join(containerRoot, relative))
            } catch {
                skip(relative, error)
                return Result(listing: CrawlListing(root: nil), skipped: skipped)
            }
            guard let rootStat else { return missing }
            guard rootStat.kind == .directory else { return Result(listing: CrawlListing(root: rootStat), skipped: []) }
            do {
                fd = try System.call("openat", path: System.join(containerRoot, relative), as: WatchError.self) {
                    openat(parent, last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                }
            } catch where error.errno == ENOENT || error.errno == ENOTDIR || error.errno == ELOOP {
                return missing
            } catch {
                skip(relative, error)
                return Result(listing: CrawlListing(root: rootStat), skipped: skipped)
            }
        } else {
            do {
                rootStat = try System.stat(at: fd, "", flags: UBQ_AT_EMPTY_PATH, describing: containerRoot)
            } catch {
                close(fd)
                skip([], error)
                return Result(listing: CrawlListing(root: nil), skipped: skipped)
            }
            guard rootStat != nil else {
                close(fd)
                return missing
            }
        }

        guard let rootStream = fdopendir(fd) else {
            let error = WatchError(SystemCallError("fdopendir", errno: Glibc.errno, path: System.join(containerRoot, relative)))
            close(fd)
            skip(relative, error)
            return Result(listing: CrawlListing(root: rootStat), skipped: skipped)
        }
        var path = relative
        var entries = CrawlEntries()
        var rootStatus = rootStat
        // Stretches of directories gone through (`spareBatches`) serve the next ones: one allocation per depth.
        var stack: [Frame] = [Frame(stream: rootStream, fd: fd, batch: spareBatches.popLast()?.reset() ?? DirectoryBatch(),
                                    position: -1, visiting: true,
                                    inode: rootStat?.inode ?? 0)]
        // A second walker for a cold disk (ReadAhead): at once, or when one of the first
        // directories had to be read from the disk.
        var readAhead = visitor.readAhead == .always ? ReadAhead.start(below: fd) : nil
        var looksForCold = visitor.readAhead == .whenCold ? Self.directoriesLookedAtForCold : 0
        let blocksBefore = looksForCold > 0 ? Self.blocksRead() : 0
        defer { readAhead?.stop() }
        // A second thread for the statuses of long stretches (StatHelper).
        let statHelper = visitor.statHelper ? StatHelper.start() : nil
        defer { statHelper?.stop() }
        // A second walker for whole subtrees (SubtreeHelper), asked before the root is watched:
        // one of its own, or the one given (the walk of a subtree hands pieces back to the crawl).
        let subtreeWatching = visitor.subtreeWatching()
        let subtreeHelper = subtreeWatching.flatMap { $0.helper ?? SubtreeHelper.start() }
        let ownHelper = subtreeWatching?.helper == nil ? subtreeHelper : nil
        defer { ownHelper?.stop() }
        // Directories the helper went into are as deep as their paths below the container root;
        // this walk's paths leave out `base`.
        let depthAbove = subtreeWatching?.base.count ?? 0
        var nextJob = 0
        // Whether an open stretch may still have a subtree to hand out (set at each fill).
        var mayOffer = false
        stack[0].visiting = visitor.willRead(directory: fd, path: path, inode: rootStat?.inode ?? 0)
        if stack[0].visiting, let fresh = Crawler.restat(fd, like: rootStat) { rootStatus = fresh }

        var sent = 0
        // The top frame's stretch, held here: reading it through a copy of the frame cost a
        // retain and a release of each of the frame's references per entry.
        var batch = stack[0].batch
        while !stack.isEmpty {
            let top = stack.count - 1
            // Here every entry read so far is final (a directory's status was taken again above).
            if visitor.partSize > 0, entries.count - sent >= visitor.partSize, let root = rootStatus {
                visitor.sendAhead(CrawlListing.Part(root: root, first: sent, entries: entries.part(from: sent)))
                sent = entries.count
            }
            // The cheap tests first, the helper's flag next, and the watching (a copy of a few
            // references) only for an offer: this runs once per entry.
            if mayOffer, readAhead == nil, looksForCold == 0, let subtreeHelper, subtreeHelper.wantsWork, let subtreeWatching {
                mayOffer = offerSubtree(to: subtreeHelper, subtreeWatching, id: nextJob, path: path, stack: &stack)
                nextJob += 1
            }
            if stack[top].cursor == batch.count {
                // This stretch is gone through: the next one, or the directory's end.
                if stack[top].fill == .more {
                    if let subtreeHelper {
                        Self.takeBack(stack[top].handedOut, from: subtreeHelper, spareBatches: &spareBatches)
                    }
                    stack[top].handedOut = []
                    visitor.pause?.waitWhileHeld()
                    stack[top].fill = batch.fill(from: stack[top].stream)
                    stack[top].cursor = 0
                    if let statHelper, batch.count >= Self.statHelperMinimum, subtreeHelper?.isIdle ?? true {
                        statHelper.stat(directory: stack[top].fd, batch)
                    } else {
                        batch.statAll(in: stack[top].fd)
                    }
                    stack[top].offerBelow = batch.count
                    mayOffer = subtreeHelper != nil
                    continue
                }
                if case .failed(let error) = stack[top].fill {
                    skip(path, WatchError(SystemCallError("readdir", errno: error, path: System.join(containerRoot, path))))
                }
                if let subtreeHelper {
                    Self.takeBack(stack[top].handedOut, from: subtreeHelper, spareBatches: &spareBatches)
                }
                closedir(stack[top].stream)
                readAhead?.crawlFinished(stack[top].inode)
                spareBatches.append(batch)
                stack.removeLast()
                if let below = stack.last {
                    batch = below.batch
                    path.removeLast()
                }
                continue
            }
            let index = stack[top].cursor
            stack[top].cursor += 1
            let fd = stack[top].fd, visiting = stack[top].visiting
            // The name stays bytes (copied into the listing's buffer); a `String` is made only for a
            // directory (its path below) and for what is skipped.
            let namePointer = batch.name(index)
            let nameBytes = UnsafeBufferPointer(start: UnsafeRawPointer(namePointer).assumingMemoryBound(to: UInt8.self),
                                                count: strlen(namePointer))
            var name: String { String(decoding: nameBytes, as: UTF8.self) }
            guard UTF8Check.isValid(nameBytes) else {
                skipped.append(Skipped(path: path + [name], call: "name", errno: EILSEQ, reason: "the name is not valid UTF-8"))
                continue
            }
            let (raw, statError) = batch.status(index)
            if statError == ENOENT || statError == ENOTDIR { continue }   // removed since readdir: its event will follow
            guard statError == 0 else {
                skip(path + [name], WatchError(SystemCallError("statx", errno: statError, path: System.join(containerRoot, path + [name]))))
                continue
            }
            let stat = System.entry(FileStat(raw), at: fd, namePointer, deferringTags: visiting)
            entries.append(parent: stack[top].position, name: nameBytes, stat: stat)
            guard stat.kind == .directory else { continue }
            if let handed = stack[top].handedOut.last, handed.index == index, let subtreeHelper {
                stack[top].handedOut.removeLast()
                if let walked = subtreeHelper.take(handed.job, spareBatches: &spareBatches) {
                    Self.takeIn(walked, at: entries.count - 1, parentPath: path[...], depthAbove: depthAbove,
                                entries: &entries, skipped: &skipped, visitor: &visitor)
                    continue
                }
                // Taken back before the helper started it: walked here.
            }
            let directoryName = name

            let childFD: Int32
            do {
                childFD = try System.call("openat", path: System.join(containerRoot, path + [directoryName]), as: WatchError.self) {
                    openat(fd, namePointer, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                }
            } catch where error.errno == ENOENT || error.errno == ENOTDIR || error.errno == ELOOP {
                continue            // replaced since statx: its events will follow
            } catch {
                skip(path + [directoryName], error)
                continue
            }
            guard let stream = fdopendir(childFD) else {
                skip(path + [directoryName], WatchError(SystemCallError("fdopendir", errno: Glibc.errno, path: System.join(containerRoot, path + [directoryName]))))
                close(childFD)
                continue
            }
            path.append(directoryName)
            let childVisiting = visiting && visitor.willRead(directory: childFD, path: path, inode: stat.inode)
            if childVisiting, let fresh = Crawler.restat(childFD, like: stat) { entries.setStat(entries.count - 1, fresh) }
            batch = spareBatches.popLast()?.reset() ?? DirectoryBatch()
            stack.append(Frame(stream: stream, fd: childFD, batch: batch,
                               position: Int32(entries.count - 1), visiting: childVisiting, inode: stat.inode))
            if looksForCold > 0 {
                looksForCold -= 1
                if Self.blocksRead() > blocksBefore {
                    readAhead = ReadAhead.start(below: stack[0].fd)
                    looksForCold = 0
                }
            }
        }
        return Result(listing: CrawlListing(root: rootStatus, entries: entries), skipped: skipped)
    }

    // MARK: - The second walker

    /// Hands the ``SubtreeHelper`` the last subdirectory not reached yet of the shallowest open
    /// directory that has one (the walk reaches it last), not the one the walk is at.
    /// - Returns: Whether one was handed out (false: no open stretch has one left).
    private func offerSubtree(to helper: SubtreeHelper, _ watching: SubtreeWatching, id: Int, path: [String],
                              stack: inout [Frame]) -> Bool {
        for level in stack.indices {
            let batch = stack[level].batch
            // The walk is at the top's cursor, and below every other level's cursor.
            let lowest = stack[level].cursor + (level == stack.count - 1 ? 1 : 0)
            var index = stack[level].offerBelow - 1
            while index >= lowest {
                let (raw, error) = batch.status(index)
                if error == 0, raw.mode & UInt32(S_IFMT) == UInt32(S_IFDIR) {
                    let namePointer = batch.name(index)
                    let nameBytes = UnsafeBufferPointer(start: UnsafeRawPointer(namePointer).assumingMemoryBound(to: UInt8.self),
                                                        count: strlen(namePointer))
                    if UTF8Check.isValid(nameBytes) {
                        // The parent's path: the top's is `path`, each level below drops one
                        // component; below the container root (a subtree's walk has its `base` above).
                        let parentPath = watching.base + path.prefix(path.count - (stack.count - 1 - level))
                        helper.offer(SubtreeHelper.Job(id: id, parent: stack[level].fd, parentPath: parentPath,
                                                       parentVisited: stack[level].visiting,
                                                       name: String(decoding: nameBytes, as: UTF8.self), watching: watching))
                        stack[level].handedOut.append((index, id))
                        stack[level].offerBelow = index
                        return true
                    }
                }
                index -= 1
            }
            stack[level].offerBelow = min(stack[level].offerBelow, max(lowest, 0))
        }
        return false
    }

    /// Puts a subtree the helper walked in the listing: its root is the entry at `position`
    /// (just appended, its status from its parent's stretch), `parentPath` the components of its
    /// parent in the walk's paths, which leave out the first `depthAbove` components below the
    /// container root (those of a subtree's parent, when the walk is the subtree's: ``SubtreeWatching/base``).
    private static func takeIn<Visitor: CrawlVisitor>(
        _ walked: SubtreeHelper.Walked, at position: Int, parentPath: ArraySlice<String>, depthAbove: Int,
        entries: inout CrawlEntries, skipped: inout [Skipped], visitor: inout Visitor
    ) {
        skipped += walked.result.skipped
        guard let root = walked.result.listing.root else { return }     // gone since statx: its events will follow
        // Each directory's path, rebuilt in one array from the walk's order: its depth says how
        // much of the one before it it shares. Names are copied into this thread's memory (a long
        // one is a heap block, and the watch tree keeps it).
        var path = Array(parentPath)
        for (number, directory) in walked.directories.enumerated() {
            let depth = directory.depth - depthAbove
            path.removeLast(max(0, path.count - (depth - 1)))
            path.append(Self.ownCopy(directory.name))
            let visiting = visitor.adopt(directory, path: path)
            if number == 0, visiting, depth == parentPath.count + 1 {
                // Its status taken again after its watch, its tags as its parent's stretch left them.
                let first = entries.stat(position)
                var fresh = root
                fresh.tags = first.tags
                fresh.tagsDeferred = first.tagsDeferred
                entries.setStat(position, fresh)
            }
        }
        entries.append(contentsOf: walked.result.listing.entries, under: Int32(position))
    }

    /// A copy of `name` whose bytes (if not small enough to be held in place) this thread allocated.
    private static func ownCopy(_ name: String) -> String {
        var name = name
        return name.withUTF8 { bytes in
            String(unsafeUninitializedCapacity: bytes.count) { copy in
                _ = copy.initialize(fromContentsOf: bytes)
                return bytes.count
            }
        }
    }

    /// Waits for the subtrees handed out of a stretch the walk is done with (none, but for a
    /// name that changed under it), so that the helper is done with the directory's descriptor.
    private static func takeBack(_ handedOut: [(index: Int, job: Int)], from helper: SubtreeHelper,
                                 spareBatches: inout [DirectoryBatch]) {
        for handed in handedOut { _ = helper.take(handed.job, spareBatches: &spareBatches) }
    }

    /// A watched directory's status taken again AFTER its watch exists: an entry added between
    /// the first `statx` and the watch changed its mtime without any event to tell. Its tags
    /// (read, or deferred, with the first status) are kept: the parent was watched before they
    /// were read, so a later change of them is an event of its own.
    static func restat(_ fd: Int32, like first: FileStat? = nil) -> FileStat? {
        var fresh = try? System.stat(at: fd, "", flags: UBQ_AT_EMPTY_PATH, describing: "")
        fresh?.tags = first?.tags ?? []
        fresh?.tagsDeferred = first?.tagsDeferred ?? false
        return fresh
    }

    /// Entries of a stretch (``DirectoryBatch``) from which a ``StatHelper`` takes part of its
    /// statuses: two chunks, so that both threads have one. Shorter stretches are stat-ed alone.
    static let statHelperMinimum = 2 * StatHelper.chunkEntries

    /// Directories of a crawl after which a disk that had to read none is taken for warm.
    static let directoriesLookedAtForCold = 16

    /// Blocks this thread had the disk read for it so far (`getrusage`): a warm crawl reads none.
    static func blocksRead() -> Int {
        var usage = rusage()
        guard getrusage(__rusage_who_t(UBQ_RUSAGE_THREAD), &usage) == 0 else { return 0 }
        return usage.ru_inblock
    }

    @inline(__always)
    static func isDotOrDotDot(_ name: UnsafePointer<CChar>) -> Bool {
        name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0))
    }

    /// Whether a NUL-terminated name starts with ``cookiePrefix``.
    @inline(__always)
    static func isCookie(_ name: UnsafePointer<CChar>) -> Bool {
        guard name[0] == 0x2E, name[1] == 0x75 else { return false }       // ".u": the cheap reject
        return cookiePrefix.withCString { strncmp(name, $0, cookiePrefix.utf8.count) == 0 }
    }

    static func isCookie(_ name: String) -> Bool { name.hasPrefix(cookiePrefix) }
}
