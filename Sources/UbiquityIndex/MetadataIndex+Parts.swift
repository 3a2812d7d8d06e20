/// A container's crawl applied while it is still being read: the parts sent ahead of its listing
/// (``FileSystemChange/listingPart(_:_:)``) are placed as they come, so that when the walk ends
/// only the rest of the listing remains to apply.
///
/// Only into a container that holds nothing, in a batch that records no changes (no live query,
/// no clock handed out: the first crawl): the parts can then only add entries, and the index is
/// the one the listing alone would give. Anything else ignores the parts, and the listing is
/// applied whole (a diff) as ever. The journal keeps only the listing, so a replay gives the same.
extension MetadataIndex {
    func applyPart(container c: Int, _ part: CrawlListing.Part, _ recorder: inout Recorder) {
        if part.first == 0 {
            listingInParts = nil
            guard !recorder.enabled, rootID(ofContainer: c).map({ children($0)?.isEmpty ?? true }) ?? true else { return }
            listingInParts = ListingInParts(container: c, root: setRoot(container: c, stat: part.root))
        }
        guard var parts = listingInParts, parts.container == c, parts.ids.count == part.first else {
            listingInParts = nil        // not the part that comes next: the listing is applied whole
            return
        }
        listingInParts = nil            // the ids stay uniquely referenced while they grow
        place(part.entries, from: 0, &parts, &recorder)
        listingInParts = parts
    }

    /// Applies the rest of a listing whose parts were placed. - Returns: false when there are
    /// none for this container (or they do not fit it): the listing is then applied whole.
    func finishParts(container c: Int, _ listing: CrawlListing, _ recorder: inout Recorder) -> Bool {
        guard var parts = listingInParts, parts.container == c else { return false }
        listingInParts = nil
        guard let root = listing.root, parts.ids.count <= listing.entries.count else { return false }
        _ = setRoot(container: c, stat: root)
        place(listing.entries, from: parts.ids.count, &parts, &recorder)
        return true
    }

    /// Any other change of the container in between ends its parts: the listing is then applied
    /// whole, which is right whatever came between.
    func keepOrEndParts(before change: FileSystemChange) {
        guard let parts = listingInParts else { return }
        let container: ContainerID
        switch change {
        case .listingPart, .listing(_, [], _):
            return              // the parts' own steps, checked when applied
        case .stat(let c, _, _), .remove(let c, _), .move(let c, _, _, _), .listing(let c, _, _), .tags(let c, _, _, _):
            container = c
        }
        if containerIndex(container) == parts.container { listingInParts = nil }
    }

    /// Inserts entries in listing order: each one's parent is placed already (or was not placed,
    /// and neither is it).
    ///
    /// Their names wait (``MetadataIndex/pendingNames``), and go in the name index together, each
    /// bucket's sorted in one go (``NameIndex/insert(_:names:)``), when a lookup reads their
    /// bucket or a snapshot is taken: one by one, each was a binary search over a bucket that
    /// holds most of a flat directory's names, every name read a likely cache miss.
    ///
    /// A new entry is placed from its name's bytes in the listing (``CrawlEntries``,
    /// ``MetadataIndex/insertNew(utf8:encoded:hash:in:table:_:container:_:)``); only a name that needs a `String`
    /// to tell what it is, or that is there already, is made one, on the engine's thread.
    ///
    /// A directory's children come one after another in a listing (in runs of up to a batch): at
    /// the first of a run its child table makes room for the whole run (``reserveChildren(in:_:)``),
    /// so that they are not hashed again by the table's doublings.
    ///
    /// Once the name codec is trained, a part with enough long names has its names' hashes and its
    /// long names' compressed bytes worked out by a second thread as well as this one, while the
    /// entries are placed (``PreparedNames``); any other part's names are hashed as they are read.
    private func place(_ entries: CrawlEntries, from start: Int, _ parts: inout ListingInParts, _ recorder: inout Recorder) {
        reserve(entries.count - start)
        deferringNames = true
        defer { deferringNames = false }
        PreparedNames.preparing(entries, start..<entries.count, codec: names.codec) { prepared in
            var runEnd = start, runToReserve = 0
            // The parent's child table, looked up once for its run of children (and again after a
            // new directory, whose own table may move it).
            var table: ChildTableIndex? = nil
            var tableOf: ItemID? = nil
            for i in start..<entries.count {
                if i >= runEnd {
                    let first = entries.parent(i)
                    runEnd = i + 1
                    while runEnd < entries.count && entries.parent(runEnd) == first { runEnd += 1 }
                    runToReserve = runEnd - i
                }
                let position = Int(entries.parent(i))
                let parent = position == -1 ? parts.root : position >= 0 && position < parts.ids.count ? parts.ids[position] : nil
                guard let parent else {
                    parts.ids.append(nil)
                    continue
                }
                if tableOf != parent {
                    table = childTable(parent)
                    tableOf = parent
                }
                guard let table else {
                    parts.ids.append(nil)
                    continue
                }
                if runToReserve > 1 { reserveChildren(in: table, runToReserve) }
                runToReserve = 0
                let stat = entries.stat(i)
                if stat.kind == .directory { tableOf = nil }
                let hash = prepared.hash(i)
                let inserted = entries.withName(i) { name in
                    prepared.withEncoded(i) {
                        insertNew(utf8: name, encoded: $0, hash: hash, in: parent, table: table, stat, container: parts.container, &recorder)
                    }
                }
                if let id = inserted {
                    parts.ids.append(id)
                    continue
                }
                let name = entries.withName(i) { String(decoding: $0, as: UTF8.self) }
                parts.ids.append(upsert(name: name, in: parent, stat, container: parts.container, &recorder))
                tableOf = nil
            }
        }
    }
}
