import UbiquityPredicate

/// The result items of one change set's delivery, each made once for every live query that
/// shows the same item with the same attributes: a new file that a thousand live queries match
/// has its path built and its values read once, not a thousand times.
///
/// Lives for one delivery, on the engine (``QueryEngine``), and is not shared beyond it: what it
/// holds is what the index says between two change sets. Items are values, so the queries share
/// their storage (the path's string, the values' dictionary), never each other's changes.
final class SharedResultItems {
    private struct Made {
        let attributes: [Attribute]
        let oldPath: String?
        let item: ResultItem
    }

    private var madeNow: [ItemID: [Made]] = [:]
    private var madeBefore: [ItemID: [Made]] = [:]
    /// False for a delivery to one query: nothing to share, so nothing is kept.
    private let remembering: Bool

    init(forQueries count: Int) {
        remembering = count > 1
    }

    /// Item `id` as the index holds it now, with `attributes` (and `oldPath`, on a rename).
    func current(_ id: ItemID, attributes: [Attribute], oldPath: String? = nil, make: () -> ResultItem) -> ResultItem {
        item(id, attributes, oldPath, in: &madeNow, make)
    }

    /// Item `id` as it was before the change set (a member leaving), with `attributes`.
    func before(_ id: ItemID, attributes: [Attribute], make: () -> ResultItem) -> ResultItem {
        item(id, attributes, nil, in: &madeBefore, make)
    }

    private func item(_ id: ItemID, _ attributes: [Attribute], _ oldPath: String?, in made: inout [ItemID: [Made]],
                      _ make: () -> ResultItem) -> ResultItem {
        guard remembering else { return make() }
        // A handful of attribute lists per item at most (queries mostly ask for the same ones):
        // a scan of them costs less than hashing the list.
        if let found = made[id]?.first(where: { $0.attributes == attributes && $0.oldPath == oldPath }) { return found.item }
        let item = make()
        made[id, default: []].append(Made(attributes: attributes, oldPath: oldPath, item: item))
        return item
    }
}
