import UbiquityPredicate

/// One live query's membership and sorted results, kept exact against the index.
///
/// The "live equals rescan" property: after every ``apply(_:)``, ``results`` equals what a
/// fresh ``gather()`` would return.
final class LiveQuery {
    let specification: QuerySpecification
    let compiled: CompiledPredicate
    let includesHidden: Bool
    let containerFilter: Set<Int>?
    /// ``containerFilter`` by container index, read once per candidate without hashing (an
    /// index past its end is not in the filter).
    private let allowedContainers: [Bool]?
    let wantsDocuments: Bool
    let wantsData: Bool
    /// Attributes whose change is a `changed` for this query: every registered one
    /// (``ChangeReporting/all``), or those requested, sorted by or tested, with the path and the
    /// conflict state (``ChangeReporting/requested``).
    let visibleAttributes: [Attribute]
    unowned let index: MetadataIndex
    /// Members by identity, and the same members in result order: by the sort keys, then by
    /// path, compared byte by byte (``PathTable``). Nothing else is kept per member: a key is
    /// read from the index when an insertion needs it, and the index changes no member's key
    /// without a change set that moves the member (a rename lists every entry below it).
    private(set) var members: Set<ItemIdentity> = []
    private(set) var order: [ItemID] = []
    /// Whether ``members`` holds ``order``'s identities. A one-shot query never needs them, and a
    /// live one builds them once its answer is on its way (at 1M entries, 97,000 identities to
    /// hash): always before the index changes again, since they are read from it.
    private var membersBuilt = true
    /// How many running queries hold this one, counted by the engine that lets queries asking
    /// the same thing share it (``SharedQueryKey``): more than one, and a delivery applies a change
    /// set to it once for them all.
    var sharers = 0

    /// Builds ``members`` from ``order`` if the gathering left them out. Call before the index
    /// changes again.
    func buildMembers() {
        guard !membersBuilt else { return }
        members = Set(order.map(index.identity))
        membersBuilt = true
    }

    init(_ specification: QuerySpecification, index: MetadataIndex, context: EvaluationContext) {
        self.specification = specification
        self.index = index
        compiled = specification.predicate.compiled(context)
        includesHidden = specification.predicate.attributes.contains(.isHidden)
        wantsDocuments = specification.scopes.contains(.documents)
        wantsData = specification.scopes.contains(.data)
        if specification.containers.isEmpty {
            containerFilter = nil
        } else {
            containerFilter = Set(specification.containers.compactMap { index.containerIndex($0) })
        }
        allowedContainers = containerFilter.map { filter in
            var allowed = [Bool](repeating: false, count: (filter.max() ?? -1) + 1)
            for container in filter { allowed[container] = true }
            return allowed
        }
        visibleAttributes = Self.visibleAttributes(of: specification)
    }

    /// What ``ChangeReporting/all`` compares: every registered attribute but those that follow
    /// from another (the URL from the path, the display name from the name, the type tree from
    /// the type), the cheap numbers first, since an unchanged member is compared in full.
    static let everyFact: [Attribute] = {
        let derived: Set<Attribute> = [.url, .displayName, .contentTypeTree]
        let first: [Attribute] = [.size, .contentChangeDate, .creationDate, .hasUnresolvedConflicts]
        return first + Attribute.all.filter { !derived.contains($0) && !first.contains($0) }
    }()

    /// The attributes compared to decide whether a member changed (``visibleAttributes``).
    static func visibleAttributes(of specification: QuerySpecification) -> [Attribute] {
        if specification.changes == .all { return everyFact }
        var visible = specification.attributes
        for attribute in specification.predicate.attributes.union(specification.sort.map(\.attribute))
        where !visible.contains(attribute) {
            visible.append(attribute)
        }
        if !visible.contains(.path) { visible.append(.path) }
        // A conflict appearing or ending is news to every subscriber, whatever it shows.
        if !visible.contains(.hasUnresolvedConflicts) { visible.append(.hasUnresolvedConflicts) }
        return visible
    }

    /// Whether the item in slot `id` belongs in the results now.
    func matches(_ id: ItemID) -> Bool {
        guard index.isItem(id), isInScope(index.flags(id), index.container(of: id)) else { return false }
        return compiled.evaluate(IndexedItem(index, id))
    }

    /// The matching items, unsorted, using the name index when the predicate allows.
    func matchingIDs() -> [ItemID] {
        guard let hint = specification.predicate.nameHint else {
            return index.allItems(inContainers: containerFilter).filter(matches)
        }
        let candidates = index.candidates(for: hint, accept: isInScope)
        // When the hint says everything the predicate does, there is nothing left to evaluate.
        if specification.predicate.nameHintIsComplete { return candidates }
        return candidates.filter { compiled.evaluate(IndexedItem(index, $0)) }
    }

