import CUbiquitySystem
import UbiquityPredicate

/// Identifies an indexed entry while it exists. Ids of removed entries are reused only after
/// the change set that removed them has been handed out.
public typealias ItemID = UInt32

/// The in-memory metadata index of every watched container: one entry per directory entry,
/// names stored once, paths computed from parents, a name index for exact and prefix lookups.
///
/// Not thread-safe: one owner (the engine actor) applies changes and answers queries.
public final class MetadataIndex {
    struct Flags: OptionSet, Sendable {
        let rawValue: UInt8
        /// A container root directory: not an item.
        static let containerRoot = Flags(rawValue: 1)
        /// A directory with a declared package extension: ONE item.
        static let package = Flags(rawValue: 2)
        /// Below a package: part of the package item, never a result of its own.
        static let insidePackage = Flags(rawValue: 4)
        /// A dotfile or temp file, or below one.
        static let hidden = Flags(rawValue: 8)
        /// Inside the container's `Documents/` (or `Documents` itself).
        static let documents = Flags(rawValue: 16)
        /// The slot holds a live entry.
        static let live = Flags(rawValue: 32)
        /// A sync engine's own file (``SyncEngineFiles``), or below one: never an item.
        static let syncEngine = Flags(rawValue: 64)
        /// A conflict copy (``ConflictCopyName``), or below one: a version of another item, never
        /// an item itself.
        static let conflictCopy = Flags(rawValue: 128)
        /// Entries with any of these are never query results.
        static let notAnItem: Flags = [.containerRoot, .insidePackage, .syncEngine, .conflictCopy]
    }

    /// A copy of one entry's fields, for code off the hot paths (tests, moves, packages).
    struct Entry {
        var name: String
        var parent: ItemID
        var container: UInt16
        var flags: Flags
        var stat: FileStat
        /// Directories only: the children's ids.
        var children: [ItemID]?
        /// Packages only: size of the contents and newest modification.
        var packageSize: Int64 = 0
        var packageModified: Int64 = 0
        /// Bumped each time the slot is reused, so (id, generation) names one item forever.
        var generation: UInt32 = 0
    }

    // Storage is one column per field ("struct of arrays"): scans touch only the fields they
    // need (a flags scan reads one byte per entry), and no per-entry padding is paid. Each column
    // is in chunks: a snapshot shares them while encoded elsewhere, and the engine's next write
    // then copies one chunk of 4,096 values, not the column (``ChunkedColumn``).
    //
    // No dynamic exclusivity check on the columns and tables a crawl writes once per entry
    // (`@exclusivity(unchecked)`): in `perf` of a first crawl of a million entries, the engine
    // placing the walk's last parts alone on one core spent a fifth of that time in the checks
    // (`swift_beginAccess`, `swift_endAccess`, the thread's access set). Safe because the index
    // is owned by one engine (it is not `Sendable`: the unavailable conformance below), so only
    // that engine writes it (other threads only read it, while it waits: a listing's lookup, a
    // restore), and its methods take these properties only for the length
    // of one call on them (a read, an append, a `withReader` that reads): none is held across a
    // call that could reach the same property again. The static checks still apply.
    @exclusivity(unchecked) private(set) var names = NameColumn()
    @exclusivity(unchecked) private(set) var parents = ChunkedColumn<ItemID>()
    @exclusivity(unchecked) private(set) var containerOf = ChunkedColumn<UInt16>()
    @exclusivity(unchecked) private(set) var flagsOf = ChunkedColumn<Flags>()
    @exclusivity(unchecked) private(set) var stats = StatColumn()
    @exclusivity(unchecked) private(set) var generations = ChunkedColumn<UInt32>()
    /// Directories only: the children, found by name. A dictionary, not a column: about 2% of
    /// entries are directories, and a column would cost every file 8 bytes.
    @exclusivity(unchecked) private(set) var childrenOf: [ItemID: ChildTable] = [:]
    /// Where one directory's table is in ``childrenOf`` (``childTable(_:)``).
    typealias ChildTableIndex = Dictionary<ItemID, ChildTable>.Index
    /// Packages only: total size and newest modification of their contents.
    private var packageTotals: [ItemID: (size: Int64, modified: Int64)] = [:]
    /// Conflict copies present, by the directory they are in and the name of the item they are
    /// versions of (sparse: only names that have any).
    private(set) var conflictCopies: [ConflictKey: Int] = [:]

