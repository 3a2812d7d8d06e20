/// One observed change, in container-relative path components (`["Documents", "Item_1"]`).
/// The watcher produces these; the index applies them in order.
public enum FileSystemChange: Sendable {
    /// The entry exists with this status: created, written, chmod-ed, ...
    case stat(ContainerID, [String], FileStat)
    /// The entry and everything below it are gone.
    case remove(ContainerID, [String])
    /// A paired rename. The entry keeps its identity; an existing destination is replaced
    /// (an atomic save), keeping the destination's identity. `stat` is the moved entry's new status.
    case move(ContainerID, from: [String], to: [String], stat: FileStat?)
    /// The complete, authoritative content of a subtree (a crawl or rescan): entries not listed
    /// are removed, listed ones inserted or updated. A listing without a root removes the subtree.
    case listing(ContainerID, [String], CrawlListing)
    /// Entries of a container's crawl sent ahead while the walk goes on; the container's
    /// `.listing` follows them (with no other change of that container in between) and holds
    /// them again as its first entries, so applying only that listing gives the same index.
    /// The index applies parts as they come when that cannot be seen otherwise (the container
    /// holds nothing and nobody records changes), and then only the rest of the listing.
    case listingPart(ContainerID, CrawlListing.Part)
    /// The tags of the entries of the directory at the path, read by the watcher's tag pass after
    /// a crawl that deferred them (``FileStat/tagsDeferred``): entries not listed have none.
    /// Ignored unless the directory there is still the one read (same inode).
    /// Keyed by the names' bytes (``ExactName``): two canonically equivalent names are two entries.
    case tags(ContainerID, [String], directoryInode: UInt64, [ExactName: [String]])

    /// Whether this is a ``listingPart(_:_:)``: the journal leaves those out (the listing after
    /// them holds their entries).
    public var isListingPart: Bool {
        if case .listingPart = self { return true }
        return false
    }
}
