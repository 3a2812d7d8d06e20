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

        func fits(_ attributes: [Attribute], _ oldPath: String?) -> Bool { self.attributes == attributes && self.oldPath == oldPath }
    }

    /// The first item made of each id (nearly always the only one: queries mostly ask for the same
    /// attributes), then any other, so that a delivery keeps one entry per item, not an array.
    private var firstNow: [ItemID: Made] = [:], otherNow: [ItemID: [Made]] = [:]
    private var firstBefore: [ItemID: Made] = [:], otherBefore: [ItemID: [Made]] = [:]
    /// False for a delivery to one query: nothing to share, so nothing is kept.
    private let remembering: Bool

    /// - Parameter count: How many queries the delivery applies the change set to.
    init(forQueries count: Int) {
        remembering = count > 1
    }

    /// Item `id` as the index holds it now, with `attributes` (and `oldPath`, on a rename).
    func current(_ id: ItemID, attributes: [Attribute], oldPath: String? = nil, make: () -> ResultItem) -> ResultItem {
        item(id, attributes, oldPath, &firstNow, &otherNow, make)
    }

    /// Item `id` as it was before the change set (a member leaving), with `attributes`.
    func before(_ id: ItemID, attributes: [Attribute], make: () -> ResultItem) -> ResultItem {
        item(id, attributes, nil, &firstBefore, &otherBefore, make)
    }

    private func item(_ id: ItemID, _ attributes: [Attribute], _ oldPath: String?, _ first: inout [ItemID: Made],
                      _ others: inout [ItemID: [Made]], _ make: () -> ResultItem) -> ResultItem {
        guard remembering else { return make() }
        guard let made = first[id] else {
            let item = make()
            first[id] = Made(attributes: attributes, oldPath: oldPath, item: item)
            return item
        }
        if made.fits(attributes, oldPath) { return made.item }
        if let found = others[id]?.first(where: { $0.fits(attributes, oldPath) }) { return found.item }
        let item = make()
        others[id, default: []].append(Made(attributes: attributes, oldPath: oldPath, item: item))
        return item
    }
}