    /// The original's name is compared byte for byte (``ExactName``): copies of `café` (one
    /// form) are not versions of its canonically equal sibling.
    struct ConflictKey: Hashable {
        var parent: ItemID
        var original: ExactName
    }

    /// Slots to reuse, the next one last; in chunks, as the columns (a snapshot shares it).
    private(set) var free = ChunkedColumn<ItemID>()
    /// Freed during the current batch; reusable once the batch's change set is out.
    private var freedInBatch: [ItemID] = []
    public private(set) var containers: [ContainerDescriptor] = []
    /// What the sync engine says of each container's items, by container index; a container
    /// without an entry is a single machine's (``SyncAttributeValues/singleMachine``). Never saved.
    var syncFacts: [Int: ContainerSyncFacts] = [:]
    private var containerRoots: [ItemID?] = []
    let nameIndex = NameIndex()
    /// A container's first crawl arriving in parts, while it does (MetadataIndex+Parts.swift).
    var listingInParts: ListingInParts?
    /// The names of the entries a first crawl's parts placed that are not in the name index yet,
    /// by name index bucket. They wait past the crawl: a lookup files the buckets it reads
    /// (``fileWaitingNames(reachedBy:)``), each sorted once, a rename or removal the bucket of the
    /// name it takes out, and the rest are filed by a snapshot (after the crawl's tag pass), off the
    /// engine, and taken back (``takeFiledNames(_:)``). Why: filing them part by part, sorted and merged
    /// into their buckets, was a tenth of the daemon's CPU in a crawl of long names, spent while
    /// the walk needed both cores, where the first answer reads a bucket or two.
    @exclusivity(unchecked) var pendingNames: [String: [ItemID]] = [:]
    /// How many times each bucket's waiting names were filed here: a snapshot's filing of a bucket
    /// off the engine is taken only if none was since it was taken (its ids' names are then still
    /// the ones it sorted). One entry per bucket ever filed (a few, to tens of thousands).
    private(set) var bucketFilings: [String: UInt64] = [:]
    /// While a part is placed: new names wait in ``pendingNames`` rather than go in one by one.
    @exclusivity(unchecked) var deferringNames = false
    /// How often a listing's diff looked a directory up anew after a rename (a directory listing
    /// a name that may be a placeholder's), and dropped its lookup altogether
    /// (``ListingLookup``): what the tests ask to tell the diff's paths apart.
    var directoriesLookedUpAgain = 0
    var listingLookupsDropped = 0

    public init() {}

    /// Live entries, container roots included.
    public var entryCount: Int { names.count - free.count - freedInBatch.count }
    /// Indexed items: live entries that can be results or are inside packages.
    public var itemCount: Int { entryCount - containerRoots.compactMap { $0 }.count }

    /// Items per container (a package counts once), by container id: one pass over the flags and container columns
    /// (about a millisecond per million entries), for status and `containers.list`.
    public func itemCountsByContainer() -> [ContainerID: Int] {
        var counts = [Int](repeating: 0, count: containers.count)
        flagsOf.withReader { flagsOf in
            containerOf.withReader { containerOf in
                for i in 0..<flagsOf.count {
                    let flags = flagsOf[i]
                    guard flags.contains(.live), flags.isDisjoint(with: .notAnItem) else { continue }
                    counts[Int(containerOf[i])] += 1
                }
            }
        }
        var out: [ContainerID: Int] = [:]
        for (i, container) in containers.enumerated() { out[container.id] = counts[i] }
        return out
    }

    /// Makes room for `count` more entries (a crawl knows how many it brings), the container
    /// root included: in each column's list of chunks, and in its last chunk.
    func reserve(_ count: Int) {
        let total = names.count + count + 1
        names.reserveCapacity(total)
        parents.reserveCapacity(total)
        containerOf.reserveCapacity(total)
        flagsOf.reserveCapacity(total)
        stats.reserveCapacity(total)
        generations.reserveCapacity(total)
    }

    // MARK: - Containers

