public import UbiquityJSON

/// `versions.list`: an item's current version and its conflict versions (`NSFileVersion`).
public struct VersionsList: ProtocolOperation {
    public typealias Result = ItemVersions
    public static let name = "versions.list"

    public var path: String

    public init(path: String) { self.path = path }
    public init(_ request: FieldReader) throws(ProtocolError) { path = try request.string("path") }
    public var fields: [String: JSONValue] { ["path": .string(path)] }
}
