/// A directory a crawl's second walker (``SubtreeHelper``) went into, and what became of its
/// watch: the call ``CrawlVisitor/willRead(directory:path:inode:)`` would have been, with the
/// watch already added, for the visitor to take in the walk's order
/// (``CrawlVisitor/adopt(_:path:)``).
struct WalkedDirectory: Sendable {
    enum Watch: Sendable, Equatable {
        /// Watched with this descriptor (its entries were read after it).
        case watched(Int32)
        /// `inotify_add_watch` failed: the error's description.
        case failed(String)
        /// No watch was left in the budget (``WatchAllowance``).
        case budgetUsedUp
    }

    /// Its path's components below the container root: how deep it is (the walk's order then
    /// tells its parent), and its name. The walker records no path per directory: the crawl
    /// rebuilds them in one array (``Crawler``), so the walker allocates nothing per directory
    /// that outlives its walk but the name (which the crawl copies into memory of its own thread).
    var depth: Int
    var name: String
    var inode: UInt64
    var watch: Watch
    /// Whether a watch of the walk's ``WatchAllowance`` was taken for it (given back when the
    /// directory turns out to be watched already).
    var counted: Bool
}
