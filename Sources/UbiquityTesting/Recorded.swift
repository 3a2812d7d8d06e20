public import UbiquityIndex

/// Everything a watcher emitted so far, as a predicate sees it.
public struct Recorded: Sendable {
    public var changes: [FileSystemChange]
    public var notices: [ChangeNotice]
    public var batches: [ChangeBatch]
    public var applied: UInt64
    public var finished: Bool
    /// Batch sequence → absolute paths of the items the index reported as inserted/updated/removed.
    public var touched: [UInt64: Set<String>] = [:]

    /// Paths (joined with `/`) of every change of the given shape, compared byte for byte
    /// (``ExactName``: canonically equivalent names are different entries).
    public func stats(_ path: String) -> [FileStat] {
        changes.compactMap { if case .stat(_, let p, let s) = $0, ExactName.sameBytes(p.joined(separator: "/"), path) { s } else { nil } }
    }
    public func hasStat(_ path: String, where condition: (FileStat) -> Bool = { _ in true }) -> Bool {
        stats(path).contains(where: condition)
    }
    public func hasRemove(_ path: String) -> Bool {
        changes.contains { if case .remove(_, let p) = $0 { ExactName.sameBytes(p.joined(separator: "/"), path) } else { false } }
    }
    public func hasMove(_ from: String, _ to: String) -> Bool {
        changes.contains {
            if case .move(_, let f, let t, _) = $0 { ExactName.sameBytes(f.joined(separator: "/"), from) && ExactName.sameBytes(t.joined(separator: "/"), to) } else { false }
        }
    }
    /// A `.listing` rooted at `path` whose entries include `entry` (relative to the listing's root).
    public func hasListing(_ path: String, containing entry: String? = nil) -> Bool {
        changes.contains {
            guard case .listing(_, let p, let listing) = $0, ExactName.sameBytes(p.joined(separator: "/"), path), listing.root != nil else { return false }
            guard let entry else { return true }
            return listingPaths(listing).contains { ExactName.sameBytes($0, entry) }
        }
    }
}
