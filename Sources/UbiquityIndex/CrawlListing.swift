/// A subtree as the crawler saw it: a flat list where each entry names its parent's position.
///
/// The entries keep their names as bytes in one buffer (``CrawlEntries``); an ``Entry`` with a
/// `String` name is what building one by hand takes and what reading one by position gives.
public struct CrawlListing: Sendable {
    public struct Entry: Sendable {
        /// Position of the parent in `entries`, or -1 for the listing's root.
        public var parent: Int32
        public var name: String
        public var stat: FileStat
        public init(parent: Int32, name: String, stat: FileStat) {
            self.parent = parent
            self.name = name
            self.stat = stat
        }
    }

    /// A stretch of a container's listing sent ahead while its crawl goes on
    /// (``FileSystemChange/listingPart(_:_:)``): the entries at positions
    /// `first..<first + entries.count` of the listing that follows, each naming its parent by a
    /// position before its own (-1 for the root).
    public struct Part: Sendable {
        /// The container root's status, as the listing will have it.
        public var root: FileStat
        public var first: Int
        public var entries: CrawlEntries
        public init(root: FileStat, first: Int, entries: CrawlEntries) {
            self.root = root
            self.first = first
            self.entries = entries
        }

        public init(root: FileStat, first: Int, entries: [Entry]) {
            self.init(root: root, first: first, entries: CrawlEntries(entries))
        }
    }

    /// The status of the subtree's root; nil when it does not exist.
    public var root: FileStat?
    public var entries: CrawlEntries

    public init(root: FileStat?, entries: CrawlEntries) {
        self.root = root
        self.entries = entries
    }

    public init(root: FileStat?, entries: [Entry] = []) {
        self.init(root: root, entries: CrawlEntries(entries))
    }
}
