import UbiquityIndex

/// Which directory each inotify watch descriptor stands for, as a tree.
///
/// A renamed directory keeps its watch descriptor, so paths are not stored: each node names its
/// parent and its own name, and a rename re-roots the whole subtree by changing one node.
///
/// - Complexity: path of a descriptor O(depth); rename O(1); removing a subtree O(its size).
struct WatchTree {
    struct Directory {
        var container: Int
        /// nil for a container root.
        var parent: Int32?
        var name: String
        /// The directory's inode when watched: the tag pass checks it is reading this directory.
        var inode: UInt64 = 0
        /// Keyed by the names' bytes: two names equal as `String`s (canonically equivalent) are
        /// two directories here, as they are to the kernel (``ExactName``).
        var children: [ExactName: Int32] = [:]
    }

    private(set) var directories: [Int32: Directory] = [:]
    /// Container slot → the watch descriptor of its root.
    private(set) var roots: [Int: Int32] = [:]

    /// Watches in use.
    var count: Int { directories.count }

    func directory(_ wd: Int32) -> Directory? { directories[wd] }

    /// Components below the container root; `[]` for a root.
    func path(of wd: Int32) -> [String] {
        var parts: [String] = []
        var current = wd
        // Bounded by the node count: a bookkeeping bug must not hang the reader thread.
        while parts.count <= directories.count, let node = directories[current], let parent = node.parent {
            parts.append(node.name)
            current = parent
        }
        return parts.reversed()
    }

    func lookup(container: Int, _ path: [String]) -> Int32? {
        guard var wd = roots[container] else { return nil }
        for name in path {
            guard let next = directories[wd]?.children[ExactName(name)] else { return nil }
            wd = next
        }
        return wd
    }

    func child(of wd: Int32, named name: String) -> Int32? { directories[wd]?.children[ExactName(name)] }

    /// Places `wd` at a position (a new watch, a watch seen again by a rescan, or a directory found
    /// at a new place). A node seen again forgets its children: the rescan links the ones still there.
    ///
    /// - Parameters:
    ///   - parent: The parent's descriptor, nil to make `wd` the root of `container`.
    /// - Returns: Descriptors that lost their place (old children, a different watch that was at
    ///   this position). The caller drops those a rescan does not link again.
    mutating func link(_ wd: Int32, container: Int, parent: Int32?, name: String, inode: UInt64 = 0) -> [Int32] {
        var displaced: [Int32] = []
        if let old = directories[wd] {
            detachFromParent(wd, old)
            displaced.append(contentsOf: old.children.values)
        }
        if let parent {
            let key = ExactName(name)
            if let previous = directories[parent]?.children[key], previous != wd { displaced.append(previous) }
            directories[parent]?.children[key] = wd
        } else {
            if let previous = roots[container], previous != wd { displaced.append(previous) }
            roots[container] = wd
        }
        directories[wd] = Directory(container: container, parent: parent, name: name, inode: inode)
        return displaced
    }

    /// A paired rename inside one container: the node and its subtree move, descriptors unchanged.
    mutating func move(_ wd: Int32, to parent: Int32, name: String) -> [Int32] {
        guard let old = directories[wd] else { return [] }
        detachFromParent(wd, old)
        var displaced: [Int32] = []
        let key = ExactName(name)
        if let previous = directories[parent]?.children[key], previous != wd { displaced.append(previous) }
        directories[parent]?.children[key] = wd
        directories[wd]?.parent = parent
        directories[wd]?.name = name
        return displaced
    }

    /// Forgets `wd` and every descendant.
    ///
    /// - Returns: The descriptors forgotten (for `inotify_rm_watch`).
    @discardableResult
    mutating func remove(subtree wd: Int32) -> [Int32] {
        guard let node = directories[wd] else { return [] }
        detachFromParent(wd, node)
        var removed: [Int32] = []
        var stack = [wd]
        while let next = stack.popLast() {
            guard let victim = directories.removeValue(forKey: next) else { continue }
            removed.append(next)
            stack.append(contentsOf: victim.children.values)
        }
        return removed
    }

    /// Every descriptor of a container.
    func descriptors(ofContainer container: Int) -> [Int32] {
        directories.compactMap { $0.value.container == container ? $0.key : nil }
    }

    /// `wd` and every descendant.
    func subtree(_ wd: Int32) -> [Int32] {
        var result: [Int32] = []
        var stack = [wd]
        while let next = stack.popLast() {
            guard let node = directories[next] else { continue }
            result.append(next)
            stack.append(contentsOf: node.children.values)
        }
        return result
    }

    private mutating func detachFromParent(_ wd: Int32, _ node: Directory) {
        if let parent = node.parent {
            let key = ExactName(node.name)
            if directories[parent]?.children[key] == wd { directories[parent]?.children[key] = nil }
        } else if roots[node.container] == wd {
            roots[node.container] = nil
        }
    }
}
