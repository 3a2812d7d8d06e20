import UbiquityPredicate

/// Identifies an indexed entry while it exists. Ids of removed entries are reused only after
/// the change set that removed them has been handed out.
public typealias ItemID = UInt32

/// An item's identity for its whole life: its slot and the slot's generation.
public struct ItemIdentity: Sendable, Hashable, Comparable {
    public let id: ItemID
    public let generation: UInt32
    public static func < (a: ItemIdentity, b: ItemIdentity) -> Bool {
        (a.id, a.generation) < (b.id, b.generation)
    }
}

/// The in-memory metadata index of every watched container: one entry per directory entry,
/// names stored once, paths computed from parents, a name index for exact and prefix lookups.
///
/// Not thread-safe: one owner (the engine actor) applies changes and answers queries.
public final class MetadataIndex {
    struct Flags: OptionSet {
        let rawValue: UInt8
        /// A container root directory: not an item.
        static let containerRoot = Flags(rawValue: 1)
        /// A directory with a declared package extension: ONE item.
        static let package = Flags(rawValue: 2)
        /// Below a package: part of the package item, never a result of its own.
        static let insidePackage = Flags(rawValue: 4)
        /// A dotfile or temp file, or below one.
        static let hidden = Flags(rawValue: 8)
        /// Inside the container's `Documents/` (or `Documents` itself).
        static let documents = Flags(rawValue: 16)
        /// The slot holds a live entry.
        static let live = Flags(rawValue: 32)
    }

    struct Entry {
        var name: String
        var parent: ItemID
        var container: UInt16
        var flags: Flags
        var stat: FileStat
        /// Directories only: child name → id.
        var children: [String: ItemID]?
        /// Packages only: size of the contents and newest modification inside.
        var packageSize: Int64 = 0
        var packageModified: Int64 = 0
        /// Bumped each time the slot is reused, so (id, generation) names one item forever.
        var generation: UInt32 = 0
    }

    private(set) var entries: [Entry] = []
    private var free: [ItemID] = []
    /// Freed during the current batch; reusable once the batch's change set is out.
    private var freedInBatch: [ItemID] = []
    public private(set) var containers: [ContainerDescriptor] = []
    private var containerRoots: [ItemID?] = []
    let names = NameIndex()
    /// Reads `user.xdg.tags` for a path; injected by the watcher (this module does no I/O).
    public var tagsReader: (@Sendable (String) -> [String])?

    public init() {}

    /// Live entries, container roots included.
    public var entryCount: Int { entries.count - free.count - freedInBatch.count }
    /// Indexed items: live entries that can be results or are inside packages.
    public var itemCount: Int { entryCount - containerRoots.compactMap { $0 }.count }

    // MARK: - Containers

    /// Registers a container; its root entry appears with the first change that reaches it.
    @discardableResult
    public func addContainer(_ descriptor: ContainerDescriptor) -> Int {
        if let existing = containers.firstIndex(where: { $0.id == descriptor.id }) {
            containers[existing] = descriptor
            return existing
        }
        containers.append(descriptor)
        containerRoots.append(nil)
        return containers.count - 1
    }

    public func containerIndex(_ id: ContainerID) -> Int? { containers.firstIndex { $0.id == id } }

    func rootID(ofContainer index: Int) -> ItemID? { containerRoots[index] }

    // MARK: - Reading entries

    func entry(_ id: ItemID) -> Entry { entries[Int(id)] }

    // Field readers for hot paths: they avoid copying (and reference-counting) a whole Entry.
    @inline(__always) func name(_ id: ItemID) -> String { entries[Int(id)].name }
    @inline(__always) func flags(_ id: ItemID) -> Flags { entries[Int(id)].flags }
    @inline(__always) func stat(_ id: ItemID) -> FileStat { entries[Int(id)].stat }
    @inline(__always) func container(of id: ItemID) -> Int { Int(entries[Int(id)].container) }

    /// The identity of the item now in slot `id`: stable for its whole life, never reused.
    public func identity(_ id: ItemID) -> ItemIdentity {
        ItemIdentity(id: id, generation: entries[Int(id)].generation)
    }

    func isLive(_ id: ItemID) -> Bool {
        Int(id) < entries.count && entries[Int(id)].flags.contains(.live)
    }

    /// An entry that can be a query result: not a container root, not inside a package.
    func isItem(_ id: ItemID) -> Bool {
        let flags = self.flags(id)
        return flags.contains(.live) && !flags.contains(.containerRoot) && !flags.contains(.insidePackage)
    }

    /// The entry at `components` below the container root, if indexed.
    public func lookup(container: Int, _ components: [String]) -> ItemID? {
        guard var id = containerRoots[container] else { return nil }
        for name in components {
            guard let next = entries[Int(id)].children?[name] else { return nil }
            id = next
        }
        return id
    }

