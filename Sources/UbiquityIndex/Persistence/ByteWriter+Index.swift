import UbiquityBinary

/// How the saved index writes the index's own values: an entry's status, a container, an item
/// as it was (history).
extension ByteWriter {
    /// Times other than `modified` are written as differences from it: usually 0, one byte.
    /// The kind's byte carries ``FileStat/tagsDeferred`` in its high bit (only a journaled
    /// crawl has it; the index never stores it), and ``FileStat/evicted`` in the next (0x40).
    /// The fixed fields (at most 74 bytes) go through one ``scratch(_:)``: a snapshot and a
    /// crawl's journal record write one per entry.
    mutating func fileStat(_ stat: FileStat) {
        scratch { fields in
            fields.byte(stat.kind.rawValue | (stat.tagsDeferred ? 0x80 : 0) | (stat.evicted ? 0x40 : 0))
            fields.varint(UInt64(bitPattern: stat.size))
            fields.int64(stat.modified)
            fields.zigzag(stat.created &- stat.modified)
            fields.zigzag(stat.changed &- stat.modified)
            fields.varint(stat.inode)
            fields.varint(stat.mode)
            fields.varint(stat.uid)
            fields.varint(stat.gid)
            fields.varint(stat.tags.count)
        }
        for tag in stat.tags { string(tag) }
    }

    mutating func container(_ descriptor: ContainerDescriptor) {
        string(descriptor.id.rawValue)
        string(descriptor.root)
        let types = descriptor.packageTypes.sorted { $0.key < $1.key }
        varint(types.count)
        for (ext, type) in types {
            string(ext)
            string(type)
        }
    }

    /// `containers`: the container's position in the saved list, by id.
    mutating func itemSnapshot(_ item: FrozenItem, containers: [ContainerID: Int]) {
        varint(item.identity.id)
        varint(item.identity.generation)
        string(item.name)
        fileStat(item.stat)
        byte((item.isPackage ? 1 : 0) | (item.isHidden ? 2 : 0) | (item.scope == .documents ? 4 : 0)
             | (item.hasUnresolvedConflicts ? 8 : 0) | (item.packageType != nil ? 16 : 0))
        varint(containers[item.containerID] ?? 0)
        if let packageType = item.packageType { string(packageType) }
        int64(item.packageSize)
        int64(item.packageModified)
        string(item.path)
    }
}

extension BinaryReader {
    /// Longest name of a directory entry (Linux `NAME_MAX`).
    static let maxNameBytes = 255
    /// Longest path kept in history: deep trees are indexed below `PATH_MAX` too.
    static let maxPathBytes = 1 << 20

    mutating func fileStat() throws(SavedIndexError) -> FileStat {
        let kindByte = try byte()
        guard let kind = FileStat.Kind(rawValue: kindByte & 0x3F) else { throw .invalid("an unknown kind of entry") }
        let size = Int64(bitPattern: try varint())
        let modified = try int64()
        let created = modified &+ (try zigzag())
        let changed = modified &+ (try zigzag())
        let inode = try varint()
        let mode = try uint32(), uid = try uint32(), gid = try uint32()
        // Statuses carry permission bits only (FileStat.mode); the index keeps no more (StatColumn).
        guard mode <= 0o7777 else { throw .invalid("a mode beyond the permission bits (0o\(String(mode, radix: 8)))") }
        let tagCount = try count()
        var tags: [String] = []
        for _ in 0..<tagCount { tags.append(try string()) }
        var stat = FileStat(kind: kind, size: size, modified: modified, created: created, changed: changed,
                            mode: mode, uid: uid, gid: gid, inode: inode, tags: tags, tagsDeferred: kindByte & 0x80 != 0)
        stat.evicted = kindByte & 0x40 != 0
        return stat
    }

    mutating func container() throws(SavedIndexError) -> ContainerDescriptor {
        let rawID = try string(maxBytes: ContainerID.maxLength)
        let id: ContainerID
        do { id = try ContainerID(rawID) } catch { throw .invalid("\(error)") }
        let root = try string()
        let typeCount = try count(minimumSize: 2)
        var types: [String: String] = [:]
        var seen = Set<String>()
        for _ in 0..<typeCount {
            let ext = try string()
            // The daemon saves each extension once, lowercase: two that are one to the index
            // (`gro` and `GRO`) are a damaged file, not a choice to make.
            guard seen.insert(ext.lowercased()).inserted else {
                throw .invalid("container \(rawID) declares the package extension '\(ext)' twice")
            }
            types[ext] = try string()
        }
        return ContainerDescriptor(id: id, root: root, packageTypes: types)
    }

    mutating func itemSnapshot(containers: [ContainerDescriptor]) throws(SavedIndexError) -> FrozenItem {
        let id = try uint32()
        let generation = try uint32()
        let name = try string(maxBytes: Self.maxNameBytes)
        let stat = try fileStat()
        let bits = try byte()
        let container = try count()
        guard container < containers.count else { throw .invalid("an item of container #\(container) of \(containers.count)") }
        let packageType = bits & 16 != 0 ? try string() : nil
        let packageSize = try int64()
        let packageModified = try int64()
        let path = try string(maxBytes: Self.maxPathBytes)
        return FrozenItem(identity: ItemIdentity(id: id, generation: generation), name: name, stat: stat,
                            isPackage: bits & 1 != 0, isHidden: bits & 2 != 0, scope: bits & 4 != 0 ? .documents : .data,
                            containerID: containers[container].id, packageType: packageType, packageSize: packageSize,
                            packageModified: packageModified, path: path, hasUnresolvedConflicts: bits & 8 != 0)
    }
}
