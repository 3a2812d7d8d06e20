
/// The difference a query started `since` a clock answers with.
extension LiveQuery {
    /// What changed for this query between the states `then` (from ``ChangeHistory``: each item
    /// changed since, as it was) and its results now (call after gathering): `added` for items
    /// that match now and did not then, `removed` (as they were then) for the reverse, `changed`
    /// for items in both whose visible attributes or path differ. A slot that holds another item
    /// now than then counts as that item removed and this one added.
    func changes(since then: [ItemID: FrozenItem?]) -> QueryDelta {
        buildMembers()      // the index has not changed since the gathering finished
        var delta = QueryDelta()
        for (id, before) in then {
            let now: ItemIdentity? = index.isLive(id) && index.isItem(id) ? index.identity(id) : nil
            let isMember = now.map { members.contains($0) } ?? false
            let wasMember = before.map(wouldHaveMatched) ?? false
            if let before, wasMember, isMember, before.identity == now {
                let current = IndexedItem(index, id)
                let pathChanged = before.path != current.path
                guard pathChanged || visibleAttributes.contains(where: { before.value(of: $0) != current.value(of: $0) }) else { continue }
                delta.changed.append(ResultItem(current, identity: before.identity, attributes: specification.attributes,
                                                oldPath: pathChanged ? before.path : nil))
                continue
            }
            if let before, wasMember {
                delta.removed.append(ResultItem(before, identity: before.identity, attributes: specification.attributes))
            }
            if isMember { delta.added.append(result(id)) }
        }
        delta.added.sort(by: ResultItem.inPathOrder)
        delta.changed.sort(by: ResultItem.inPathOrder)
        delta.removed.sort(by: ResultItem.inPathOrder)
        return delta
    }

    /// Whether an item as it was (a snapshot) matched this query: the same scope rules and
    /// predicate as ``matches(_:)``.
    func wouldHaveMatched(_ item: FrozenItem) -> Bool {
        isInScope(container: index.containerIndex(item.containerID), inDocuments: item.scope == .documents, isHidden: item.isHidden)
            && compiled.evaluate(item)
    }
}
