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

    mutating func willRead(directory: Int32, path: [String], inode: UInt64) -> Bool {
        guard let root = core.containers[container]?.descriptor.root else { return false }
        let parent: Int32?
        if path.isEmpty {
            parent = nil
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
        displaced += channel.tree.link(wd, container: container, parent: parent, name: path.last ?? "", inode: inode)
        if visited.insert(wd).inserted { visitedInOrder.append(wd) }
        return true
    }

    mutating func sendAhead(_ part: CrawlListing.Part) {
        core.sendAhead(container, part)
    }
}
