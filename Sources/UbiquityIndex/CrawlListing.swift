/// A subtree as the crawler saw it: a flat list where each entry names its parent's position.
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

    /// The status of the subtree's root; nil when it does not exist.
    public var root: FileStat?
    public var entries: [Entry]

    public init(root: FileStat?, entries: [Entry] = []) {
        self.root = root
        self.entries = entries
    }
}