    /// Registers a container; its root entry appears with the first change that reaches it.
    @discardableResult
    public func addContainer(_ descriptor: ContainerDescriptor) -> Int {
        if let existing = containers.firstIndex(where: { $0.id == descriptor.id }) {
            containers[existing] = descriptor
            return existing
        }
        containers.append(descriptor)
        containerRoots.append(nil)
        return containers.count - 1
    }

    public func containerIndex(_ id: ContainerID) -> Int? { containers.firstIndex { $0.id == id } }

    func rootID(ofContainer index: Int) -> ItemID? { containerRoots[index] }

    // MARK: - Reading entries

    func entry(_ id: ItemID) -> Entry {
        let i = Int(id)
        let totals = packageTotals[id]
        return Entry(name: names[i], parent: parents[i], container: containerOf[i], flags: flagsOf[i], stat: stats[i],
                     children: childrenOf[id]?.ids, packageSize: totals?.size ?? 0, packageModified: totals?.modified ?? 0,
                     generation: generations[i])
    }

    /// The identity of the item now in slot `id`: stable for its whole life, never reused.
    public func identity(_ id: ItemID) -> ItemIdentity {
        ItemIdentity(id: id, generation: generations[Int(id)])
    }

    @inline(__always) func name(_ id: ItemID) -> String { names[Int(id)] }
    @inline(__always) func parent(_ id: ItemID) -> ItemID { parents[Int(id)] }
    @inline(__always) func flags(_ id: ItemID) -> Flags { flagsOf[Int(id)] }
    @inline(__always) func stat(_ id: ItemID) -> FileStat { stats[Int(id)] }
    @inline(__always) func kind(_ id: ItemID) -> FileStat.Kind { stats.kind(Int(id)) }
    @inline(__always) func container(of id: ItemID) -> Int { Int(containerOf[Int(id)]) }
    @inline(__always) func children(_ id: ItemID) -> ChildTable? { childrenOf[id] }
    /// The child of directory `id` named `name`, byte for byte (as the kernel compares names).
    /// The child of `id` named `name`: by its bytes, in place (a copy of the table and of the
    /// name column per lookup was a retain and a release of each, on every path looked up).
    @inline(__always) func child(_ id: ItemID, _ name: String) -> ItemID? {
        var name = name
        return name.withUTF8 { child(id, $0, hash: ChildTable.hash($0)) }
    }

    /// An entry's status as last applied (for tools and tests that compare the index with the disk).
    public func fileStat(of id: ItemID) -> FileStat { stat(id) }
    /// A directory's children with their names, in no particular order; nil for anything that
    /// is not a directory.
    public func childEntries(of id: ItemID) -> [(name: String, id: ItemID)]? {
        children(id)?.ids.map { (names[Int($0)], $0) }
    }
    func packageTotals(_ id: ItemID) -> (size: Int64, modified: Int64) { packageTotals[id] ?? (0, 0) }

    func isLive(_ id: ItemID) -> Bool {
        Int(id) < flagsOf.count && flagsOf[Int(id)].contains(.live)
    }

    /// An entry that can be a query result: not a container root, not inside a package, not a
    /// sync engine's own file.
    func isItem(_ id: ItemID) -> Bool {
        let flags = flagsOf[Int(id)]
        return flags.contains(.live) && flags.isDisjoint(with: .notAnItem)
    }

    /// The entry at `components` below the container root, if indexed.
    public func lookup(container: Int, _ components: [String]) -> ItemID? {
        guard var id = containerRoots[container] else { return nil }
        for name in components {
            guard let next = child(id, name) else { return nil }
            id = next
        }
        return id
    }

    /// Absolute path of an entry.
    ///
    /// Hot: every result of every answer needs one. Built by copying each name's UTF-8 once into
    /// a buffer sized up front (5x faster than collecting the names and `joined`).
    public func path(of id: ItemID) -> String {
        var chain: [ItemID] = []
        chain.reserveCapacity(16)
        var byteCount = 0
        var current = id
        while true {
            chain.append(current)
            byteCount += names.withUTF8(Int(current)) { $0.count } + 1
            if flagsOf[Int(current)].contains(.containerRoot) { break }
            current = parents[Int(current)]
        }
        return String(unsafeUninitializedCapacity: byteCount - 1) { buffer in
            var offset = 0
            for (position, entry) in chain.reversed().enumerated() {
                if position > 0 {
                    buffer[offset] = UInt8(ascii: "/")
                    offset += 1
                }
                names.withUTF8(Int(entry)) { utf8 in
                    let target = UnsafeMutableBufferPointer(rebasing: buffer[offset..<(offset + utf8.count)])
                    _ = target.initialize(from: utf8)
                    offset += utf8.count
                }
            }
            return offset
        }
    }

