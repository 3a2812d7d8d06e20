import UbiquityPredicate

/// The raw facts about an item from which every attribute in docs/predicates.md is derived.
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
    /// Whether conflict copies of it are present (beside it, or inside it for a package).
    var hasUnresolvedConflicts: Bool { get }
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
        case .hasUnresolvedConflicts: return .bool(hasUnresolvedConflicts)
        // No sync engine is connected yet (docs/predicates.md, "Sync status"): the local copy is
        // the current version and no other device is known to hold it — said plainly, not guessed.
        case .isDownloaded: return .bool(true)
        case .downloadingStatus: return .string(DownloadingStatus.current.rawValue)
        case .isDownloading, .isUploading, .isUploaded, .uploadedToAllDevices: return .bool(false)
        case .percentDownloaded: return .integer(100)
        case .percentUploaded: return .integer(0)
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
