import Glibc
import UbiquityIndex
import UbiquitySystem

/// The visitor of a subtree a crawl's second walker reads (``SubtreeHelper``): it adds each
/// directory's watch BEFORE its entries are read, as the crawl's own visitor would, and records
/// what became of it (``WalkedDirectory``) for that visitor to take over in the walk's order.
/// It sends nothing ahead and starts no helper of its own: the helper's walk hands pieces back
/// to the crawl's thread while that waits for it (``SubtreeHelper/back``), and takes in what
/// that thread recorded as its own.
struct SubtreeVisitor: CrawlVisitor {
    let watching: SubtreeWatching
    /// Components of the subtree's parent below the container root (the walk's paths are below it).
    let parentPath: [String]
    /// Whether the crawl's visitor watches the subtree's parent: if not, it would not be asked
    /// about anything below, and neither is this one.
    let parentVisited: Bool
    /// Where the walk hands pieces of the subtree (``SubtreeHelper/back``); nil: nowhere (the
    /// walk of such a piece).
    let back: SubtreeHelper?
    /// The directories gone into, in the walk's order (a piece's taken in at its place).
    var directories: [WalkedDirectory] = []

    mutating func willRead(directory: Int32, path: [String], inode: UInt64) -> Bool {
        guard parentVisited, let inotify = watching.inotify else { return false }
        let depth = parentPath.count + path.count
        let name = path.last ?? ""
        guard watching.allowance.take() else {
            directories.append(WalkedDirectory(depth: depth, name: name, inode: inode, watch: .budgetUsedUp, counted: false))
            return false
        }
        do {
            let wd = try Inotify.addWatch(inotify: inotify, throughProc: watching.throughProc, directory: directory,
                                          path: System.join(watching.containerRoot, parentPath + path))
            directories.append(WalkedDirectory(depth: depth, name: name, inode: inode, watch: .watched(wd), counted: true))
            return true
        } catch {
            watching.allowance.giveBack()
            directories.append(WalkedDirectory(depth: depth, name: name, inode: inode, watch: .failed(error.description),
                                               counted: false))
            return false
        }
    }

    var partSize: Int { 0 }
    var pause: CrawlPause? { watching.pause }
    var readAhead: FileWatcher.Configuration.ReadAhead { .never }
    var statHelper: Bool { false }

    mutating func subtreeWatching() -> SubtreeWatching? {
        guard let back else { return nil }
        var watching = self.watching
        watching.base = parentPath
        watching.helper = back
        return watching
    }

    /// A directory of a piece the crawl's thread walked: recorded as if this walk had gone into
    /// it (its depth is below the container root, like this walk's own).
    mutating func adopt(_ directory: WalkedDirectory, path: [String]) -> Bool {
        directories.append(directory)
        if case .watched = directory.watch { return true }
        return false
    }
    mutating func sendAhead(_ part: CrawlListing.Part) {}
}
