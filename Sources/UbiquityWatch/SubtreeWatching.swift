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
}
