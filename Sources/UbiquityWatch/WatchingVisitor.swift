import Glibc
import UbiquityIndex
import UbiquitySystem

/// Puts a watch on each directory of a walk before the crawler reads it, and sends a
/// container's entries ahead in parts while the walk goes on.
struct WatchingVisitor: CrawlVisitor {
    unowned let core: WatcherCore
    unowned let channel: WatchChannel
    let container: Int
    let partSize: Int
    let readAhead: FileWatcher.Configuration.ReadAhead
    let statHelper: Bool
    /// Whether a second walker may walk subtrees of this walk (``SubtreeHelper``).
    let subtreeHelper: Bool
    /// The watches left to this walk and its second walker, once it has one.
    var allowance: WatchAllowance?
    var visited = Set<Int32>()
    /// The watched directories in the order read: what the tag pass reads after the crawl.
    var visitedInOrder: [Int32] = []
    var displaced: [Int32] = []
    /// The directories this walk watched that are open in it, each with its depth (its path's
    /// count): the walk is depth-first, so the last one a level above a directory is its parent,
    /// found without looking its path up from the container root (a hash of every component,
    /// per directory, on a deep tree). Only while no watch of the walk moved a node that was in
    /// the tree (a rescan's, or a directory met twice): from then on the path is looked up.
    var open: [(depth: Int, wd: Int32)] = []
    var trustsOpen = true

    mutating func willRead(directory: Int32, path: [String], inode: UInt64) -> Bool {
        guard let root = core.containers[container]?.descriptor.root else { return false }
        let budgetUsedUp: Bool
        var counted = false
        if let allowance {
            // Shared with the second walker; a directory watched already costs no new watch.
            counted = allowance.take()
            budgetUsedUp = !counted && channel.tree.lookup(container: container, path) == nil
        } else {
            budgetUsedUp = core.watchesUsed >= core.budget && channel.tree.lookup(container: container, path) == nil
        }
        let watch: WalkedDirectory.Watch
        if budgetUsedUp {
            watch = .budgetUsedUp
        } else {
            do {
                watch = .watched(try channel.inotify.addWatch(directory: directory, path: System.join(root, path)))
            } catch {
                if counted { allowance?.giveBack() }
                counted = false
                watch = .failed(error.description)
            }
        }
        return adopt(WalkedDirectory(depth: path.count, name: path.last ?? "", inode: inode, watch: watch, counted: counted),
                     path: path)
    }

    /// Links a directory's watch into the watch tree below its parent, or marks the directory
    /// unwatched; the watch was added (or not) by this walk or by its second walker.
    mutating func adopt(_ directory: WalkedDirectory, path: [String]) -> Bool {
        while let last = open.last, last.depth >= path.count { open.removeLast() }
        let parent: Int32?
        if path.isEmpty {
            parent = nil
        } else if trustsOpen, let last = open.last, last.depth == path.count - 1 {
            parent = last.wd
        } else {
            guard let found = channel.tree.lookup(container: container, Array(path.dropLast())) else {
                if case .watched(let wd) = directory.watch, channel.tree.directory(wd) == nil {
                    channel.inotify.removeWatch(wd)
                    if directory.counted { allowance?.giveBack() }
                }
                core.markUnwatched(container, path, reason: "its parent directory is not watched")
                return false
            }
            parent = found
        }
        let wd: Int32
        switch directory.watch {
        case .watched(let added): wd = added
        case .budgetUsedUp:
            core.markUnwatched(container, path, reason: "the watch budget of \(core.budget) watches is used up")
            return false
        case .failed(let reason):
            core.markUnwatched(container, path, reason: reason)
            return false
        }
        let known = channel.tree.directory(wd) != nil
        if known && directory.counted { allowance?.giveBack() }      // watched already: no new watch
        let lost = channel.tree.link(wd, container: container, parent: parent, name: path.last ?? "", inode: directory.inode)
        displaced += lost
        if visited.insert(wd).inserted { visitedInOrder.append(wd) }
        if known || !lost.isEmpty { trustsOpen = false }
        open.append((path.count, wd))
        return true
    }

    /// Watches the budget must have left for a second walker (``SubtreeHelper``) to be started:
    /// with fewer, the directories left unwatched when they run out are always the same ones.
    static let subtreeHelperMinimumHeadroom = 1024

    mutating func subtreeWatching() -> SubtreeWatching? {
        guard subtreeHelper, let root = core.containers[container]?.descriptor.root else { return nil }
        let headroom = core.budget - core.watchesUsed
        guard headroom >= Self.subtreeHelperMinimumHeadroom else { return nil }
        let allowance = WatchAllowance(headroom)
        self.allowance = allowance
        return SubtreeWatching(inotify: channel.inotify.fd, throughProc: channel.inotify.throughProc,
                               allowance: allowance, containerRoot: root, pause: pause)
    }

    /// The watcher's: the consumer holds it while it answers from what it already has.
    var pause: CrawlPause? { core.shared.crawlPause }

    mutating func sendAhead(_ part: CrawlListing.Part) {
        core.sendAhead(container, part)
    }
}
