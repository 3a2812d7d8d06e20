import CUbiquitySystem

/// Rebuilding an index from a saved one. The slots come back exactly as they were (so the ids and
/// generations that history names still mean the same items); everything derived — children,
/// flags, the name index, conflict counts, package totals — is recomputed here, and every rule the
/// live index keeps is checked, so a damaged or hostile file is refused, never trusted.
extension MetadataIndex {
    /// - Parameters:
    ///   - containers: the saved containers, in their saved order (an entry names its container
    ///     by position); none may be registered yet.
    ///   - columns: names, parents, containers, stats and generations of every slot; `flagsOf`
    ///     says only which slots are live. A root names itself as its parent.
    ///   - free: the free list, in its order (the next id allocated is its last).
    ///   - nameOrder: the name index as saved (format 3), taken when it holds, else rebuilt.
    ///   - stepAside: looked at between stretches of the work, on each of its threads.
    /// - Returns: whether the saved name order was taken.
    @discardableResult
    func restore(containers saved: [ContainerDescriptor], columns: Columns, free: [ItemID],
                 nameOrder: [SavedNameBucket]? = nil, stepAside: StepAside = .never) throws(SavedIndexError) -> Bool {
        precondition(containers.isEmpty, "restore into an empty index")
        for descriptor in saved { addContainer(descriptor) }
        var columns = columns
        let count = columns.names.count
        guard count <= Int(ItemID.max), columns.parents.count == count, columns.containerOf.count == count,
              columns.flagsOf.count == count, columns.stats.count == count, columns.generations.count == count
        else { throw .invalid("columns of different lengths") }
        columns.childrenOf = [:]

        // Roots first, then every live entry under its parent. Each live directory's children
        // table is found by slot through `tableOf` (no dictionary lookup per entry) and made with
        // room for all its children, counted first (none is hashed again by a resize).
        var roots = [ItemID?](repeating: nil, count: saved.count)
        var liveCount = 0
        var childCount = [UInt32](repeating: 0, count: count)
        for i in 0..<count where columns.flagsOf[i].contains(.live) {
            stepAside.every(i)
            liveCount += 1
            let container = Int(columns.containerOf[i])
            guard container < saved.count else { throw .invalid("entry #\(i) is in container #\(container) of \(saved.count)") }
            let parent = Int(columns.parents[i])
            if parent != i {
                if parent < count { childCount[parent] &+= 1 }
                continue
            }
            guard roots[container] == nil else { throw .invalid("container \(saved[container].id) has two roots") }
            guard columns.stats.kind(i) == .directory else { throw .invalid("the root of \(saved[container].id) is not a directory") }
            roots[container] = ItemID(i)
            columns.names[i] = saved[container].root
            columns.flagsOf[i] = [.live, .containerRoot]
        }
        // Each live directory's children table, made with room for all its children. The tables
        // are filled by two threads, each its own half (by table number: `tableOf[d] & 1`), each
        // going through every entry in slot order and taking those whose parent's table is its
        // own: every table takes its children in the order one thread gives them, and the first
        // entry refused (the lowest slot, of either half) is the reason given, as one pass says.
        let noTable = UInt32.max
        var tableOf = [UInt32](repeating: noTable, count: count)
        var tableIDs: [ItemID] = []
        var halves: [[ChildTable]] = [[], []]
        for i in 0..<count where columns.stats.kind(i) == .directory && columns.flagsOf[i].contains(.live) {
            stepAside.every(tableIDs.count)
            tableOf[i] = UInt32(tableIDs.count)
            halves[tableIDs.count & 1].append(ChildTable(capacity: Int(childCount[i])))
            tableIDs.append(ItemID(i))
        }
        childCount = []
        var odd = halves[1]
        halves[1] = []
        do {
            // Copies that end here: a holder of the columns after `adopt` would make the index
            // copy each chunk it writes a flag to.
            let filled = columns, placement = tableOf
            var oddRefusal: (slot: Int, error: SavedIndexError)?
            let evenRefusal = SideThread.run({ oddRefusal = Self.fillTables(&odd, half: 1, filled, placement, stepAside) }) {
                Self.fillTables(&halves[0], half: 0, filled, placement, stepAside)
            }
            if let refusal = [evenRefusal, oddRefusal].compactMap({ $0 }).min(by: { $0.slot < $1.slot }) { throw refusal.error }
        }
        var tables: [ChildTable] = []
        tables.reserveCapacity(tableIDs.count)
        for t in 0..<tableIDs.count { tables.append(t & 1 == 0 ? halves[0][t >> 1] : odd[t >> 1]) }
        halves = []
        odd = []

        // Every live entry but the roots is in the name index. It is taken from the saved order
        // once that is checked (``NameIndex/restore(_:named:slotCount:names:)``), else built (each
        // bucket sorted once: ``NameIndex/build(_:names:)``), on a thread of its own while the
        // rest of the restore goes on: the sort was the restore's longest single piece of work.
        // It reads only the names, which nothing below writes, and writes only itself, which
        // nothing below reads.
        var named: [ItemID] = []
        named.reserveCapacity(liveCount)
        for i in 0..<count where columns.flagsOf[i] == .live {
            stepAside.every(i)
            named.append(ItemID(i))
        }
        let nameIndex = self.nameIndex, indexedNames = columns.names, entries = named
        named = []
        var tookNameOrder = false
        try SideThread.run({
            if let nameOrder, nameIndex.restore(nameOrder, named: entries, slotCount: count, names: indexedNames,
                                                     stepAside: stepAside) {
                tookNameOrder = true
            } else {
                nameIndex.build(entries, names: indexedNames)
            }
        }) { () throws(SavedIndexError) in
            // Free slots: each dead slot exactly once (a dead slot outside the list would never be reused).
            var isFree = [Bool](repeating: false, count: count)
            for (k, id) in free.enumerated() {
                stepAside.every(k)
                guard Int(id) < count, !columns.flagsOf[Int(id)].contains(.live), !isFree[Int(id)] else {
                    throw .invalid("the free list names slot #\(id) twice, or a live or missing one")
                }
                isFree[Int(id)] = true
            }
            guard free.count == count - liveCount else { throw .invalid("\(count - liveCount - free.count) dead slots are not free") }

            columns.childrenOf.reserveCapacity(tables.count)
            for (id, table) in zip(tableIDs, tables) { columns.childrenOf[id] = table }
            adopt(columns, free: free, roots: roots)
            // The index holds the columns now: a second holder would make it copy each chunk it
            // writes a flag to.
            columns = Columns()

            // Flags are derived from the top down, as the live index derives them; an entry not
            // reached from a root is part of a cycle. A name no rule looks at is read as bytes
            // (``plainFlags(forChild:of:kind:container:)``), any other as a `String`.
            var reached = 0
            var stack: [UInt32] = []
            for root in roots.compactMap({ $0 }) {
                reached += 1
                stack.append(tableOf[Int(root)])
            }
            // A table's children are in its hash order, so each child's status and name slot are
            // a cache miss: they are asked for a few children ahead (at a million entries the
            // loads of the statuses alone were half of this pass). The copies of the columns
            // end with the pass, so that no later write to the index copies a chunk of them.
            do {
                let names = self.names, stats = self.stats
                names.withReader { reader in
                    stats.withAddresses { statusAddress in
                        while let table = stack.popLast() {
                            let entry = tableIDs[Int(table)]
                            let children = tables[Int(table)].ids
                            for (k, child) in children.enumerated() {
                                if k + Self.restorePrefetchDistance < children.count {
                                    let ahead = Int(children[k + Self.restorePrefetchDistance])
                                    ubq_prefetch(statusAddress(ahead))
                                    ubq_prefetch(reader.address(ahead))
                                }
                                reached += 1
                                stepAside.every(reached)
                                let kind = self.kind(child), container = container(of: child)
                                let plain = reader.withUTF8(Int(child)) { plainFlags(forChild: $0, of: entry, kind: kind, container: container) }
                                setFlags(child, plain ?? flags(forChild: name(child), of: entry, kind: kind, container: container))
                                if tableOf[Int(child)] != noTable { stack.append(tableOf[Int(child)]) }
                            }
                        }
                    }
                }
            }
            guard reached == liveCount else { throw .invalid("\(liveCount - reached) entries are not below any container root") }

            for i in 0..<count where flagsOf[i].contains(.live) {
                stepAside.every(i)
                let id = ItemID(i)
                if let (key, _) = conflictCopyKey(id) { adjustConflictCopies(key, by: 1) }
                if flagsOf[i].contains(.package) { refreshPackage(id) }
            }
        }
        // Read after the side thread has ended (``SideThread/run(_:while:)`` joins it).
        return tookNameOrder
    }

