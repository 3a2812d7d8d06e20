import UbiquityPredicate

/// The raw facts about an item from which every attribute of SPEC §5 is derived.
/// Two shapes provide them: a live view into the index and a snapshot kept after removal.
protocol ItemFacts: AttributeProvider {
    var name: String { get }
    var stat: FileStat { get }
    var isPackage: Bool { get }
    var isHidden: Bool { get }
    var scope: Scope { get }
    var containerID: ContainerID { get }
    /// The declared package type, when `isPackage`.
    var packageType: String? { get }
    /// Package contents: total size and newest modification.
    var packageSize: Int64 { get }
    var packageModified: Int64 { get }
    var path: String { get }
    var tags: [String] { get }
}

extension ItemFacts {
    public func value(of attribute: Attribute) -> Value? {
        switch attribute {
        case .name: return .string(name)
        case .displayName:
            if stat.kind == .directory && !isPackage { return .string(name) }
            guard let ext = ContentTypes.pathExtension(name) else { return .string(name) }
            return .string(String(name.dropLast(ext.count + 1)))
        case .path: return .string(path)
        case .url: return .string(ItemURL.fileURL(path: path, isDirectory: stat.kind == .directory))
        case .size: return .integer(isPackage ? packageSize : (stat.kind == .directory ? 0 : stat.size))
        case .creationDate: return .date(Double(stat.created) / 1e9)
        case .contentChangeDate: return .date(Double(isPackage ? max(packageModified, stat.modified) : stat.modified) / 1e9)
        case .contentType: return .string(contentType)
        case .contentTypeTree: return .list(ContentTypes.tree(contentType).map(Value.string))
        case .isDirectory: return .bool(stat.kind == .directory)
        case .isPackage: return .bool(isPackage)
        case .ownerUserID: return .integer(Int64(stat.uid))
        case .ownerGroupID: return .integer(Int64(stat.gid))
        case .isHidden: return .bool(isHidden)
        case .userTags:
            let tags = self.tags
            return tags.isEmpty ? nil : .list(tags.map(Value.string))
        case .container: return .string(containerID.rawValue)
        case .scope: return .string(scope.rawValue)
        case .hasUnresolvedConflicts: return .bool(false)
        case .isDownloaded, .isUploaded: return .bool(true)
        case .downloadingStatus: return .string("NSMetadataUbiquitousItemDownloadingStatusCurrent")
        default: return nil
        }
    }

    var contentType: String {
        if isPackage { return packageType ?? ContentTypes.package }
        switch stat.kind {
        case .directory: return ContentTypes.folder
        case .symlink: return ContentTypes.symlink
        case .regular, .other: return ContentTypes.forFile(named: name)
        }
    }
}

/// A live, allocation-free view of one indexed item; `path` and `tags` are computed on demand.
public struct IndexedItem: ItemFacts {
    let index: MetadataIndex
    public let id: ItemID

    init(_ index: MetadataIndex, _ id: ItemID) {
        self.index = index
        self.id = id
    }

    public var name: String { index.name(id) }
    public var stat: FileStat { index.stat(id) }
    public var isPackage: Bool { index.flags(id).contains(.package) }
    public var isHidden: Bool { index.flags(id).contains(.hidden) }
    public var scope: Scope { index.flags(id).contains(.documents) ? .documents : .data }
    public var containerID: ContainerID { index.containers[index.container(of: id)].id }
    public var packageType: String? {
        guard isPackage, let ext = ContentTypes.pathExtension(name) else { return nil }
        return index.containers[index.container(of: id)].packageTypes[ext.lowercased()]
    }
    public var packageSize: Int64 { index.packageTotals(id).size }
    public var packageModified: Int64 { index.packageTotals(id).modified }
    public var path: String { index.path(of: id) }
    public var tags: [String] { index.tagsReader?(path) ?? [] }
    public var identity: ItemIdentity { index.identity(id) }
    public func snapshot() -> ItemSnapshot { ItemSnapshot(self) }
}

/// An item's facts frozen at one moment: what a `removed` event reports after the entry is gone.
public struct ItemSnapshot: ItemFacts, Sendable, Hashable {
    public let id: ItemID
    public let identity: ItemIdentity
    public let name: String
    public let stat: FileStat
    public let isPackage: Bool
    public let isHidden: Bool
    public let scope: Scope
    public let containerID: ContainerID
    public let packageType: String?
    public let packageSize: Int64
    public let packageModified: Int64
    public let path: String
    /// Tags are read only when a query asks for them; a snapshot keeps none.
    public var tags: [String] { [] }

    init(_ item: IndexedItem) {
        id = item.id
        identity = item.identity
        name = item.name
        stat = item.stat
        isPackage = item.isPackage
        isHidden = item.isHidden
        scope = item.scope
        containerID = item.containerID
        packageType = item.packageType
        packageSize = item.packageSize
        packageModified = item.packageModified
        path = item.path
    }
}

enum ItemURL {
    /// `file:///a%20b/c/` — percent-encodes everything outside the unreserved set and `/`.
    static func fileURL(path: String, isDirectory: Bool) -> String {
        var out = "file://"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return isDirectory && !out.hasSuffix("/") ? out + "/" : out
    }
}