    /// Appends an entry's absolute path as UTF-8 (the bytes of ``path(of:)``).
    func appendPath(of id: ItemID, to out: inout [UInt8]) {
        var chain: [ItemID] = []
        var current = id
        while true {
            chain.append(current)
            if flagsOf[Int(current)].contains(.containerRoot) { break }
            current = parents[Int(current)]
        }
        // The names read in place: a call on the column would copy it first (a retain and a
        // release of each of its buffers, per component), which was most of the time a live
        // query took to place each new member of a burst (its binary search builds a path per step).
        names.withReaderInPlace { names in
            for (position, entry) in chain.reversed().enumerated() {
                if position > 0 { out.append(UInt8(ascii: "/")) }
                names.appendUTF8(Int(entry), to: &out)
            }
        }
    }

    /// Negative, zero or positive as `a`'s path sorts before, with or after `b`'s, when both are
    /// entries of one directory: everything before their names is the same, so the names alone
    /// decide, with no path built. nil when they are not siblings (or either is a container root).
    func comparePathsOfSiblings(_ a: ItemID, _ b: ItemID) -> Int? {
        guard parents[Int(a)] == parents[Int(b)],
              !flagsOf[Int(a)].contains(.containerRoot), !flagsOf[Int(b)].contains(.containerRoot) else { return nil }
        return names.withReaderInPlace { names in
            names.withUTF8(Int(a)) { x in names.withUTF8(Int(b)) { y in ByteOrder.compare(x, y) } }
        }
    }

    /// Components below the container root.
    public func relativeComponents(of id: ItemID) -> [String] {
        var parts: [String] = []
        var current = id
        while !flagsOf[Int(current)].contains(.containerRoot) {
            parts.append(names[Int(current)])
            current = parents[Int(current)]
        }
        return parts.reversed()
    }

    /// Every item (not roots, not package contents) of the given containers.
    func allItems(inContainers containerSet: Set<Int>?) -> [ItemID] {
        var result: [ItemID] = []
        result.reserveCapacity(entryCount)
        flagsOf.withReader { flagsOf in
            for i in 0..<flagsOf.count {
                let flags = flagsOf[i]
                guard flags.contains(.live), flags.isDisjoint(with: .notAnItem) else { continue }
                if let containerSet, !containerSet.contains(Int(containerOf[i])) { continue }
                result.append(ItemID(i))
            }
        }
        return result
    }

    /// Candidate items for a name hint (a superset of the matches), or nil when the hint is too weak.
    func candidates(for hint: NameHint) -> [ItemID] {
        candidates(for: hint) { _, _ in true }
    }

    /// How many ids ahead ``candidates(for:accept:)`` asks for their flags and containers. The
    /// loop does little per id, so a miss must be asked for many ids before its use to have
    /// arrived: at 16 the walk still waited for most of them (about 40% of a 10k-item answer's
    /// gathering), at 64 it does not (``PathTable/prefetchDistance``, docs/architecture.md).
    static let candidatePrefetchDistance = 64

