/// Every entry of a listing looked up in the index once, before its diff is applied: which
/// indexed item each listed entry is (``MetadataIndex/filedChild(_:_:_:placeholder:)``'s answer),
/// for the renames' two passes and the diff, which each looked every entry up again.
///
/// The directories are looked up first, from the root down (a few percent of a tree's entries);
/// then the other entries, each by its directory's table, on two threads for a large listing:
/// the lookups only read the index. A name that may be an evicted item's placeholder is looked
/// up afterwards, on the caller's thread, as a `String` (``EvictedPlaceholderName``).
///
/// Beside what each entry was found as: whether that item's status in the index is already the
/// listed one (``StatColumn/holds(_:at:)``), decided on the same two threads. A restart's check
/// finds almost every entry unchanged, and deciding it one entry after another on the diff's
/// thread, with the other core idle, was most of the diff (`perf`, 1M entries).
///
/// Valid while the index is as it was looked up in: the diff uses it for a directory only while
/// that directory is still the one it was looked up under. A rename the listing reveals moves an
/// item to a name where the lookup found nothing; that entry is then noted as found
/// (``noteFound(_:_:)``). Where the directory it went to lists a name that may be a placeholder's
/// (an evicted item's and its placeholder's entries may then be one), that directory is looked up
/// anew by the diff instead (``forget(_:)``).
struct ListingLookup {
    /// Listings at least this long look their files up on two threads (``SideThread``): a
    /// thread's start is then a small part of the work (a restart's check lists a whole
    /// container, a live rescan one directory).
    static let twoThreadsEntries = 4096
    /// What each position was found as; ``none`` where it is not in the index (or its directory
    /// was not looked up).
    private var found: [ItemID]
    /// Whether each position was found as an item whose indexed status is the listed one.
    private(set) var unchanged: [Bool]
    /// For each listed directory position, the indexed directory its entries were looked up in
    /// (``none``: not looked up).
    private var lookedUpIn: [ItemID]
    /// The directories looked up in, with their positions, from the root down.
    private(set) var directories: [(id: ItemID, position: Int32)] = []
    /// Positions (of directories) where a listed name may be a placeholder's.
    private(set) var withPlaceholder: Set<Int32> = []
    /// Whether the root's entries are to be looked up anew (``forget(_:)``).
    private var rootForgotten = false

    static let none = ItemID.max

    /// The item entry `position` was found as, nil if none.
    subscript(position: Int32) -> ItemID? {
        let id = found[Int(position)]
        return id == Self.none ? nil : id
    }

    /// Entry `position` is now `id`, as a lookup made now would find it: a rename the listing
    /// revealed moved the item there (``MetadataIndex/pairRenames``), where nothing was before.
    /// Its status is not known to be the listed one.
    mutating func noteFound(_ position: Int32, _ id: ItemID) {
        found[Int(position)] = id
        unchanged[Int(position)] = false
    }

    /// The entries of directory `position` are to be looked up anew: a move changed what some
    /// of them are filed as.
    mutating func forget(_ position: Int32) {
        if position == -1 { rootForgotten = true } else { lookedUpIn[Int(position)] = Self.none }
    }

    /// Whether the entries of directory `position` were looked up in `directory` (and still hold).
    func lookedUp(_ position: Int32, in directory: ItemID) -> Bool {
        position == -1 ? !rootForgotten && directories.first?.id == directory : lookedUpIn[Int(position)] == directory
    }

    init(_ index: MetadataIndex, root: ItemID, _ entries: CrawlEntries, _ children: ListingChildren) {
        found = [ItemID](repeating: Self.none, count: entries.count)
        unchanged = [Bool](repeating: false, count: entries.count)
        lookedUpIn = [ItemID](repeating: Self.none, count: entries.count)
        // Directories, from the root down: a directory is looked into where it is one in the index too.
        var stack: [(ItemID, Int32)] = [(root, -1)]
        while let (directory, position) = stack.popLast() {
            guard index.hasChildTable(directory) else { continue }
            directories.append((directory, position))
            if position >= 0 { lookedUpIn[Int(position)] = directory }
            var placeholder = false
            for i in children[position] where entries.kind(Int(i)) == .directory {
                guard let child = index.filedChild(directory, entries, Int(i), placeholder: &placeholder) else { continue }
                found[Int(i)] = child
                unchanged[Int(i)] = index.stats.holds(entries.stat(Int(i)), at: Int(child))
                if index.kind(child) == .directory { stack.append((child, i)) }
            }
        }
        // The other entries, by directory; the directories split in two halves of about as many entries.
        var deferred: [[Int32]] = [[], []]
        let directories = self.directories
        found.withUnsafeMutableBufferPointer { foundBuffer in
            unchanged.withUnsafeMutableBufferPointer { unchangedBuffer in
                let found = foundBuffer, unchanged = unchangedBuffer
                let all = directories.indices
                if entries.count < Self.twoThreadsEntries {
                    deferred[0] = Self.lookUpFiles(index, directories[all], entries, children, into: found, unchanged)
                    return
                }
                var half = 0, counted = 0
                while half < directories.count && counted * 2 < entries.count {
                    counted += children[directories[half].position].count
                    half += 1
                }
                var second: [Int32] = []
                deferred[0] = SideThread.run({
                    second = Self.lookUpFiles(index, directories[half...], entries, children, into: found, unchanged)
                }) {
                    Self.lookUpFiles(index, directories[..<half], entries, children, into: found, unchanged)
                }
                deferred[1] = second
            }
        }
        // Names that may be placeholders: as a `String`, here.
        for i in deferred.joined() {
            let parent = entries.parent(Int(i))
            let directory = parent == -1 ? root : lookedUpIn[Int(parent)]
            var placeholder = false
            found[Int(i)] = index.filedChild(directory, entries, Int(i), placeholder: &placeholder) ?? Self.none
            withPlaceholder.insert(parent)
        }
    }

    /// Looks up the entries other than directories of `directories` into `found`, and whether
    /// each found one's status is the listed one into `unchanged` (each position written by one
    /// thread only); returns those whose name may be a placeholder's, not looked up.
    /// Reads the index only: its tables, names and statuses are read through copies, as another
    /// thread may be reading them too.
    private static func lookUpFiles(_ index: MetadataIndex, _ directories: ArraySlice<(id: ItemID, position: Int32)>,
                                    _ entries: CrawlEntries, _ children: ListingChildren,
                                    into found: UnsafeMutableBufferPointer<ItemID>,
                                    _ unchanged: UnsafeMutableBufferPointer<Bool>) -> [Int32] {
        var deferred: [Int32] = []
        let names = index.names, stats = index.stats
        names.withReader { reader in
            for (directory, position) in directories {
                guard let table = index.children(directory) else { continue }
                for i in children[position] {
                    let stat = entries.stat(Int(i))
                    guard stat.kind != .directory else { continue }
                    entries.withName(Int(i)) { name in
                        if stat.kind == .regular, EvictedPlaceholderName.mayBePlaceholder(name) {
                            deferred.append(i)
                        } else if let child = table.find(name, hash: ChildTable.hash(name), names: reader) {
                            found[Int(i)] = child
                            unchanged[Int(i)] = stats.holds(stat, at: Int(child))
                        }
                    }
                }
            }
        }
        return deferred
    }
}