    /// Container, scope and hidden-item rules, without the predicate. Runs once per candidate:
    /// plain Booleans, no hashing.
    private func isInScope(_ flags: MetadataIndex.Flags, _ container: Int) -> Bool {
        isInScope(container: container, inDocuments: flags.contains(.documents), isHidden: flags.contains(.hidden))
    }

    /// The scope rules on their own, for an entry of the index or an item as it was (a snapshot):
    /// the container filter (nil: a container no longer indexed), documents or data, hidden files.
    func isInScope(container: Int?, inDocuments: Bool, isHidden: Bool) -> Bool {
        if let allowedContainers {
            guard let container, container >= 0, container < allowedContainers.count, allowedContainers[container] else { return false }
        }
        if !(inDocuments ? wantsDocuments : wantsData) { return false }
        return includesHidden || !isHidden
    }

    /// Computes the result set from scratch, in one go.
    func gather() -> ResultSet {
        var gathering = beginGathering()
        continueGathering(&gathering) { false }
        return finishGathering(gathering)
    }

    // MARK: - Gathering in slices

    /// Lists the candidates (cheap: no predicate is evaluated yet). A name hint that says all the
    /// predicate does finds the results outright.
    func beginGathering() -> Gathering {
        guard let hint = specification.predicate.nameHint else {
            return Gathering(candidates: index.allItems(inContainers: containerFilter))
        }
        let candidates = index.candidates(for: hint, accept: isInScope)
        if specification.predicate.nameHintIsComplete {
            return Gathering(found: candidates)
        }
        return Gathering(candidates: candidates)
    }

    /// Evaluates candidates until they are all done or `shouldPause` says so (asked after each).
    ///
    /// - Returns: Whether the gathering is complete.
    @discardableResult
    func continueGathering(_ gathering: inout Gathering, shouldPause: () -> Bool) -> Bool {
        while gathering.next < gathering.candidates.count {
            let id = gathering.candidates[gathering.next]
            gathering.next += 1
            if !gathering.settled.contains(id) && matches(id) { gathering.insertFound(id) }
            if shouldPause() { break }
        }
        return gathering.isComplete
    }

    /// Folds a batch applied between two slices into the gathering: each touched item is decided
    /// now, against the index as it is, and the walk will skip it.
    func noteDuringGathering(_ gathering: inout Gathering, _ changes: ChangeSet) {
        if let containerFilter, changes.containers.isDisjoint(with: containerFilter) { return }
        for change in changes.changes.values {
            gathering.settled.insert(change.id)
            gathering.removeFound(change.id)
            if change.kind != .removed && matches(change.id) { gathering.insertFound(change.id) }
        }
    }

    /// Sorts what was found and makes it the query's result set.
    ///
    /// - Parameter buildingMembers: false leaves ``members`` for ``buildMembers()``.
    func finishGathering(_ gathering: Gathering, buildingMembers: Bool = true) -> ResultSet {
        let found = buildOrder(gathering)
        let table = PathTable(found, index: index)
        let positions = sortedPositions(found, table)
        order = positions.map { found[$0] }
        members = []
        membersBuilt = false
        if buildingMembers { buildMembers() }
        return ResultSet(found, table: table, positions: positions, attributes: specification.attributes, index: index)
    }

    /// The order a gathering's found items are built into paths in. As the name index listed
    /// them when that is all there is and the listing keeps each directory's entries together:
    /// a directory's names then come in name order, which for most names is their byte order,
    /// and the path sort finds each directory already in order. Otherwise in id order, not the
    /// set's: entries listed together (one directory's) have neighbouring ids, so the paths are
    /// built reading the index in order, one directory after another
    /// (``PathTable/keepsDirectoriesTogether(_:index:)``).
    func buildOrder(_ gathering: Gathering) -> [ItemID] {
        gathering.foundAsListed.flatMap { PathTable.keepsDirectoriesTogether($0, index: index) ? $0 : nil }
            ?? gathering.foundInIDOrder(below: index.names.count)
    }

    /// The current result set, in result order.
    var results: ResultSet {
        let table = PathTable(order, index: index)
        return ResultSet(order, table: table, positions: Array(order.indices), attributes: specification.attributes, index: index)
    }

    var count: Int { order.count }

    func result(_ id: ItemID) -> ResultItem {
        ResultItem(IndexedItem(index, id), identity: index.identity(id), attributes: specification.attributes)
    }

