import UbiquityPredicate

/// One observed change, in container-relative path components (`["Documents", "Item_1"]`).
/// The watcher produces these; the index applies them in order.
public enum FileSystemChange: Sendable {
    /// The entry exists with this status: created, written, chmod-ed, ...
    case stat(ContainerID, [String], FileStat)
    /// The entry and everything below it are gone.
    case remove(ContainerID, [String])
    /// A paired rename. The entry keeps its identity; an existing destination is replaced
    /// (an atomic save), keeping the destination's identity. `stat` is the moved entry's new status.
    case move(ContainerID, from: [String], to: [String], stat: FileStat?)
    /// The complete, authoritative content of a subtree (a crawl or rescan): entries not listed
    /// are removed, listed ones inserted or updated. A listing without a root removes the subtree.
    case listing(ContainerID, [String], CrawlListing)
}

/// A subtree as the crawler saw it: a flat list where each entry names its parent's position.
public struct CrawlListing: Sendable {
    public struct Entry: Sendable {
        /// Position of the parent in `entries`, or -1 for the listing's root.
        public var parent: Int32
        public var name: String
        public var stat: FileStat
        public init(parent: Int32, name: String, stat: FileStat) {
            self.parent = parent
            self.name = name
            self.stat = stat
        }
    }

    /// The status of the subtree's root; nil when it does not exist.
    public var root: FileStat?
    public var entries: [Entry]

    public init(root: FileStat?, entries: [Entry] = []) {
        self.root = root
        self.entries = entries
    }
}

/// What one batch did to the index, item by item (each item at most once).
public struct ChangeSet: Sendable {
    public enum Kind: Sendable, Hashable { case inserted, updated, removed }

    public struct Change: Sendable {
        public let id: ItemID
        public internal(set) var kind: Kind
        /// The item before the batch (updated and removed items).
        public internal(set) var before: ItemSnapshot?
        /// The path before the batch, when a rename changed it.
        public internal(set) var oldPath: String?
    }

    public internal(set) var changes: [ItemID: Change] = [:]
    /// Containers whose items changed, by index.
    public internal(set) var containers: Set<Int> = []

    public var isEmpty: Bool { changes.isEmpty }
    public var count: Int { changes.count }
}

extension MetadataIndex {
    /// Applies a batch and returns, for every item it touched, what happened to it.
    ///
    /// Coalescing: an item inserted and then removed in one batch does not appear; inserted then
    /// updated is inserted; updated then removed is removed. Changes inside a package are one
    /// `updated` of the package item.
    public func apply(_ batch: [FileSystemChange]) -> ChangeSet {
        var recorder = Recorder()
        for change in batch {
            switch change {
            case .stat(let container, let path, let stat):
                guard let c = containerIndex(container) else { continue }
                if path.isEmpty { _ = setRoot(container: c, stat: stat); continue }
                upsert(container: c, path, stat, &recorder)
            case .remove(let container, let path):
                guard let c = containerIndex(container) else { continue }
                if path.isEmpty { removeContainerContents(c, &recorder); continue }
                if let id = lookup(container: c, path) { removeSubtree(id, &recorder) }
            case .move(let container, let from, let to, let stat):
                guard let c = containerIndex(container) else { continue }
                move(container: c, from: from, to: to, stat: stat, &recorder)
            case .listing(let container, let path, let listing):
                guard let c = containerIndex(container) else { continue }
                applyListing(container: c, path, listing, &recorder)
            }
        }
        for package in recorder.dirtyPackages where isLive(package) { refreshPackage(package) }
        endBatch()
        return recorder.changeSet
    }

    // MARK: - Recording

    struct Recorder {
        var changeSet = ChangeSet()
        var dirtyPackages = Set<ItemID>()
    }

    /// The package item that an entry belongs to, if it is inside one.
    private func owningPackage(_ id: ItemID) -> ItemID? {
        var current = entry(id).parent
        while true {
            let e = entry(current)
            if e.flags.contains(.containerRoot) { return nil }
            if e.flags.contains(.package) { return current }
            current = e.parent
        }
    }

