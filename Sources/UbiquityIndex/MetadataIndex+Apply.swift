import Glibc

extension MetadataIndex {
    /// Applies a batch and returns, for every item it touched, what happened to it.
    ///
    /// Coalescing: an item inserted and then removed in one batch does not appear; inserted then
    /// updated is inserted; updated then removed is removed. Changes inside a package are one
    /// `updated` of the package item.
    ///
    /// - Parameter record: false skips building the change set (nobody is listening yet, e.g.
    ///   the first crawl before any query): much faster and lighter for a million items.
    @discardableResult
    public func apply(_ batch: [FileSystemChange], record: Bool = true) -> ChangeSet {
        var recorder = Recorder(enabled: record)
        for change in batch {
            if listingInParts != nil { keepOrEndParts(before: change) }
            switch change {
            case .stat(let container, let path, let stat):
                guard let c = containerIndex(container) else { continue }
                if path.isEmpty { _ = setRoot(container: c, stat: stat); continue }
                upsert(container: c, path, stat, &recorder)
            case .remove(let container, let path):
                guard let c = containerIndex(container) else { continue }
                if path.isEmpty { removeContainerContents(c, &recorder); continue }
                remove(container: c, path, &recorder)
            case .move(let container, let from, let to, let stat):
                guard let c = containerIndex(container) else { continue }
                move(container: c, from: from, to: to, stat: stat, &recorder)
            case .listing(let container, let path, let listing):
                guard let c = containerIndex(container) else { continue }
                if path.isEmpty, finishParts(container: c, listing, &recorder) { continue }
                reserve(listing.entries.count)
                applyListing(container: c, path, listing, &recorder)
            case .tags(let container, let path, let inode, let tags):
                guard let c = containerIndex(container), let directory = lookup(container: c, path),
                      stat(directory).inode == inode else { continue }
                applyTags(directory, tags, &recorder)
            case .listingPart(let container, let part):
                guard let c = containerIndex(container) else { continue }
                applyPart(container: c, part, &recorder)
            }
        }
        for package in recorder.dirtyPackages where isLive(package) { refreshPackage(package) }
        endBatch()
        return recorder.changeSet
    }

    // MARK: - Recording

    struct Recorder {
        let enabled: Bool
        var changeSet = ChangeSet()
        var dirtyPackages = Set<ItemID>()
    }

    /// The package item that an entry belongs to, if it is inside one.
    func owningPackage(_ id: ItemID) -> ItemID? {
        var current = parent(id)
        while true {
            let f = flags(current)
            if f.contains(.containerRoot) { return nil }
            if f.contains(.package) { return current }
            current = parent(current)
        }
    }

    /// Call BEFORE mutating an item, so its snapshot shows the old state.
    private func noteUpdate(_ id: ItemID, oldPath: String? = nil, _ recorder: inout Recorder) {
        let f = flags(id)
        if f.contains(.containerRoot) || f.contains(.syncEngine) || f.contains(.conflictCopy) { return }
        guard recordsItself(id, f, &recorder) else { return }
        if var existing = recorder.changeSet.changes[id] {
            if existing.oldPath == nil, let oldPath { existing.oldPath = oldPath }
            recorder.changeSet.changes[id] = existing
            return
        }
        recorder.changeSet.changes[id] = ChangeSet.Change(
            id: id, kind: .updated, before: IndexedItem(self, id).frozen(), oldPath: oldPath)
    }

    private func noteUpdate(_ id: ItemID, recorder: inout Recorder) {
        noteUpdate(id, oldPath: nil, &recorder)
    }

    private func noteInsert(_ id: ItemID, _ recorder: inout Recorder) {
        let f = flags(id)
        if f.contains(.syncEngine) || f.contains(.conflictCopy) { return }
        guard recordsItself(id, f, &recorder) else { return }
        recorder.changeSet.changes[id] = ChangeSet.Change(id: id, kind: .inserted, before: nil, oldPath: nil)
    }

    /// What noting an insert and an update share: a change inside a package is its package's
    /// update, a package is measured again; whether the change of `id` itself is recorded.
    private func recordsItself(_ id: ItemID, _ f: Flags, _ recorder: inout Recorder) -> Bool {
        if f.contains(.insidePackage) {
            if let package = owningPackage(id) { noteUpdate(package, recorder: &recorder) }
            return false
        }
        if f.contains(.package) { recorder.dirtyPackages.insert(id) }
        guard recorder.enabled else { return false }
        recorder.changeSet.containers.insert(container(of: id))
        return true
    }