    /// Puts every live entry (not a root) whose parent's table is in `half` (``restore``: table
    /// `t` is `tables[t >> 1]` of half `t & 1`) in that table, its name checked; an entry whose
    /// parent has no table is half 0's to refuse.
    /// - Returns: the first entry refused, by slot, and why; nil when none is.
    private static func fillTables(_ tables: inout [ChildTable], half: UInt32, _ columns: Columns,
                                   _ tableOf: [UInt32], _ stepAside: StepAside) -> (slot: Int, error: SavedIndexError)? {
        let count = columns.names.count, noTable = UInt32.max
        // Names are checked and placed as bytes, through one reader: a `String` per entry (a heap
        // block for a name over 15 bytes) is made only to say what is wrong.
        return columns.names.withReader { names -> (slot: Int, error: SavedIndexError)? in
            for i in 0..<count where columns.flagsOf[i] == .live {
                stepAside.every(i)
                let parent = Int(columns.parents[i])
                let table = parent < count ? tableOf[parent] : noTable
                guard table == noTable ? half == 0 : table & 1 == half else { continue }
                guard names.withUTF8(i, isEntryName) else { return (i, .invalid("entry #\(i) has the name '\(names[i])'")) }
                guard table != noTable, columns.flagsOf[parent].contains(.live) else {
                    return (i, .invalid("entry #\(i) ('\(names[i])') has no live directory as its parent"))
                }
                guard columns.containerOf[parent] == columns.containerOf[i] else {
                    return (i, .invalid("entry #\(i) ('\(names[i])') is in another container than its parent"))
                }
                guard tables[Int(table >> 1)].insertUnlessNamed(ItemID(i), names: names) else {
                    return (i, .invalid("two entries named '\(names[i])' in one directory"))
                }
            }
            return nil
        }
    }

    /// How many children ahead the restore's flags pass asks for a child's status and name slot.
    static let restorePrefetchDistance = 8

    /// A directory entry's name as the kernel allows it: not empty, not `.` or `..`, no `/` or NUL,
    /// at most 255 bytes.
    static func isEntryName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8(isEntryName)
    }

    /// ``isEntryName(_:)`` of a name's UTF-8 bytes.
    static func isEntryName(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !utf8.isEmpty, utf8.count <= 255 else { return false }
        if utf8.count <= 2 && utf8.allSatisfy({ $0 == UInt8(ascii: ".") }) { return false }
        return !utf8.contains(UInt8(ascii: "/")) && !utf8.contains(0)
    }
}
