public import UbiquityJSON

/// One container as `containers.list` and `status` show it.
public struct ContainerInfo: Sendable, Hashable {
    public var id: String
    /// The container directory.
    public var path: String
    /// False when the directory is missing or unreadable (it is watched for coming back).
    public var available: Bool
    /// Indexed items (files, directories and packages) in the container.
    public var items: Int
    public var ownerUID: UInt32
    public var groupGID: UInt32?
    /// Declared package extensions → type identifier.
    public var packageTypes: [String: String]

    public init(id: String, path: String, available: Bool, items: Int, ownerUID: UInt32, groupGID: UInt32?,
                packageTypes: [String: String]) {
        self.id = id
        self.path = path
        self.available = available
        self.items = items
        self.ownerUID = ownerUID
        self.groupGID = groupGID
        self.packageTypes = packageTypes
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "path": .string(path), "available": .bool(available), "items": .integer(Int64(items)),
            "owner": .integer(Int64(ownerUID)),
            "packageTypes": .object(packageTypes.mapValues(JSONValue.string)),
        ]
        if let groupGID { object["group"] = .integer(Int64(groupGID)) }
        return .object(object)
    }

    public init(json: JSONValue, context: String = "container") throws(ProtocolError) {
        let reader = try FieldReader(json, context: context)
        id = try reader.string("id")
        path = try reader.string("path")
        available = try reader.bool("available")
        items = try reader.int("items")
        ownerUID = UInt32(truncatingIfNeeded: try reader.int("owner"))
        groupGID = try reader.optionalInt("group").map { UInt32(truncatingIfNeeded: $0) }
        var types: [String: String] = [:]
        for (key, value) in try reader.optionalObject("packageTypes") ?? [:] {
            if case .string(let s) = value { types[key] = s }
        }
        packageTypes = types
    }
}