    /// Call BEFORE releasing the entry.
    private func noteRemove(_ id: ItemID, _ recorder: inout Recorder) {
        let f = flags(id)
        if f.contains(.containerRoot) || f.contains(.syncEngine) || f.contains(.conflictCopy) { return }
        if f.contains(.insidePackage) {
            if let package = owningPackage(id) { noteUpdate(package, recorder: &recorder) }
            return
        }
        guard recorder.enabled else { return }
        recorder.changeSet.containers.insert(container(of: id))
        if let existing = recorder.changeSet.changes[id] {
            if existing.kind == .inserted {
                recorder.changeSet.changes[id] = nil      // came and went within the batch
            } else {
                recorder.changeSet.changes[id]?.kind = .removed
            }
            return
        }
        recorder.changeSet.changes[id] = ChangeSet.Change(
            id: id, kind: .removed, before: IndexedItem(self, id).frozen(), oldPath: nil)
    }

    // MARK: - Operations

    /// Flags a live entry inherits from its parent's flags `p`, whatever its name.
    static func inheritedFlags(from p: Flags) -> Flags {
        var flags: Flags = [.live]
        if p.contains(.insidePackage) || p.contains(.package) { flags.insert(.insidePackage) }
        if p.contains(.syncEngine) { flags.insert(.syncEngine) }
        if p.contains(.conflictCopy) { flags.insert(.conflictCopy) }
        if p.contains(.hidden) { flags.insert(.hidden) }
        if p.contains(.documents) { flags.insert(.documents) }
        return flags
    }