    /// Call BEFORE mutating an item, so its snapshot shows the old state.
    private func noteUpdate(_ id: ItemID, oldPath: String? = nil, _ recorder: inout Recorder) {
        let e = entry(id)
        if e.flags.contains(.containerRoot) { return }
        if e.flags.contains(.insidePackage) {
            if let package = owningPackage(id) { noteUpdate(package, recorder: &recorder) }
            return
        }
        recorder.changeSet.containers.insert(Int(e.container))
        if var existing = recorder.changeSet.changes[id] {
            if existing.oldPath == nil, let oldPath { existing.oldPath = oldPath }
            recorder.changeSet.changes[id] = existing
            return
        }
        recorder.changeSet.changes[id] = ChangeSet.Change(
            id: id, kind: .updated, before: IndexedItem(self, id).snapshot(), oldPath: oldPath)
    }

    private func noteUpdate(_ id: ItemID, recorder: inout Recorder) {
        noteUpdate(id, oldPath: nil, &recorder)
        if entry(id).flags.contains(.package) { recorder.dirtyPackages.insert(id) }
    }

    private func noteInsert(_ id: ItemID, _ recorder: inout Recorder) {
        let e = entry(id)
        if e.flags.contains(.insidePackage) {
            if let package = owningPackage(id) { noteUpdate(package, recorder: &recorder) }
            return
        }
        recorder.changeSet.containers.insert(Int(e.container))
        recorder.changeSet.changes[id] = ChangeSet.Change(id: id, kind: .inserted, before: nil, oldPath: nil)
        if e.flags.contains(.package) { recorder.dirtyPackages.insert(id) }
    }

    /// Call BEFORE releasing the entry.
    private func noteRemove(_ id: ItemID, _ recorder: inout Recorder) {
        let e = entry(id)
        if e.flags.contains(.containerRoot) { return }
        if e.flags.contains(.insidePackage) {
            if let package = owningPackage(id) { noteUpdate(package, recorder: &recorder) }
            return
        }
        recorder.changeSet.containers.insert(Int(e.container))
        if let existing = recorder.changeSet.changes[id] {
            if existing.kind == .inserted {
                recorder.changeSet.changes[id] = nil      // came and went within the batch
            } else {
                recorder.changeSet.changes[id]?.kind = .removed
            }
            return
        }
        recorder.changeSet.changes[id] = ChangeSet.Change(
            id: id, kind: .removed, before: IndexedItem(self, id).snapshot(), oldPath: nil)
    }

    // MARK: - Operations

    /// Flags an entry inherits from its parent and earns by its own name.
    private func flags(forChild name: String, of parent: ItemID, kind: FileStat.Kind, container: Int) -> Flags {
        let p = entry(parent)
        var flags: Flags = [.live]
        if p.flags.contains(.insidePackage) || p.flags.contains(.package) { flags.insert(.insidePackage) }
        if p.flags.contains(.hidden) || MetadataIndex.isHiddenName(name) { flags.insert(.hidden) }
        if p.flags.contains(.documents) || (p.flags.contains(.containerRoot) && name == "Documents") {
            flags.insert(.documents)
        }
        if kind == .directory, !flags.contains(.insidePackage), let ext = ContentTypes.pathExtension(name),
           containers[container].packageTypes[ext.lowercased()] != nil {
            flags.insert(.package)
        }
        return flags
    }

    /// Dotfiles and the usual temporary and backup names: never results unless asked for.
    public static func isHiddenName(_ name: String) -> Bool {
        guard let first = name.utf8.first else { return false }
        if first == UInt8(ascii: ".") { return true }
        if name.utf8.last == UInt8(ascii: "~") { return true }
        if first == UInt8(ascii: "#"), name.utf8.last == UInt8(ascii: "#"), name.utf8.count > 1 { return true }
        return false
    }

