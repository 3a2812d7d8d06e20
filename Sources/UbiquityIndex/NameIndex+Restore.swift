import CUbiquitySystem

/// The name index put back from its saved order (``SavedNameBucket``), checked in one pass instead
/// of sorted: at a million entries the sort was the longest piece of work of a restore's second
/// thread, while checking that each name follows the one before it is a comparison per name.
extension NameIndex {
    /// How many ids ahead the check asks for a name's bytes (and twice as far for its slot).
    static let restorePrefetchDistance = 8

    /// Takes `saved` as the index's buckets when it is exactly what ``build(_:names:)`` of `named`
    /// makes: every id of `named` (each below `slotCount`) once, each in the bucket its name
    /// falls in, each bucket in (name, id) order, no key twice. Otherwise nothing is taken and the
    /// caller builds the index from the names: a saved order that does not hold (a snapshot taken
    /// while names were still being filed, or a damaged file) costs the sort, never a wrong index.
    /// - Parameter stepAside: looked at between stretches of the check.
    /// - Returns: whether the saved order was taken. The index must be empty.
    func restore(_ saved: [SavedNameBucket], named: [ItemID], slotCount: Int, names: NameColumn,
                 stepAside: StepAside = .never) -> Bool {
        precondition(isEmpty, "restore into an empty name index")
        // Which slots are still to be met: each named one once.
        var expected = [Bool](repeating: false, count: slotCount)
        for id in named where Int(id) < slotCount { expected[Int(id)] = true }
        var met = 0
        let holds = names.withReader { reader -> Bool in
            for bucket in saved {
                // A key is what ``bucket(_:)`` makes of its names: of itself too (`abc`, not `ABC`).
                guard !bucket.ids.isEmpty, NameIndex.bucket(bucket.key) == bucket.key else { return false }
                var key = bucket.key
                let keyCode = key.withUTF8 { Self.asciiBucketCode($0) }
                var previous: ItemID?
                let ids = bucket.ids
                for (k, id) in ids.enumerated() {
                    stepAside.every(k)
                    // Ids in name order are all over the column: each name's slot is asked for
                    // 16 ids ahead, its bytes 8 ahead (reading the slot asked for before).
                    if k + 2 * Self.restorePrefetchDistance < ids.count {
                        let ahead = Int(ids[k + 2 * Self.restorePrefetchDistance])
                        if ahead < slotCount { ubq_prefetch(reader.address(ahead)) }
                    }
                    if k + Self.restorePrefetchDistance < ids.count {
                        let ahead = Int(ids[k + Self.restorePrefetchDistance])
                        if ahead < slotCount { ubq_prefetch(reader.bytesAddress(ahead)) }
                    }
                    guard Int(id) < slotCount, expected[Int(id)] else { return false }
                    expected[Int(id)] = false
                    let inBucket = reader.withUTF8(Int(id)) { name in
                        if let code = Self.asciiBucketCode(name) { return code == keyCode }
                        return NameIndex.bucket(utf8: name) == bucket.key
                    }
                    guard inBucket else { return false }
                    if let previous, !SortedIDs.precedes(previous, id, reader) { return false }
                    previous = id
                }
                met += bucket.ids.count
            }
            return true
        }
        guard holds, met == named.count else { return false }
        var restored: [String: SortedIDs] = [:]
        restored.reserveCapacity(saved.count)
        for bucket in saved {
            stepAside()
            var sorted = SortedIDs()
            sorted.insert(sorted: bucket.ids, names: names)
            guard restored.updateValue(sorted, forKey: bucket.key) == nil else { return false }
        }
        take(restored)
        return true
    }
}
