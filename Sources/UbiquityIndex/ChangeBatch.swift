/// Changes plus what the source wants subscribers to know.
public struct ChangeBatch: Sendable {
    public var sequence: UInt64
    public var changes: [FileSystemChange]
    public var notices: [ChangeNotice]

    public init(sequence: UInt64, changes: [FileSystemChange] = [], notices: [ChangeNotice] = []) {
        self.sequence = sequence
        self.changes = changes
        self.notices = notices
    }
}

extension ChangeBatch {
    /// Entries of the listings in this batch (their parts not counted).
    public var listedEntries: Int {
        changes.reduce(0) { total, change in
            if case .listing(_, _, let listing) = change { return total + listing.entries.count }
            return total
        }
    }

    /// The containers in which this batch changes `folder` (an entry at the top of the
    /// container), something in it, or everything (a whole container's listing). A listing's
    /// parts are not counted: the listing that follows them is.
    public func containers(touching folder: String) -> Set<ContainerID> {
        func inside(_ path: [String]) -> Bool { path.isEmpty || path.first == folder }
        var touched: Set<ContainerID> = []
        for change in changes {
            switch change {
            case .stat(let c, let path, _), .remove(let c, let path), .listing(let c, let path, _), .tags(let c, let path, _, _):
                if inside(path) { touched.insert(c) }
            case .move(let c, let from, let to, _):
                if inside(from) || inside(to) { touched.insert(c) }
            case .listingPart:
                break
            }
        }
        return touched
    }
}
