public import UbiquityJSON

/// `item.evict`: removes the local copy of an item that another device holds, keeping it in
/// queries as `notDownloaded` (`NSFileManager`'s `evictUbiquitousItemAtURL:error:`).
public struct ItemEvict: ProtocolOperation {
    public typealias Result = ItemSyncState
    public static let name = "item.evict"

    public var path: String

    public init(path: String) { self.path = path }
    public init(_ request: FieldReader) throws(ProtocolError) { path = try request.string("path") }
    public var fields: [String: JSONValue] { ["path": .string(path)] }
}