    /// Flags an entry inherits from its parent and earns by its own name.
    func flags(forChild name: String, of parent: ItemID, kind: FileStat.Kind, container: Int) -> Flags {
        let p = flags(parent)
        var flags = Self.inheritedFlags(from: p)
        if SyncEngineFiles.isOwn(name) { flags.insert(.syncEngine) }
        if ConflictCopyName.parse(name) != nil { flags.insert(.conflictCopy) }
        if MetadataIndex.isHiddenName(name) { flags.insert(.hidden) }
        if p.contains(.containerRoot) && name == "Documents" { flags.insert(.documents) }
        if kind == .directory, !flags.contains(.insidePackage), !containers[container].packageTypes.isEmpty,
           let ext = ContentTypes.pathExtension(name), containers[container].packageTypes[ext.lowercased()] != nil {
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

    /// - Parameter childHash: the name's ``ChildTable/hash(_:)-(UnsafeBufferPointer<UInt8>)``
    ///   when the caller has it (it looked the name up first), so the name is hashed once.
    private func insert(name: String, parent: ItemID, stat: FileStat, container: Int, childHash: Int? = nil,
                        _ recorder: inout Recorder) -> ItemID {
        let id = allocate(name: name, parent: parent, container: UInt16(container),
                          flags: flags(forChild: name, of: parent, kind: stat.kind, container: container), stat: stat)
        if let childHash { addChild(parent, id, hash: childHash) } else { addChild(parent, id) }
        indexName(name, id)
        noteInsert(id, &recorder)
        countConflictCopy(id, 1, &recorder)
        return id
    }

    /// Counts (or uncounts) a conflict copy for the item it is a version of — the sibling with
    /// the original name, or the package it is inside — and tells that item's subscribers.
    private func countConflictCopy(_ id: ItemID, _ delta: Int, _ recorder: inout Recorder) {
        guard let (key, original) = conflictCopyKey(id) else { return }
        if let original { noteUpdate(original, recorder: &recorder) }      // before: the snapshot shows the old state
        adjustConflictCopies(key, by: delta)
    }

    /// For a conflict copy (not one inside another): where it is counted, and the item it is a
    /// version of when that exists.
    func conflictCopyKey(_ id: ItemID) -> (ConflictKey, original: ItemID?)? {
        guard flags(id).contains(.conflictCopy), !flags(parent(id)).contains(.conflictCopy),
              let copy = ConflictCopyName.parse(name(id)) else { return nil }
        if flags(id).contains(.insidePackage), let package = owningPackage(id) {
            return (ConflictKey(parent: package, original: ""), package)
        }
        return (ConflictKey(parent: parent(id), original: ExactName(copy.original)), child(parent(id), copy.original))
    }

    /// Creates or updates the entry at `path`; a missing parent means the change is ignored
    /// (the watcher rescans the parent when it appears).
    @discardableResult
    private func upsert(container: Int, _ path: [String], _ stat: FileStat, _ recorder: inout Recorder) -> ItemID? {
        guard let name = path.last, let parent = lookup(container: container, Array(path.dropLast())),
              children(parent) != nil else { return nil }
        return upsert(name: name, in: parent, stat, container: container, &recorder)
    }

    func upsert(name listed: String, in parent: ItemID, _ listedStat: FileStat, container: Int,
                        _ recorder: inout Recorder) -> ItemID {
        var name = listed, stat = listedStat
        if listedStat.kind == .regular, let item = EvictedPlaceholderName.item(ofPlaceholder: listed) {
            // An evicted item's placeholder is filed under the item's name. The item's own file
            // wins: another file (another inode) under that name keeps the entry as it is; the
            // same inode is the item's file renamed to its placeholder (an eviction).
            if let existing = child(parent, item), !self.stat(existing).evicted, self.stat(existing).inode != listedStat.inode {
                return existing
            }
            name = item
            stat.evicted = true
        }
        // The name hashed once: to look it up, and to file a new child under it (a crawl's
        // entries are almost all new).
        var filed = name
        let (found, hash) = filed.withUTF8 { bytes in
            let hash = ChildTable.hash(bytes)
            return (child(parent, bytes, hash: hash), hash)
        }
        if let existing = found {
            let old = self.stat(existing)
            if old.kind != stat.kind {
                removeSubtree(existing, &recorder)
                return insert(name: name, parent: parent, stat: stat, container: container, &recorder)
            }
            let stat = Self.keepingTags(stat, of: old)
            if old != stat {
                noteUpdate(existing, recorder: &recorder)
                setStat(existing, stat)
            }
            return existing
        }
        return insert(name: name, parent: parent, stat: stat, container: container, childHash: hash, &recorder)
    }

    /// ``flags(forChild:of:kind:container:)`` from a name's bytes (valid UTF-8), with no `String`
    /// made of it, for the names no rule of their own looks at: their parent's inherited flags.
    /// Nil for any name a `String` must decide: a name starting with `.`, `~` or `#` or ending with
    /// `~` (hidden, a sync engine's, an evicted item's placeholder), one holding `conflict` (a
    /// conflict copy), a child of a container's root (`Documents`), a directory with a `.` after
    /// its first byte where packages are known (its extension may name one: without a `.`,
    /// ``ContentTypes/pathExtension(_:)`` finds none, so it is plain — every directory of most trees).
    /// Why: on the long shape (names of 60–200 bytes, most of them not ASCII) making each name a
    /// `String` — a second validation of its bytes and a heap block — was a fifth of the engine's
    /// time placing a crawl, and a third of restoring a saved index's flags.
    func plainFlags(forChild name: UnsafeBufferPointer<UInt8>, of parent: ItemID, kind: FileStat.Kind,
                    container: Int) -> Flags? {
        guard let first = name.first, let last = name.last,
              first != UInt8(ascii: "."), first != UInt8(ascii: "~"), first != UInt8(ascii: "#"), last != UInt8(ascii: "~"),
              !ConflictCopyName.mentionsConflict(utf8: name) else { return nil }
        let p = flags(parent)
        guard !p.contains(.containerRoot),
              kind != .directory || containers[container].packageTypes.isEmpty || !Self.hasDotAfterFirstByte(name) else { return nil }
        return Self.inheritedFlags(from: p)
    }

    /// Whether a `.` follows a name's first byte: what a path extension needs.
    @inline(__always) static func hasDotAfterFirstByte(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        name.count > 1 && memchr(name.baseAddress! + 1, Int32(UInt8(ascii: ".")), name.count - 1) != nil
    }

    /// A crawl's new entry placed from its name's bytes (valid UTF-8: the walk checked them), with
    /// no `String` made of the name (``plainFlags(forChild:of:kind:container:)``). Nil, and nothing
    /// done, for a name that needs a `String` to tell its flags, or where an entry is there already.
    ///
    /// `table` is where `parent`'s child table is (``childTable(_:)``). A new directory gets a
    /// table of its own, so after one the caller looks it up again. `encoded` is the name
    /// compressed ahead (nil: stored as it is, or compressed by the name column), `hash` its
    /// ``ChildTable/hash(_:)-(UnsafeBufferPointer<UInt8>)`` (both as ``PreparedNames`` gives them).
    func insertNew(utf8 name: UnsafeBufferPointer<UInt8>, encoded: UnsafeBufferPointer<UInt8>?, hash: Int, in parent: ItemID,
                   table: ChildTableIndex, _ listedStat: FileStat, container: Int, _ recorder: inout Recorder) -> ItemID? {
        guard let flags = plainFlags(forChild: name, of: parent, kind: listedStat.kind, container: container) else { return nil }
        guard child(in: table, name, hash: hash) == nil else { return nil }
        let id = allocate(utf8: name, encoded: encoded, parent: parent, container: UInt16(container), flags: flags,
                          stat: listedStat)
        if listedStat.kind == .directory {
            addChild(parent, id, hash: hash)        // its table went in: `table` may have moved
        } else {
            addChild(in: table, id, hash: hash)
        }
        indexName(utf8: name, id)
        noteInsert(id, &recorder)
        countConflictCopy(id, 1, &recorder)
        return id
    }

    /// A status whose tags were not read (a crawl) takes the tags the index has for the entry:
    /// the tag pass that follows the crawl tells what they are now.
    @inline(__always) static func keepingTags(_ stat: FileStat, of old: FileStat) -> FileStat {
        guard stat.tagsDeferred else { return stat }
        var kept = stat
        kept.tags = old.tags
        kept.tagsDeferred = false
        return kept
    }

    /// The tag pass's answer for one directory: each regular file and directory in it has the
    /// tags listed for its name, or none.
    private func applyTags(_ directory: ItemID, _ tags: [ExactName: [String]], _ recorder: inout Recorder) {
        guard let children = children(directory) else { return }
        for child in children.ids {
            var stat = self.stat(child)
            guard stat.kind == .regular || stat.kind == .directory else { continue }
            // A placeholder is listed under its own name. No tags in the directory (almost every
            // one): no child's name is needed, nor made a `String` (one per entry on the crawl's path).
            let now: [String]
            if tags.isEmpty {
                now = []
            } else {
                let listed = stat.evicted ? EvictedPlaceholderName.placeholder(for: name(child)) ?? name(child) : name(child)
                now = tags[ExactName(listed)] ?? []
            }
            guard stat.tags != now else { continue }
            noteUpdate(child, recorder: &recorder)
            stat.tags = now
            setStat(child, stat)
        }
    }

    /// The entry and its descendants, parents before children.
    private func subtree(_ id: ItemID) -> [ItemID] {
        var order: [ItemID] = []
        var stack = [id]
        while let next = stack.popLast() {
            order.append(next)
            if let children = children(next) { stack.append(contentsOf: children.ids) }
        }
        return order
    }

    /// A removal the watcher reported: a placeholder's removes its item only while the item is
    /// evicted; an item's own file's only while it is not (else its placeholder stands for it).
    private func remove(container c: Int, _ path: [String], _ recorder: inout Recorder) {
        if let name = path.last, let item = EvictedPlaceholderName.item(ofPlaceholder: name) {
            if let own = lookup(container: c, path) {
                removeSubtree(own, &recorder)         // not a file: filed under its own name
            } else if let id = lookup(container: c, Array(path.dropLast()) + [item]), stat(id).evicted {
                removeSubtree(id, &recorder)
            }
        } else if let id = lookup(container: c, path), !stat(id).evicted {
            removeSubtree(id, &recorder)
        }
    }

    /// The name an entry listed as `name` is filed under (a placeholder's: its item's).
    @inline(__always) static func filedName(_ name: String, _ stat: FileStat) -> String {
        stat.kind == .regular ? EvictedPlaceholderName.item(ofPlaceholder: name) ?? name : name
    }

    private func removeSubtree(_ id: ItemID, _ recorder: inout Recorder) {
        if !flags(id).contains(.containerRoot) {
            removeChild(parent(id), id)
        }
        let order = subtree(id)
        for victim in order {
            noteRemove(victim, &recorder)
            countConflictCopy(victim, -1, &recorder)
        }
        if let package = flags(id).contains(.insidePackage) ? owningPackage(id) : nil {
            recorder.dirtyPackages.insert(package)
        }
        for victim in order.reversed() where !flags(victim).contains(.containerRoot) {
            release(victim)
        }
    }

    private func removeContainerContents(_ container: Int, _ recorder: inout Recorder) {
        guard let root = rootID(ofContainer: container) else { return }
        for child in children(root)?.ids ?? [] { removeSubtree(child, &recorder) }
        clearRoot(container: container)
        release(root)
    }

    private func move(container: Int, from: [String], to: [String], stat: FileStat?, _ recorder: inout Recorder) {
        if let first = from.last, let second = to.last,
           (EvictedPlaceholderName.item(ofPlaceholder: first) != nil && lookup(container: container, from) == nil)
            || (EvictedPlaceholderName.item(ofPlaceholder: second) != nil && (stat?.kind ?? .regular) == .regular) {
            // To or from a placeholder: an eviction (the item's file renamed to its placeholder:
            // the same entry, now evicted), else a removal and a status.
            let sameItem = from.dropLast() == to.dropLast()
                && (EvictedPlaceholderName.item(ofPlaceholder: first) ?? first) == (EvictedPlaceholderName.item(ofPlaceholder: second) ?? second)
            if !sameItem { remove(container: container, from, &recorder) }
            if let stat { upsert(container: container, to, stat, &recorder) }
            return
        }
        guard let source = lookup(container: container, from), !from.isEmpty else {
            if let stat { upsert(container: container, to, stat, &recorder) }
            return
        }
        guard let newName = to.last, let newParent = lookup(container: container, Array(to.dropLast())),
              children(newParent) != nil else {
            removeSubtree(source, &recorder)      // moved somewhere we do not index
            return
        }
        let newStat = Self.keepingTags(stat ?? self.stat(source), of: self.stat(source))
        if newStat.kind != kind(source) {
            // Not the same kind of entry any more (a race with a replace): a remove and a create.
            removeSubtree(source, &recorder)
            upsert(container: container, to, newStat, &recorder)
            return
        }
        if let target = child(newParent, newName), target != source {
            // Replaced an existing entry: an atomic save keeps the target's identity.
            if kind(target) == newStat.kind && newStat.kind != .directory {
                noteUpdate(target, recorder: &recorder)
                setStat(target, newStat)
                removeSubtree(source, &recorder)
                return
            }
            removeSubtree(target, &recorder)
        }
        // A rename: the entry and its subtree keep their ids; paths and inherited flags change.
        let moved = subtree(source)
        for id in moved {
            noteUpdate(id, oldPath: recorder.enabled ? path(of: id) : nil, &recorder)
            countConflictCopy(id, -1, &recorder)
        }
        if let oldPackage = owningPackage(source) { recorder.dirtyPackages.insert(oldPackage) }
        removeChild(parent(source), source)
        rename(source, to: newName, parent: newParent)
        setStat(source, newStat)
        addChild(newParent, source)
        // Re-derive inherited flags top-down (hidden, documents, package membership may change).
        for id in moved {
            let old = flags(id)
            let derived = flags(forChild: name(id), of: parent(id), kind: kind(id), container: container)
            guard derived != old else { continue }
            setFlags(id, derived)
            let wasItem = old.isDisjoint(with: .notAnItem), isItem = derived.isDisjoint(with: .notAnItem)
            guard recorder.enabled, wasItem != isItem else { continue }
            if wasItem {
                // Moved into a package (or renamed to a sync engine's name): no longer an item of its own.
                if recorder.changeSet.changes[id]?.kind == .inserted { recorder.changeSet.changes[id] = nil }
                else { recorder.changeSet.changes[id]?.kind = .removed }
            } else {
                // Renamed from a sync engine's name (its temporary file put in place): a new item.
                recorder.changeSet.containers.insert(container)
                recorder.changeSet.changes[id] = ChangeSet.Change(id: id, kind: .inserted, before: nil, oldPath: nil)
            }
        }
        for id in moved { countConflictCopy(id, 1, &recorder) }
        if let newPackage = owningPackage(source) { noteUpdate(newPackage, recorder: &recorder) }
        if flags(source).contains(.package) { recorder.dirtyPackages.insert(source) }
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
        let entries = listing.entries
        let childrenOf = ListingChildren(entries)
        var lookup: ListingLookup? = ListingLookup(self, root: rootID, entries, childrenOf)
        // pairRenames keeps the lookup true to the moves it makes; a move it cannot account for drops it.
        if pairRenames(container: container, rootID: rootID, entries, childrenOf, &lookup!, &recorder) {
            lookup = nil
            listingLookupsDropped += 1
        }
        // Taken once: read in the loop through the optional lookup, it was copied per entry.
        let unchanged = lookup?.unchanged ?? []
        var stack: [(ItemID, Int32)] = [(rootID, -1)]
        var found: [ItemID?] = []
        while let (directory, position) = stack.popLast() {
            // The ids, not the table: removals below edit the table, which must not be shared.
            guard let existing = children(directory)?.ids else { continue }
            let listed = childrenOf[position]
            // What the listing still shows, by id, each looked up once by its name's bytes: as the
            // lookup found it where this directory is the one it looked in.
            found.removeAll(keepingCapacity: true)
            var anyPlaceholder = false, fromLookup = false
            if let lookup, lookup.lookedUp(position, in: directory) {
                anyPlaceholder = lookup.withPlaceholder.contains(position)
                fromLookup = true
                for i in listed { found.append(lookup[i]) }
            } else {
                for i in listed {
                    found.append(filedChild(directory, entries, Int(i), placeholder: &anyPlaceholder))
                }
            }
            if !existing.isEmpty && !Self.keepsAll(existing.count, found, anyPlaceholder: anyPlaceholder) {
                var kept = Set<ItemID>()
                kept.reserveCapacity(listed.count)
                for id in found { if let id { kept.insert(id) } }
                for child in existing where !kept.contains(child) {
                    removeSubtree(child, &recorder)
                }
            }
            for (k, i) in listed.enumerated() {
                let listedKind = entries.kind(Int(i))
                let id: ItemID
                if !anyPlaceholder, let same = found[k], kind(same) == listedKind {
                    // The check's common case: the item is there, of the same kind (what
                    // ``upsert(name:in:_:container:_:)`` does then, with no `String` of its name),
                    // and the lookup found its status unchanged. Where a placeholder is listed,
                    // its item's entry may change under the others: the whole directory goes
                    // through `upsert`.
                    if !(fromLookup && unchanged[Int(i)]) {
                        let stat = entries.stat(Int(i))
                        if !stats.holds(stat, at: Int(same)) {
                            noteUpdate(same, recorder: &recorder)
                            setStat(same, Self.keepingTags(stat, of: self.stat(same)))
                        }
                    }
                    id = same
                } else {
                    id = upsert(name: entries.withName(Int(i)) { String(decoding: $0, as: UTF8.self) }, in: directory,
                                entries.stat(Int(i)), container: container, &recorder)
                }
                if listedKind == .directory { stack.append((id, i)) }
            }
        }
    }

    /// Whether a directory of `existing` children keeps them all, given what its listed entries
    /// were `found` as (``filedChild(_:_:_:placeholder:)``): as many found as there are. A listing
    /// names each entry of a directory once and each name is its own child, so the found ones are
    /// that many different children of it, unless a name that may be a placeholder's made two
    /// names one child (then false: the caller compares ids).
    /// Why: most directories of a restart's check lost nothing, and a set of each one's ids was
    /// a tenth of applying it at a million entries.
    @inline(__always)
    static func keepsAll(_ existing: Int, _ found: [ItemID?], anyPlaceholder: Bool) -> Bool {
        guard !anyPlaceholder else { return false }
        var count = 0
        for id in found where id != nil { count += 1 }
        return count == existing
    }

    /// The child of `directory` that listing entry `i` is filed as (``filedName(_:_:)``): looked up
    /// by its name's bytes, or, for a name that may be an evicted item's placeholder (rare), as a
    /// `String`; `placeholder` set then.
    /// Why: a check's listing after a restart is a million entries at 1M, all there already; a
    /// `String` of each name and three lookups of it were most of applying it.
    func filedChild(_ directory: ItemID, _ entries: CrawlEntries, _ i: Int, placeholder: inout Bool) -> ItemID? {
        let stat = entries.stat(i)
        return entries.withName(i) { name in
            if stat.kind == .regular, EvictedPlaceholderName.mayBePlaceholder(name) {
                placeholder = true
                return child(directory, Self.filedName(String(decoding: name, as: UTF8.self), stat))
            }
            return child(directory, name, hash: ChildTable.hash(name))
        }
    }

    /// Renames a listing reveals: an entry gone from its place and a new name elsewhere in the
    /// listing that is the same file (same kind, inode and birth time) is moved there, keeping its
    /// identity — what happened while nobody watched (the daemon was stopped, the queue overflowed)
    /// is then a rename with `oldPath`, as it would have been live, not a removal and a new item.
    ///
    /// Only a file system that reports birth times is trusted here: without one `created` is the
    /// status change time, which a rename moves, so nothing pairs (inode numbers alone are reused).
    /// Entries inside a vanished directory are not paired on their own (the directory may be).
    /// - Returns: whether the lookup no longer holds: a move did something else than put its item
    ///   where the listing shows it. The lookup is told of the others: the entry found
    ///   (``ListingLookup/noteFound(_:_:)``), or, in a directory listing a name that may be a
    ///   placeholder's, that directory to be looked up anew (``ListingLookup/forget(_:)``).
    ///   Why: a restart's check that found renames threw the whole lookup away, and looking every
    ///   entry up again on one thread was most of applying it (a million entries, 250 renames).
    private func pairRenames(container: Int, rootID: ItemID, _ entries: CrawlEntries, _ childrenOf: ListingChildren,
                             _ lookup: inout ListingLookup, _ recorder: inout Recorder) -> Bool {
        struct Key: Hashable {
            let inode: UInt64, created: Int64, kind: FileStat.Kind
            init(_ stat: FileStat) { (inode, created, kind) = (stat.inode, stat.created, stat.kind) }
        }
        // First what vanished: only directories that had children can lose one (a first crawl
        // has none, and costs nothing here).
        var vanished: [Key: ItemID] = [:]
        var found: [ItemID?] = []
        for (directory, position) in lookup.directories {
            guard let existing = children(directory), !existing.isEmpty else { continue }
            found.removeAll(keepingCapacity: true)
            for i in childrenOf[position] { found.append(lookup[i]) }
            if Self.keepsAll(existing.count, found, anyPlaceholder: lookup.withPlaceholder.contains(position)) { continue }
            let kept = Set(found.lazy.compactMap { $0 })
            for child in existing.ids where !kept.contains(child) && stat(child).inode != 0 {
                vanished[Key(stat(child))] = child
            }
        }
        guard !vanished.isEmpty else { return false }
        // Then what appeared, where the directory it appeared in is indexed already.
        var appeared: [(directory: ItemID, position: Int32)] = []
        for (directory, position) in lookup.directories {
            for i in childrenOf[position] where lookup[i] == nil { appeared.append((directory, i)) }
        }
        var dropped = false
        for (directory, position) in appeared {
            let e = entries[Int(position)]
            guard let source = vanished.removeValue(forKey: Key(e.stat)), isLive(source), isLive(directory) else { continue }
            move(container: container, from: relativeComponents(of: source), to: relativeComponents(of: directory) + [e.name],
                 stat: e.stat, &recorder)
            // A plain rename keeps every other entry's lookup: nothing was found at the new name,
            // nothing found was the vanished item, and the tables keep their ids. Where the
            // directory lists a name that may be a placeholder's, its entries may file otherwise
            // now: it is looked up anew. Anything else (an entry replaced or removed) drops the lookup.
            let listedIn = entries.parent(Int(position))
            var placeholder = false
            if lookup.withPlaceholder.contains(listedIn) {
                lookup.forget(listedIn)
                directoriesLookedUpAgain += 1
            } else if isLive(source), filedChild(directory, entries, Int(position), placeholder: &placeholder) == source, !placeholder {
                lookup.noteFound(position, source)
            } else {
                dropped = true
            }
        }
        return dropped
    }

    /// Recomputes a package's size (sum of regular files inside) and newest modification.
    func refreshPackage(_ id: ItemID) {
        var size: Int64 = 0
        var newest = stat(id).modified
        for inner in subtree(id).dropFirst() {
            let s = stat(inner)
            // A file the sync engine is still receiving is not part of the package yet.
            if !flags(inner).isDisjoint(with: [.syncEngine, .conflictCopy]) { continue }
            // Sizes come from the file system: saturate (Int64+Saturating.swift), never trap.
            if s.kind == .regular { size = size.saturatingAdding(s.size) }
            newest = max(newest, s.modified)
        }
        setPackageTotals(id, size: size, modified: newest)
    }
}
