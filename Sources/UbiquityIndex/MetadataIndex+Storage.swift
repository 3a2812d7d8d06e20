/// `storage`: what a container's items take, counted from the index (no disk access).
extension MetadataIndex {
    /// Items and bytes per scope, evicted items with their last known sizes, the `largest`
    /// largest documents and, from the sync engine's facts, what each other device needs. Sizes are as queries report them (a package: the sum of
    /// its contents; a directory: 0), summed without trapping.
    func storage(ofContainer index: Int, largest count: Int) -> ContainerStorage {
        var storage = ContainerStorage()
        var top: [(size: Int64, id: ItemID)] = []
        for id in items(ofContainer: index) where isItem(id) {
            let item = IndexedItem(self, id)
            // An evicted item takes no space here (its placeholder has no data blocks).
            let size: Int64 = item.isPackage ? item.packageSize : (item.stat.kind == .directory || item.stat.evicted ? 0 : item.stat.size)
            if item.stat.evicted {
                storage.evictedItems += 1
                storage.evictedBytes = storage.evictedBytes.saturatingAdding(max(item.stat.size, 0))
            }
            switch item.scope {
            case .documents:
                storage.documentsItems += 1
                storage.documentsBytes = storage.documentsBytes.saturatingAdding(size)
                guard count > 0, size > 0 else { continue }
                if top.count < count || size > top[top.count - 1].size {
                    top.append((size, id))
                    top.sort { $0.size > $1.size }
                    if top.count > count { top.removeLast() }
                }
            case .data:
                storage.dataItems += 1
                storage.dataBytes = storage.dataBytes.saturatingAdding(size)
            }
        }
        storage.largest = top.map { ContainerStorage.Document(path: path(of: $0.id), size: $0.size) }
            .sorted { ($0.size, $1.path) > ($1.size, $0.path) }
        if let facts = syncFacts[index] {
            storage.syncKnown = facts.known
            if facts.known {
                storage.devices = facts.devices.map {
                    ContainerStorage.DeviceNeed(device: $0, connected: facts.connected.contains($0), needs: facts.remoteNeed[$0]?.count ?? 0)
                }
            }
        }
        return storage
    }
}