    private func insert(name: String, parent: ItemID, stat: FileStat, container: Int, _ recorder: inout Recorder) -> ItemID {
        let entry = Entry(name: name, parent: parent, container: UInt16(container),
                          flags: flags(forChild: name, of: parent, kind: stat.kind, container: container),
                          stat: stat, children: stat.kind == .directory ? [:] : nil)
        let id = allocate(entry)
        update(parent) { $0.children?[name] = id }
        names.insert(name, id)
        noteInsert(id, &recorder)
        return id
    }

    /// Creates or updates the entry at `path`; a missing parent means the change is ignored
    /// (the watcher rescans the parent when it appears).
    @discardableResult
    private func upsert(container: Int, _ path: [String], _ stat: FileStat, _ recorder: inout Recorder) -> ItemID? {
        guard let name = path.last, let parent = lookup(container: container, Array(path.dropLast())),
              entry(parent).children != nil else { return nil }
        if let existing = entry(parent).children?[name] {
            let old = entry(existing).stat
            if old.kind != stat.kind {
                removeSubtree(existing, &recorder)
                return insert(name: name, parent: parent, stat: stat, container: container, &recorder)
            }
            if old != stat {
                noteUpdate(existing, recorder: &recorder)
                update(existing) { $0.stat = stat }
            }
            return existing
        }
        return insert(name: name, parent: parent, stat: stat, container: container, &recorder)
    }

    private func removeSubtree(_ id: ItemID, _ recorder: inout Recorder) {
        let e = entry(id)
        if !e.flags.contains(.containerRoot) {
            update(e.parent) { $0.children?[e.name] = nil }
        }
        var stack = [id]
        var order: [ItemID] = []
        while let next = stack.popLast() {
            order.append(next)
            if let children = entry(next).children { stack.append(contentsOf: children.values) }
        }
        for victim in order {
            noteRemove(victim, &recorder)
        }
        for victim in order.reversed() where !entry(victim).flags.contains(.containerRoot) {
            release(victim)
        }
    }

    private func removeContainerContents(_ container: Int, _ recorder: inout Recorder) {
        guard let root = rootID(ofContainer: container) else { return }
        for child in entry(root).children?.values.map({ $0 }) ?? [] { removeSubtree(child, &recorder) }
        clearRoot(container: container)
        release(root)
    }

    private func move(container: Int, from: [String], to: [String], stat: FileStat?, _ recorder: inout Recorder) {
        guard let source = lookup(container: container, from), !from.isEmpty else {
            if let stat { upsert(container: container, to, stat, &recorder) }
            return
        }
        guard let newName = to.last, let newParent = lookup(container: container, Array(to.dropLast())),
              entry(newParent).children != nil else {
            removeSubtree(source, &recorder)      // moved somewhere we do not index
            return
        }
        let sourceEntry = entry(source)
        let newStat = stat ?? sourceEntry.stat
        if let target = entry(newParent).children?[newName], target != source {
            // Replaced an existing entry: an atomic save keeps the target's identity.
            let targetEntry = entry(target)
            if targetEntry.stat.kind == newStat.kind && newStat.kind != .directory {
                noteUpdate(target, recorder: &recorder)
                update(target) { $0.stat = newStat }
                removeSubtree(source, &recorder)
                return
            }
            removeSubtree(target, &recorder)
        }
        // A rename: the entry and its subtree keep their ids; paths and inherited flags change.
        var subtree: [ItemID] = []
        var stack = [source]
        while let next = stack.popLast() {
            subtree.append(next)
            if let children = entry(next).children { stack.append(contentsOf: children.values) }
        }
        for id in subtree { noteUpdate(id, oldPath: path(of: id), &recorder) }
        if let oldPackage = owningPackage(source) { recorder.dirtyPackages.insert(oldPackage) }
        update(sourceEntry.parent) { $0.children?[sourceEntry.name] = nil }
        names.remove(sourceEntry.name, source)
        update(source) {
            $0.name = newName
            $0.parent = newParent
            $0.stat = newStat
        }
        update(newParent) { $0.children?[newName] = source }
        names.insert(newName, source)
        // Re-derive inherited flags top-down (hidden, documents, package membership may change).
        for id in subtree {
            let e = entry(id)
            let derived = flags(forChild: e.name, of: e.parent, kind: e.stat.kind, container: container)
            if derived != e.flags {
                let wasItem = !e.flags.contains(.insidePackage)
                update(id) { $0.flags = derived }
                if wasItem && derived.contains(.insidePackage) {
                    // Moved into a package: no longer an item of its own.
                    if recorder.changeSet.changes[id]?.kind == .inserted { recorder.changeSet.changes[id] = nil }
                    else { recorder.changeSet.changes[id]?.kind = .removed }
                } else if !wasItem && !derived.contains(.insidePackage) {
                    recorder.changeSet.changes[id] = ChangeSet.Change(id: id, kind: .inserted, before: nil, oldPath: nil)
                }
            }
        }
        if let newPackage = owningPackage(source) { noteUpdate(newPackage, recorder: &recorder) }
        if entry(source).flags.contains(.package) { recorder.dirtyPackages.insert(source) }
    }