    /// Items whose name satisfies the hint and whose flags and container pass `accept`.
    /// The name index answers with sorted runs of names, so only flags are read per item.
    func candidates(for hint: NameHint, accept: (Flags, Int) -> Bool) -> [ItemID] {
        // The names' ids first, then their flags and containers: the ids come in name order,
        // scattered over columns of megabytes, and reading ahead of the one at hand turns a
        // cache miss per id into misses that overlap (97,707 ids at a million entries).
        fileWaitingNames(reachedBy: hint)
        var named: [ItemID] = []
        for constraint in hint.constraints {
            nameIndex.forEach(matching: constraint, caseInsensitive: hint.caseInsensitive, names: names) { named.append($0) }
        }
        var result: [ItemID] = []
        result.reserveCapacity(named.count)
        var seen = Set<ItemID>()
        let dedupe = hint.constraints.count > 1
        let ahead = MetadataIndex.candidatePrefetchDistance
        flagsOf.withReader { flagsOf in
            containerOf.withReader { containerOf in
                for (k, id) in named.enumerated() {
                    if k + ahead < named.count {
                        let later = Int(named[k + ahead])
                        ubq_prefetch(flagsOf.address(later))
                        ubq_prefetch(containerOf.address(later))
                    }
                    let flags = flagsOf[Int(id)]
                    guard flags.isDisjoint(with: .notAnItem), accept(flags, Int(containerOf[Int(id)])) else { continue }
                    if dedupe, !seen.insert(id).inserted { continue }
                    result.append(id)
                }
            }
        }
        return result
    }

    // MARK: - Mutation primitives (used by MetadataIndex+Apply)

    /// ``allocate(name:parent:container:flags:stat:)`` of a name given as its UTF-8 bytes (valid).
    func allocate(utf8 name: UnsafeBufferPointer<UInt8>, encoded: UnsafeBufferPointer<UInt8>? = nil, parent: ItemID,
                  container: UInt16, flags: Flags, stat deferred: FileStat) -> ItemID {
        guard free.isEmpty else {
            return allocate(name: String(decoding: name, as: UTF8.self), parent: parent, container: container, flags: flags, stat: deferred)
        }
        let stat = Self.stored(deferred)
        let id = ItemID(names.count)
        names.append(utf8: name, encoded: encoded)
        parents.append(parent)
        containerOf.append(container)
        flagsOf.append(flags)
        stats.append(stat)
        generations.append(0)
        if stat.kind == .directory { childrenOf[id] = ChildTable() }
        return id
    }

    func allocate(name: String, parent: ItemID, container: UInt16, flags: Flags, stat deferred: FileStat) -> ItemID {
        let stat = Self.stored(deferred)
        let id: ItemID
        if let reused = free.popLast() {
            id = reused
            let i = Int(id)
            names[i] = name
            parents[i] = parent
            containerOf[i] = container
            flagsOf[i] = flags
            stats[i] = stat
            generations[i] &+= 1
        } else {
            id = ItemID(names.count)
            names.append(name)
            parents.append(parent)
            containerOf.append(container)
            flagsOf.append(flags)
            stats.append(stat)
            generations.append(0)
        }
        if stat.kind == .directory || flags.contains(.containerRoot) { childrenOf[id] = ChildTable() }
        return id
    }

    func setRoot(container: Int, stat: FileStat) -> ItemID {
        if let id = containerRoots[container] {
            stats[Int(id)] = Self.stored(stat)
            return id
        }
        let id = allocate(name: containers[container].root, parent: 0, container: UInt16(container),
                          flags: [.live, .containerRoot], stat: stat)
        parents[Int(id)] = id
        containerRoots[container] = id
        return id
    }

    func clearRoot(container: Int) {
        containerRoots[container] = nil
    }

