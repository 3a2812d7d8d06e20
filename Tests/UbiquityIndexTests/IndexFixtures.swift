@testable import UbiquityIndex

/// Builds FileSystemChange batches for a container without touching the disk (the real
/// watcher is tested in UbiquityWatchTests against real inotify).
struct TreeBuilder {
    let container: ContainerID
    var clock: Int64 = 1_000_000_000

    init(_ id: String = "com.example.test") {
        container = try! ContainerID(id)
    }

    static let root = "/containers/com.example.test"

    var descriptor: ContainerDescriptor {
        ContainerDescriptor(id: container, root: TreeBuilder.root, packageTypes: ["gro": "com.example.grocery.package"])
    }

    mutating func tick() -> Int64 {
        clock += 1_000_000_000
        return clock
    }

    mutating func file(_ size: Int64 = 1) -> FileStat {
        let t = tick()
        return FileStat(kind: .regular, size: size, modified: t, created: t, changed: t)
    }

    mutating func directory() -> FileStat {
        let t = tick()
        return FileStat(kind: .directory, size: 4096, modified: t, created: t, changed: t, mode: 0o755)
    }

    /// A listing of the container root from "a/b/c" style paths; names ending in "/" are directories.
    mutating func listing(_ paths: [String]) -> FileSystemChange {
        var entries: [CrawlListing.Entry] = []
        var positions: [ExactName: Int32] = ["": -1]     // bytes: `café` in both forms is two entries
        for path in paths {
            let isDirectory = path.hasSuffix("/")
            let parts = path.split(separator: "/").map(String.init)
            for depth in 0..<parts.count {
                let key = ExactName(parts[0...depth].joined(separator: "/"))
                if positions[key] != nil { continue }
                let parentKey = ExactName(parts[0..<depth].joined(separator: "/"))
                let last = depth == parts.count - 1
                let stat = last && !isDirectory ? file(Int64(key.string.count)) : directory()
                entries.append(CrawlListing.Entry(parent: positions[parentKey]!, name: parts[depth], stat: stat))
                positions[key] = Int32(entries.count - 1)
            }
        }
        return .listing(container, [], CrawlListing(root: directory(), entries: entries))
    }

    func components(_ path: String) -> [String] { path.split(separator: "/").map(String.init) }
}

/// Everything the index holds for a container, as (relative path, kind, size) triples.
func contents(_ index: MetadataIndex, container: Int = 0) -> Set<String> {
    var result = Set<String>()
    guard let root = index.rootID(ofContainer: container) else { return [] }
    var stack: [ItemID] = [root]
    while let id = stack.popLast() {
        let entry = index.entry(id)
        if id != root {
            result.insert("\(index.relativeComponents(of: id).joined(separator: "/")) \(entry.stat.kind) \(entry.stat.size)")
        }
        stack.append(contentsOf: entry.children ?? [])
    }
    return result
}
