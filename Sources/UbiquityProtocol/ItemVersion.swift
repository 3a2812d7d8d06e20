public import UbiquityJSON
import UbiquityPredicate

/// One version of an item, as `versions.list` answers it: the current one (`id` `"current"`), or a
/// conflict version — a copy a sync engine or a stale coordinated save left beside the item.
public struct ItemVersion: Sendable, Hashable {
    /// The id of the item's current version.
    public static let currentID = "current"

    /// `"current"`, or the copy's path relative to the item's directory
    /// (`Item_1.sync-conflict-20261122-103000-ABCDEFG`, `grocery.gro/items.sync-conflict-….json`).
    public var id: String
    /// The file or directory that holds this version.
    public var path: String
    /// What the version replaces when chosen, relative to the item's directory: the item's own
    /// name, or the file inside a package that the copy is a version of.
    public var replaces: String
    /// Last modification, seconds since 1970.
    public var modified: Double
    public var size: Int64
    /// The saving device as the sync engine names it (Syncthing's short device id, the host of a
    /// stale local save); nil when the name does not say.
    public var device: String?
    /// True for every version but the current one: conflict versions are unresolved until chosen
    /// or removed.
    public var conflict: Bool
    public var isDirectory: Bool
    public var etag: ItemETag

    public init(id: String, path: String, replaces: String, modified: Double, size: Int64, device: String?,
                conflict: Bool, isDirectory: Bool, etag: ItemETag) {
        self.id = id
        self.path = path
        self.replaces = replaces
        self.modified = modified
        self.size = size
        self.device = device
        self.conflict = conflict
        self.isDirectory = isDirectory
        self.etag = etag
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "path": .string(path), "replaces": .string(replaces),
            "modified": Value.date(modified).json, "size": .integer(size), "conflict": .bool(conflict),
            "directory": .bool(isDirectory), "etag": .string(etag.rawValue),
        ]
        object["device"] = device.map(JSONValue.string) ?? .null
        return .object(object)
    }

    public init(json: JSONValue, context: String = "version") throws(ProtocolError) {
        let reader = try FieldReader(json, context: context)
        id = try reader.string("id")
        path = try reader.string("path")
        replaces = try reader.string("replaces")
        let date = try reader.value("modified")
        guard case .date(let seconds) = try? Value(json: date, for: .contentChangeDate) else {
            throw .malformed("field 'modified' of \(context) must be an ISO-8601 date", field: "modified")
        }
        modified = seconds
        size = Int64(try reader.int("size"))
        device = try reader.optionalString("device")
        conflict = try reader.bool("conflict")
        isDirectory = try reader.optionalBool("directory") ?? false
        etag = ItemETag(rawValue: try reader.string("etag"))
    }
}