    /// Absolute path of an entry.
    public func path(of id: ItemID) -> String {
        var parts: [String] = []
        var current = id
        while true {
            let e = entries[Int(current)]
            parts.append(e.name)
            if e.flags.contains(.containerRoot) { break }
            current = e.parent
        }
        return parts.reversed().joined(separator: "/")
    }

    /// Components below the container root.
    public func relativeComponents(of id: ItemID) -> [String] {
        var parts: [String] = []
        var current = id
        while !entries[Int(current)].flags.contains(.containerRoot) {
            parts.append(entries[Int(current)].name)
            current = entries[Int(current)].parent
        }
        return parts.reversed()
    }

    /// Every item (not roots, not package contents) of the given containers.
    func allItems(inContainers containerSet: Set<Int>?) -> [ItemID] {
        var result: [ItemID] = []
        result.reserveCapacity(entryCount)
        for (i, e) in entries.enumerated()
        where e.flags.contains(.live) && !e.flags.contains(.containerRoot) && !e.flags.contains(.insidePackage) {
            if let containerSet, !containerSet.contains(Int(e.container)) { continue }
            result.append(ItemID(i))
        }
        return result
    }

    /// Candidate items for a name hint (a superset of the matches), or nil when the hint is too weak.
    func candidates(for hint: NameHint) -> [ItemID] {
        candidates(for: hint) { _, _ in true }
    }

    /// Items whose name satisfies the hint and whose flags and container pass `accept`, in one
    /// pass over the entries (no per-item copies or exclusivity checks).
    func candidates(for hint: NameHint, accept: (Flags, Int) -> Bool) -> [ItemID] {
        var result: [ItemID] = []
        var seen = Set<ItemID>()
        let dedupe = hint.constraints.count > 1
        entries.withUnsafeBufferPointer { entries in
            for constraint in hint.constraints {
                let (ids, needsCheck) = names.ids(for: constraint, caseInsensitive: hint.caseInsensitive)
                let test: StringMatcherForHints?
                switch constraint {
                case .exact(let s) where needsCheck:
                    test = StringMatcherForHints(hint.caseInsensitive ? s.lowercased() : s, prefix: false,
                                                 caseInsensitive: hint.caseInsensitive)
                case .prefix(let s):
                    test = StringMatcherForHints(hint.caseInsensitive ? s.lowercased() : s, prefix: true,
                                                 caseInsensitive: hint.caseInsensitive)
                default:
                    test = nil
                }
                for id in ids {
                    // Field by field: copying a whole Entry would reference-count its name and children.
                    let flags = entries[Int(id)].flags
                    guard flags.contains(.live), !flags.contains(.containerRoot), !flags.contains(.insidePackage),
                          accept(flags, Int(entries[Int(id)].container)) else { continue }
                    if let test, !test.accepts(entries[Int(id)].name) { continue }
                    if dedupe, !seen.insert(id).inserted { continue }
                    result.append(id)
                }
            }
        }
        return result
    }

    // MARK: - Mutation primitives (used by MetadataIndex+Apply)

    func allocate(_ entry: Entry) -> ItemID {
        if let id = free.popLast() {
            var entry = entry
            entry.generation = entries[Int(id)].generation &+ 1
            entries[Int(id)] = entry
            return id
        }
        entries.append(entry)
        return ItemID(entries.count - 1)
    }

    func setRoot(container: Int, stat: FileStat) -> ItemID {
        if let id = containerRoots[container] {
            entries[Int(id)].stat = stat
            return id
        }
        let root = Entry(name: containers[container].root, parent: 0, container: UInt16(container),
                         flags: [.live, .containerRoot], stat: stat, children: [:])
        let id = allocate(root)
        entries[Int(id)].parent = id
        containerRoots[container] = id
        return id
    }

    func clearRoot(container: Int) {
        containerRoots[container] = nil
    }

    func update(_ id: ItemID, _ body: (inout Entry) -> Void) {
        body(&entries[Int(id)])
    }

    func release(_ id: ItemID) {
        let e = entries[Int(id)]
        if !e.flags.contains(.containerRoot) { names.remove(e.name, id) }
        entries[Int(id)] = Entry(name: "", parent: 0, container: 0, flags: [], stat: FileStat(kind: .other),
                                 generation: e.generation)
        freedInBatch.append(id)
    }

    /// Makes the ids freed by the last batch reusable.
    func endBatch() {
        free.append(contentsOf: freedInBatch)
        freedInBatch.removeAll(keepingCapacity: true)
    }
}

@available(*, unavailable, message: "owned by one engine actor")
extension MetadataIndex: Sendable {}
