/// What a crawl's second walker (``SubtreeHelper``) needs to watch the directories of the
/// subtrees it walks as the visitor would: the channel's inotify descriptor and the watches it
/// may still add. A plain crawl (``NoVisitor``) watches nothing.
struct SubtreeWatching: Sendable {
    /// The inotify descriptor the watches go to; nil: none are added (a plain crawl).
    var inotify: Int32?
    /// Whether watches are added through `/proc/self/fd/N` (``Inotify``).
    var throughProc: Bool
    /// Shared with the visitor's own watches (``WatchAllowance``).
    var allowance: WatchAllowance
    /// The container's absolute path: named in an error.
    var containerRoot: String
    /// Components below the container root above the walk's own paths: none for a crawl; for
    /// the walk of a subtree (``SubtreeVisitor``), whose paths start at the subtree, its parent's.
    var base: [String] = []
    /// The walker to hand subtrees to, instead of one started for the walk (then stopped with
    /// it): for the walk of a subtree, the crawl's thread while it waits for that walk
    /// (``SubtreeHelper/back``); nil for a crawl.
    var helper: SubtreeHelper? = nil
    /// Where the walk that handed the subtree out steps aside (``CrawlPause``): this walk too.
    var pause: CrawlPause? = nil
}