    func setStat(_ id: ItemID, _ stat: FileStat) { stats[Int(id)] = Self.stored(stat) }
    /// A status as kept: whether its tags were read is the watcher's business, not the index's
    /// (callers have already kept the old tags for a status that deferred them).
    @inline(__always) static func stored(_ stat: FileStat) -> FileStat {
        guard stat.tagsDeferred else { return stat }
        var stored = stat
        stored.tagsDeferred = false
        return stored
    }
    func setFlags(_ id: ItemID, _ flags: Flags) { flagsOf[Int(id)] = flags }
    /// Makes `child` (named already) one of `parent`'s children.
    func addChild(_ parent: ItemID, _ child: ItemID) { childrenOf[parent]?.insert(child, names: names) }
    /// ``addChild(_:_:)`` for a child whose name's ``ChildTable`` hash the caller has.
    func addChild(_ parent: ItemID, _ child: ItemID, hash: Int) {
        guard let table = childTable(parent) else { return }
        addChild(in: table, child, hash: hash)
    }
    /// ``addChild(_:_:hash:)`` into the table at `table` (``childTable(_:)``).
    func addChild(in table: ChildTableIndex, _ child: ItemID, hash: Int) {
        // Through the dictionary's values, read with the names' reader: no copy of the table or
        // of the name column (a retain of each of their buffers) per child.
        names.withReaderInPlace { childrenOf.values[table].insert(child, hash: hash, names: $0) }
    }
    /// Makes room in the children of the table at `table` for `more` more (``ChildTable/reserve(_:names:)``).
    func reserveChildren(in table: ChildTableIndex, _ more: Int) {
        names.withReaderInPlace { childrenOf.values[table].reserve(more, names: $0) }
    }
    /// The child of `parent` whose name is `bytes`, hashed to `hash` (``ChildTable/hash(_:)-(UnsafeBufferPointer<UInt8>)``).
    func child(_ parent: ItemID, _ bytes: UnsafeBufferPointer<UInt8>, hash: Int) -> ItemID? {
        guard let table = childTable(parent) else { return nil }
        return child(in: table, bytes, hash: hash)
    }
    /// ``child(_:_:hash:)`` in the table at `table` (``childTable(_:)``).
    func child(in table: ChildTableIndex, _ bytes: UnsafeBufferPointer<UInt8>, hash: Int) -> ItemID? {
        names.withReaderInPlace { childrenOf.values[table].findInPlace(bytes, hash: hash, names: $0) }
    }
    /// Where `parent`'s ``ChildTable`` is, nil when it has none: for many children of one parent
    /// in a row, one lookup (a hash of the id) instead of one per child and step. Good until a
    /// table is added or removed (a directory allocated or released), which may move them all.
    @inline(__always) func childTable(_ parent: ItemID) -> ChildTableIndex? { childrenOf.index(forKey: parent) }
    /// Whether `id` is a directory (or a container root): it has children, or may have. Reads no
    /// copy of its ``ChildTable``.
    @inline(__always) func hasChildTable(_ id: ItemID) -> Bool { childrenOf.index(forKey: id) != nil }
    /// Takes `child` (still named) out of `parent`'s children.
    func removeChild(_ parent: ItemID, _ child: ItemID) { childrenOf[parent]?.remove(child, names: names) }
    func setPackageTotals(_ id: ItemID, size: Int64, modified: Int64) { packageTotals[id] = (size, modified) }
    func adjustConflictCopies(_ key: ConflictKey, by delta: Int) {
        let count = (conflictCopies[key] ?? 0) + delta
        conflictCopies[key] = count > 0 ? count : nil
    }

    /// Whether an item has conflict copies beside it (or, for a package, inside it).
    func hasUnresolvedConflicts(_ id: ItemID) -> Bool {
        guard !conflictCopies.isEmpty else { return false }
        // Copies inside a package are counted under the package itself, with no name.
        return conflictCopies[ConflictKey(parent: parent(id), original: ExactName(name(id)))] != nil
            || (flags(id).contains(.package) && conflictCopies[ConflictKey(parent: id, original: "")] != nil)
    }

    /// Gives an entry a new name and parent (a rename); the caller updates both parents' children.
    func rename(_ id: ItemID, to name: String, parent: ItemID) {
        let old = names[Int(id)]
        fileWaitingNames(ofBucketOf: old)
        nameIndex.remove(old, id, names: names)
        names[Int(id)] = name
        parents[Int(id)] = parent
        nameIndex.insert(name, id, names: names)
    }

    func release(_ id: ItemID) {
        let i = Int(id)
        if !flagsOf[i].contains(.containerRoot) {
            let name = names[i]
            fileWaitingNames(ofBucketOf: name)
            nameIndex.remove(name, id, names: names)
        }
        names[i] = ""
        flagsOf[i] = []
        childrenOf[id] = nil
        packageTotals[id] = nil
        freedInBatch.append(id)
    }

    /// Takes over a saved index's slots as they were (ids, generations and the free list, so the
    /// ids its history names stay valid); ``MetadataIndex/restore(_:)`` checked them and derives
    /// the rest.
    func adopt(_ columns: Columns, free: [ItemID], roots: [ItemID?]) {
        names = columns.names
        parents = columns.parents
        containerOf = columns.containerOf
        flagsOf = columns.flagsOf
        stats = columns.stats
        generations = columns.generations
        childrenOf = columns.childrenOf
        self.free = ChunkedColumn(free)
        freedInBatch = []
        containerRoots = roots
        packageTotals = [:]
        conflictCopies = [:]
    }

