public import UbiquityJSON

/// `item.download`: starts fetching the current version of an item from another device
/// (`startDownloadingUbiquitousItemAtURL:error:`); `force` fetches it again even when the local
/// copy is current.
public struct ItemDownload: ProtocolOperation {
    public typealias Result = ItemSyncState
    public static let name = "item.download"

    public var path: String
    public var force: Bool

    public init(path: String, force: Bool = false) {
        self.path = path
        self.force = force
    }

    public init(_ request: FieldReader) throws(ProtocolError) {
        path = try request.string("path")
        force = try request.optionalBool("force") ?? false
    }

    public var fields: [String: JSONValue] { force ? ["path": .string(path), "force": .bool(true)] : ["path": .string(path)] }
}
