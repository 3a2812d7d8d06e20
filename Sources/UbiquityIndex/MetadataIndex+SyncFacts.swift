/// The sync engine's facts in the index: an item's sync attributes, and the items whose attributes
/// a new set of facts changes.
extension MetadataIndex {
    /// The sync attributes of `id`, from its container's facts.
    func syncValues(_ id: ItemID) -> SyncAttributeValues {
        var values: SyncAttributeValues
        if let facts = syncFacts[container(of: id)] {
            values = facts.known ? facts.values(for: ExactName(relativePath(of: id)), modified: modified(id)) : .unknown
        } else {
            values = .singleMachine
        }
        if stat(id).evicted {
            // Evicted: not here, whatever else is known; downloading once the engine needs it
            // (with the engine's byte progress, when it reports one).
            values.downloadingStatus = .notDownloaded
            if values.isDownloading != true, values.percentDownloaded != nil { values.percentDownloaded = 0 }
        }
        return values
    }

    /// When `id` last changed (a package: the newest entry inside), in nanoseconds since 1970.
    func modified(_ id: ItemID) -> Int64 {
        let own = stat(id).modified
        return flags(id).contains(.package) ? max(own, packageTotals(id).modified) : own
    }

    /// `id`'s path below its container's root, `/`-separated (as the sync engine names it).
    func relativePath(of id: ItemID) -> String {
        let root = rootID(ofContainer: container(of: id))
        var names: [String] = []
        var current = id
        while current != root, isLive(current) {
            names.append(name(current))
            let up = parent(current)
            if up == current { break }
            current = up
        }
        return names.reversed().joined(separator: "/")
    }

    /// Every item of container `index` (depth first from its root).
    func items(ofContainer index: Int) -> [ItemID] {
        guard let root = rootID(ofContainer: index) else { return [] }
        var out: [ItemID] = []
        var stack: [ItemID] = [root]
        while let id = stack.popLast() {
            for child in childEntries(of: id) ?? [] {
                out.append(child.id)
                stack.append(child.id)
            }
        }
        return out
    }

    /// The items of container `index` whose sync attributes may change when its facts become
    /// `facts`: those at the changed paths and their ancestors, or all of them.
    func itemsAffected(ofContainer index: Int, by facts: ContainerSyncFacts?) -> [ItemID] {
        let old = syncFacts[index]
        guard let old, let facts, let paths = facts.changedPaths(comparedTo: old) else { return items(ofContainer: index) }
        var ids: Set<ItemID> = []
        if old.readAt != facts.readAt {
            let since = min(old.readAt, facts.readAt)
            for id in items(ofContainer: index) where modified(id) >= since { ids.insert(id) }
        }
        for path in paths {
            // Split as bytes: a grapheme cluster may swallow a '/' when split as characters.
            var components = Array(path.string.utf8).split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
            while !components.isEmpty {
                if let id = lookup(container: index, components) { ids.insert(id) }
                components.removeLast()
            }
        }
        return Array(ids)
    }
}
