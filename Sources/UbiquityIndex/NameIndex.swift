import UbiquityPredicate

/// Names → ids, for exact and prefix lookups without scanning every item.
///
/// Exact lookups are one hash probe (`first`, plus `more` for the rare repeated names).
/// For prefixes, ids are grouped in buckets by the first three lowercased characters of their
/// name; a lookup visits one bucket and checks each name. Memory: one dictionary slot per
/// distinct name and 8 bytes per id (bucket slot + its position, for O(1) removal).
final class NameIndex {
    static let bucketLength = 3

    private var first: [String: ItemID] = [:]
    private var more: [String: [ItemID]] = [:]
    private var buckets: [String: [ItemID]] = [:]
    /// Position of each id in its bucket, indexed by id.
    private var positions: [UInt32] = []

    static func bucket(_ name: String) -> String {
        // ASCII fast path: no Unicode case mapping needed.
        var key = ""
        var count = 0
        for byte in name.utf8 {
            guard byte < 0x80 else { return String(name.lowercased().prefix(bucketLength)) }
            if count == bucketLength { break }
            key.unicodeScalars.append(Unicode.Scalar(byte >= 65 && byte <= 90 ? byte | 0x20 : byte))
            count += 1
        }
        return key
    }

    func insert(_ name: String, _ id: ItemID) {
        if first[name] == nil {
            first[name] = id
        } else {
            more[name, default: []].append(id)
        }
        let key = NameIndex.bucket(name)
        if positions.count <= Int(id) {
            positions.append(contentsOf: repeatElement(0, count: Int(id) + 1 - positions.count))
        }
        positions[Int(id)] = UInt32(buckets[key, default: []].count)
        buckets[key, default: []].append(id)
    }

    func remove(_ name: String, _ id: ItemID) {
        if first[name] == id {
            if var others = more[name], !others.isEmpty {
                first[name] = others.removeLast()
                more[name] = others.isEmpty ? nil : others
            } else {
                first[name] = nil
            }
        } else if var others = more[name], let i = others.firstIndex(of: id) {
            others.swapAt(i, others.count - 1)
            others.removeLast()
            more[name] = others.isEmpty ? nil : others
        } else {
            return
        }
        let key = NameIndex.bucket(name)
        guard var ids = buckets[key] else { return }
        buckets[key] = nil          // avoid copy-on-write while editing
        let position = Int(positions[Int(id)])
        if position < ids.count, ids[position] == id {
            let last = ids.removeLast()
            if last != id {
                ids[position] = last
                positions[Int(last)] = UInt32(position)
            }
        }
        if !ids.isEmpty { buckets[key] = ids }
    }

    /// Ids whose name may satisfy the constraint: exact hits, or the whole bucket of a prefix
    /// (the caller checks each name). `exhaustive` is false when the ids are already exact.
    func ids(for constraint: NameHint.Constraint, caseInsensitive: Bool) -> (ids: [ItemID], needsCheck: Bool) {
        switch constraint {
        case .exact(let text) where !caseInsensitive:
            return ([first[text]].compactMap { $0 } + (more[text] ?? []), false)
        case .exact(let text), .prefix(let text):
            let key = NameIndex.bucket(text)
            if key.count == NameIndex.bucketLength { return (buckets[key] ?? [], true) }
            return (buckets.filter { $0.key.hasPrefix(key) }.flatMap(\.value), true)
        }
    }
}

/// The name test of a hint: byte comparison for ASCII, Unicode-correct otherwise.
struct StringMatcherForHints {
    let text: String
    let bytes: [UInt8]
    let prefix: Bool
    let caseInsensitive: Bool
    let asciiText: Bool

    init(_ text: String, prefix: Bool, caseInsensitive: Bool) {
        self.text = text
        self.bytes = Array(text.utf8)
        self.prefix = prefix
        self.caseInsensitive = caseInsensitive
        self.asciiText = bytes.allSatisfy { $0 < 0x80 }
    }

    func accepts(_ name: String) -> Bool {
        if asciiText, let decided = name.utf8.withContiguousStorageIfAvailable({ decide($0) }), let decided {
            return decided
        }
        let candidate = caseInsensitive ? name.lowercased() : name
        return prefix ? candidate.hasPrefix(text) : candidate == text
    }

    /// Decides on bytes when every compared byte is ASCII; nil defers to the Unicode path.
    private func decide(_ s: UnsafeBufferPointer<UInt8>) -> Bool? {
        let n = bytes.count
        if s.count < n { return s.allSatisfy { $0 < 0x80 } ? false : nil }
        for i in 0..<n {
            let b = s[i]
            if b >= 0x80 { return nil }
            let folded = caseInsensitive && b >= 65 && b <= 90 ? b | 0x20 : b
            if folded != bytes[i] { return false }
        }
        if prefix { return s.count == n || s[n] < 0x80 ? true : nil }
        return s.count == n ? true : (s[n...].allSatisfy { $0 < 0x80 } ? false : nil)
    }
}
