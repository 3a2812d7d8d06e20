public import UbiquityIndex
import UbiquityWatch

/// What a test compares: one entry of the index or of a crawl.
public struct EntrySummary: Hashable, Sendable, CustomStringConvertible {
    public var kind: FileStat.Kind
    public var size: Int64
    public var modified: Int64
    public var mode: UInt32
    public var inode: UInt64
    public var created: Int64

    public init(_ stat: FileStat) {
        kind = stat.kind
        size = stat.size
        modified = stat.modified
        mode = stat.mode
        inode = stat.inode
        created = stat.created
    }

    public var description: String { "\(kind) size=\(size) mtime=\(modified) mode=\(String(mode, radix: 8)) ino=\(inode)" }
}

/// Relative path (its bytes: two canonically equivalent paths are two entries, ``ExactName``) →
/// summary, for every entry of a crawl.
public func crawlSnapshot(root: String) throws -> [ExactName: EntrySummary] {
    let listing = try Crawler().crawl(root: root).listing
    var paths: [String] = []
    var result: [ExactName: EntrySummary] = [:]
    for entry in listing.entries {
        let path = entry.parent < 0 ? entry.name : paths[Int(entry.parent)] + "/" + entry.name
        paths.append(path)
        result[ExactName(path)] = EntrySummary(entry.stat)
    }
    return result
}

/// Relative path → summary, for every entry the index holds below a container root.
public func indexSnapshot(_ index: MetadataIndex, container: Int) -> [ExactName: EntrySummary] {
    guard let root = index.lookup(container: container, []) else { return [:] }
    var result: [ExactName: EntrySummary] = [:]
    var stack: [(ItemID, String)] = [(root, "")]
    while let (id, prefix) = stack.popLast() {
        for (name, child) in index.childEntries(of: id) ?? [] {
            let path = prefix.isEmpty ? name : prefix + "/" + name
            result[ExactName(path)] = EntrySummary(index.fileStat(of: child))
            stack.append((child, path))
        }
    }
    return result
}

/// Lines describing how two snapshots differ; empty when equal.
public func difference(index: [ExactName: EntrySummary], crawl: [ExactName: EntrySummary]) -> [String] {
    var lines: [String] = []
    for path in Set(index.keys).union(crawl.keys).sorted(by: { $0.string.utf8.lexicographicallyPrecedes($1.string.utf8) }) {
        switch (index[path], crawl[path]) {
        case (nil, let disk?): lines.append("missing from index: \(path) (\(disk))")
        case (let indexed?, nil): lines.append("stale in index: \(path) (\(indexed))")
        case (let indexed?, let disk?) where indexed != disk: lines.append("differs: \(path) index \(indexed) disk \(disk)")
        default: break
        }
    }
    return lines
}

/// Relative paths of a listing's entries, in listing order.
public func listingPaths(_ listing: CrawlListing) -> [String] {
    var paths: [String] = []
    for entry in listing.entries {
        paths.append(entry.parent < 0 ? entry.name : paths[Int(entry.parent)] + "/" + entry.name)
    }
    return paths
}