    /// The positions of `ids` (whose paths `table` holds) in result order.
    private func sortedPositions(_ ids: [ItemID], _ table: PathTable) -> [Int] {
        if specification.sort.isEmpty { return table.sortedPositions() }
        // Each item's sort values read once, not once per comparison.
        let values = ids.map(sortValues)
        return table.sortedPositions { self.compareSortValues(values[$0], values[$1]) }
    }

    private func sortValues(_ id: ItemID) -> [Value?] {
        let item = IndexedItem(index, id)
        return specification.sort.map { item.value(of: $0.attribute) }
    }

    /// The sort keys' order (as `MetadataSortDescriptor.areInIncreasingOrder`), without the path.
    private func compareSortValues(_ a: [Value?], _ b: [Value?]) -> Int {
        for (i, descriptor) in specification.sort.enumerated() {
            let c = MetadataSortDescriptor.order(a[i], b[i])
            if c != 0 { return descriptor.ascending ? c : -c }
        }
        return 0
    }

    /// Applies one change set; returns what this query's subscribers must be told. `shared`:
    /// the items the other queries of the same delivery made, to take rather than make again.
    func apply(_ changes: ChangeSet, sharing shared: SharedResultItems = SharedResultItems(forQueries: 1)) -> QueryDelta {
        assert(membersBuilt, "a query's members are built before the index changes")
        if let containerFilter, changes.containers.isDisjoint(with: containerFilter) { return QueryDelta() }
        var delta = QueryDelta()
        var leaving = Set<ItemID>()
        var entering: [ItemID] = []
        for change in changes.changes.values {
            let id = change.id
            let wasMember: Bool
            switch change.kind {
            case .inserted: wasMember = false
            case .updated, .removed:
                wasMember = change.before.map { members.contains($0.identity) } ?? false
            }
            let isMember = change.kind != .removed && matches(id)
            switch (wasMember, isMember) {
            case (false, false):
                continue
            case (false, true):
                entering.append(id)
                delta.added.append(shared.current(id, attributes: specification.attributes) { result(id) })
            case (true, false):
                leaving.insert(id)
                if let before = change.before {
                    delta.removed.append(shared.before(id, attributes: specification.attributes) {
                        ResultItem(before, identity: before.identity, attributes: specification.attributes)
                    })
                    members.remove(before.identity)
                }
            case (true, true):
                guard let before = change.before else { continue }
                let now = IndexedItem(index, id)
                let visibleChange = change.oldPath != nil
                    || visibleAttributes.contains { before.value(of: $0) != now.value(of: $0) }
                if visibleChange {
                    delta.changed.append(shared.current(id, attributes: specification.attributes, oldPath: change.oldPath) {
                        ResultItem(now, identity: now.identity, attributes: specification.attributes, oldPath: change.oldPath)
                    })
                    // Its sort position may have moved.
                    leaving.insert(id)
                    entering.append(id)
                }
            }
        }
        if !leaving.isEmpty {
            var kept = 0
            for i in order.indices where !leaving.contains(order[i]) {
                order[kept] = order[i]
                kept += 1
            }
            order.removeSubrange(kept...)
        }
        for id in entering {
            members.insert(index.identity(id))
            insertSorted(id)
        }
        return delta
    }

    /// Finds the new member's place by binary search, reading the keys of the members it
    /// passes from the index. A member in the new one's directory is placed by the two names
    /// alone (as a burst's new files usually are); a path is built only for the others.
    private func insertSorted(_ id: ItemID) {
        let newValues = specification.sort.isEmpty ? [] : sortValues(id)
        var newPath: [UInt8]? = nil
        var memberPath: [UInt8] = []
        var low = 0, high = order.count
        while low < high {
            let mid = (low + high) / 2
            if precedes(order[mid], id, newValues: newValues, newPath: &newPath, scratch: &memberPath) { low = mid + 1 } else { high = mid }
        }
        order.insert(id, at: low)
    }

    /// Whether member `member` sorts before the new item `id` (its sort values given, its path
    /// built on first need).
    private func precedes(_ member: ItemID, _ id: ItemID, newValues: [Value?], newPath: inout [UInt8]?,
                          scratch memberPath: inout [UInt8]) -> Bool {
        if !specification.sort.isEmpty {
            let c = compareSortValues(sortValues(member), newValues)
            if c != 0 { return c < 0 }
        }
        if let c = index.comparePathsOfSiblings(member, id) { return c < 0 }
        if newPath == nil {
            var path: [UInt8] = []
            index.appendPath(of: id, to: &path)
            newPath = path
        }
        memberPath.removeAll(keepingCapacity: true)
        index.appendPath(of: member, to: &memberPath)
        return memberPath.withUnsafeBufferPointer { memberBytes in newPath!.withUnsafeBufferPointer { ByteOrder.compare(memberBytes, $0) < 0 } }
    }
}