    private func applyListing(container: Int, _ path: [String], _ listing: CrawlListing, _ recorder: inout Recorder) {
        guard let rootStat = listing.root else {
            if path.isEmpty { removeContainerContents(container, &recorder) }
            else if let id = lookup(container: container, path) { removeSubtree(id, &recorder) }
            return
        }
        let rootID: ItemID
        if path.isEmpty {
            rootID = setRoot(container: container, stat: rootStat)
        } else {
            guard let id = upsert(container: container, path, rootStat, &recorder) else { return }
            rootID = id
        }
        // Children of each listing position (-1 = the root).
        var childrenOf: [Int32: [Int]] = [:]
        for (i, e) in listing.entries.enumerated() { childrenOf[e.parent, default: []].append(i) }
        var stack: [(ItemID, Int32)] = [(rootID, -1)]
        while let (directory, position) = stack.popLast() {
            guard entry(directory).children != nil else { continue }
            let listed = childrenOf[position] ?? []
            var listedNames = Set<String>()
            listedNames.reserveCapacity(listed.count)
            for i in listed { listedNames.insert(listing.entries[i].name) }
            for (name, child) in entry(directory).children ?? [:] where !listedNames.contains(name) {
                removeSubtree(child, &recorder)
            }
            for i in listed {
                let e = listing.entries[i]
                let id: ItemID
                if let existing = entry(directory).children?[e.name] {
                    let old = entry(existing).stat
                    if old.kind != e.stat.kind {
                        removeSubtree(existing, &recorder)
                        id = insert(name: e.name, parent: directory, stat: e.stat, container: container, &recorder)
                    } else {
                        if old != e.stat {
                            noteUpdate(existing, recorder: &recorder)
                            update(existing) { $0.stat = e.stat }
                        }
                        id = existing
                    }
                } else {
                    id = insert(name: e.name, parent: directory, stat: e.stat, container: container, &recorder)
                }
                if e.stat.kind == .directory { stack.append((id, Int32(i))) }
            }
        }
    }

    /// Recomputes a package's size (sum of regular files inside) and newest modification.
    private func refreshPackage(_ id: ItemID) {
        var size: Int64 = 0
        var newest = entry(id).stat.modified
        var stack = Array(entry(id).children?.values ?? [:].values)
        while let next = stack.popLast() {
            let e = entry(next)
            if e.stat.kind == .regular { size += e.stat.size }
            newest = max(newest, e.stat.modified)
            if let children = e.children { stack.append(contentsOf: children.values) }
        }
        update(id) {
            $0.packageSize = size
            $0.packageModified = newest
        }
    }
}