    /// Every slot's fields as they are now, the children left out (a snapshot does not write
    /// them): the columns share the index's chunks until either side writes to one.
    var slotColumns: Columns {
        Columns(names: names, parents: parents, containerOf: containerOf, flagsOf: flagsOf, stats: stats, generations: generations)
    }

    /// Every slot's fields, one column per field (the storage's own shape).
    struct Columns {
        var names = NameColumn()
        var parents = ChunkedColumn<ItemID>()
        var containerOf = ChunkedColumn<UInt16>()
        var flagsOf = ChunkedColumn<Flags>()
        var stats = StatColumn()
        var generations = ChunkedColumn<UInt32>()
        var childrenOf: [ItemID: ChildTable] = [:]
    }

    /// Files a new entry's name in the name index: now, or with the rest of the part being placed.
    func indexName(_ name: String, _ id: ItemID) {
        if deferringNames {
            pendingNames[NameIndex.bucket(name), default: []].append(id)
        } else {
            nameIndex.insert(name, id, names: names)
        }
    }

    /// ``indexName(_:_:)`` of a name given as its UTF-8 bytes.
    func indexName(utf8 name: UnsafeBufferPointer<UInt8>, _ id: ItemID) {
        if deferringNames {
            pendingNames[NameIndex.bucket(utf8: name), default: []].append(id)
        } else {
            nameIndex.insert(String(decoding: name, as: UTF8.self), id, names: names)
        }
    }

    /// Puts every name waiting in ``pendingNames`` in the name index.
    func flushPendingNames() {
        fileWaitingNames { _ in true }
    }

    /// Takes the waiting names a snapshot filed off the engine (``IndexSnapshot/View/fileWaitingNames()``),
    /// each bucket that was not filed here since the view was taken (``bucketFilings``: then none
    /// of its waiting ids was renamed or removed, each of which files its bucket first, so their
    /// names are the ones sorted) and whose ids still wait exactly as filed. A bucket filed here
    /// since, or given more names, is left as it is.
    func takeFiledNames(_ filed: [String: FiledNameBucket]) {
        for (key, bucket) in filed where bucketFilings[key] ?? 0 == bucket.filingsBefore && pendingNames[key] == bucket.waiting {
            pendingNames[key] = nil
            nameIndex.insert(sorted: bucket.sorted, inBucket: key, names: names)
        }
    }

    /// Puts in the name index the waiting names of the buckets a lookup of `hint` reads
    /// (``NameBucketReach``): the lookup then finds what it would with every name filed.
    func fileWaitingNames(reachedBy hint: NameHint) {
        guard !pendingNames.isEmpty else { return }
        let reaches = hint.constraints.map(NameBucketReach.init)
        fileWaitingNames { key in reaches.contains { $0.reaches(key) } }
    }

    /// Puts in the name index the waiting names of the buckets whose keys `chosen` accepts.
    private func fileWaitingNames(where chosen: (String) -> Bool) {
        guard !pendingNames.isEmpty else { return }
        let due = pendingNames.filter { chosen($0.key) }
        guard !due.isEmpty else { return }
        for key in due.keys {
            pendingNames[key] = nil
            bucketFilings[key, default: 0] &+= 1
        }
        nameIndex.insert(due, names: names)
    }

    /// Puts in the name index the waiting names of the bucket `name` falls in, so that taking
    /// `name` out of the index finds it there: one bucket, not every waiting name (after a crawl
    /// of a million, the first removal would have sorted them all on the engine at once).
    private func fileWaitingNames(ofBucketOf name: String) {
        guard !pendingNames.isEmpty else { return }
        let key = NameIndex.bucket(name)
        guard let ids = pendingNames.removeValue(forKey: key) else { return }
        bucketFilings[key, default: 0] &+= 1
        nameIndex.insert([key: ids], names: names)
    }

    /// Makes the ids freed by the last batch reusable.
    func endBatch() {
        for id in freedInBatch { free.append(id) }
        freedInBatch.removeAll(keepingCapacity: true)
    }
}

@available(*, unavailable, message: "owned by one engine actor")
extension MetadataIndex: Sendable {}
