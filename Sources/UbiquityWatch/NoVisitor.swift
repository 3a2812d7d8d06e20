import CUbiquitySystem
import Glibc
import UbiquityIndex

/// A plain crawl: nobody listens.
struct NoVisitor: CrawlVisitor {
    /// The container's absolute path (named in what the second walker skips).
    var root = ""
    var statHelper = false
    /// Whether a second walker walks subtrees (``SubtreeHelper``; it watches nothing either).
    var subtreeHelper = false
    /// Where the walk steps aside while held (``CrawlPause``); nil: never.
    var pause: CrawlPause? = nil
    func willRead(directory: Int32, path: [String], inode: UInt64) -> Bool { false }
    var partSize: Int { 0 }
    var readAhead: FileWatcher.Configuration.ReadAhead { .never }
    func sendAhead(_ part: CrawlListing.Part) {}

    func subtreeWatching() -> SubtreeWatching? {
        subtreeHelper ? SubtreeWatching(inotify: nil, throughProc: false, allowance: WatchAllowance(0), containerRoot: root, pause: pause) : nil
    }

    func adopt(_ directory: WalkedDirectory, path: [String]) -> Bool { false }
}
