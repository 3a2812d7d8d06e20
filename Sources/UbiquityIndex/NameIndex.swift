import UbiquityPredicate

/// Names → ids, for exact and prefix lookups without scanning every item.
///
/// Names are grouped in buckets by their first three lowercased characters, so a prefix
/// lookup visits only names that share them; exact lookups are one hash probe.
final class NameIndex {
    static let bucketLength = 3

    private var idsByName: [String: [ItemID]] = [:]
    private var namesByBucket: [String: Set<String>] = [:]

    static func bucket(_ name: String) -> String { String(name.lowercased().prefix(bucketLength)) }

    func insert(_ name: String, _ id: ItemID) {
        if idsByName[name, default: []].isEmpty { namesByBucket[NameIndex.bucket(name), default: []].insert(name) }
        idsByName[name, default: []].append(id)
    }

    func remove(_ name: String, _ id: ItemID) {
        guard var ids = idsByName[name], let i = ids.firstIndex(of: id) else { return }
        ids.swapAt(i, ids.count - 1)
        ids.removeLast()
        if ids.isEmpty {
            idsByName[name] = nil
            let key = NameIndex.bucket(name)
            namesByBucket[key]?.remove(name)
            if namesByBucket[key]?.isEmpty == true { namesByBucket[key] = nil }
        } else {
            idsByName[name] = ids
        }
    }

    /// Every id whose name satisfies at least one constraint of the hint.
    func candidates(_ hint: NameHint) -> [ItemID] {
        var result: [ItemID] = []
        var seen = Set<String>()
        for constraint in hint.constraints {
            let text: String, isPrefix: Bool
            switch constraint {
            case .exact(let s): (text, isPrefix) = (s, false)
            case .prefix(let s): (text, isPrefix) = (s, true)
            }
            if !hint.caseInsensitive && !isPrefix {
                if seen.insert(text).inserted { result.append(contentsOf: idsByName[text] ?? []) }
                continue
            }
            let folded = hint.caseInsensitive ? text.lowercased() : text
            func accepts(_ name: String) -> Bool {
                let candidate = hint.caseInsensitive ? name.lowercased() : name
                return isPrefix ? candidate.hasPrefix(folded) : candidate == folded
            }
            let key = NameIndex.bucket(text)
            let names: [String]
            if key.count == NameIndex.bucketLength {
                names = Array(namesByBucket[key] ?? [])
            } else {
                names = namesByBucket.filter { $0.key.hasPrefix(key) }.flatMap(\.value)
            }
            for name in names where accepts(name) && seen.insert(name).inserted {
                result.append(contentsOf: idsByName[name] ?? [])
            }
        }
        return result
    }
}
