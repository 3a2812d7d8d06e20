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
        while let last = open.last, last.depth >= path.count { open.removeLast() }
        let parent: Int32?
        if path.isEmpty {
            parent = nil
        } else if trustsOpen, let last = open.last, last.depth == path.count - 1 {
            parent = last.wd
        } else {
            guard let found = channel.tree.lookup(container: container, Array(path.dropLast())) else {
                core.markUnwatched(container, path, reason: "its parent directory is not watched")
                return false
            }
            parent = found
        }
        if core.watchesUsed >= core.budget && channel.tree.lookup(container: container, path) == nil {
            core.markUnwatched(container, path, reason: "the watch budget of \(core.budget) watches is used up")
            return false
        }
        let wd: Int32
        do {
            wd = try channel.inotify.addWatch(directory: directory, path: System.join(root, path))
        } catch {
            core.markUnwatched(container, path, reason: error.description)
            return false
        }
        let known = channel.tree.directory(wd) != nil
        let lost = channel.tree.link(wd, container: container, parent: parent, name: path.last ?? "", inode: inode)
        displaced += lost
        if visited.insert(wd).inserted { visitedInOrder.append(wd) }
        if known || !lost.isEmpty { trustsOpen = false }
        open.append((path.count, wd))
        return true
    }

    mutating func sendAhead(_ part: CrawlListing.Part) {
        core.sendAhead(container, part)
    }
}
