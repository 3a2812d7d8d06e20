public import UbiquityJSON

/// `document.watch`: subscribes to an item's lock changes (`document.lockChanged` events).
public struct DocumentWatch: ProtocolOperation {
    public static let name = "document.watch"

    public var path: String

    public init(path: String) { self.path = path }
    public init(_ request: FieldReader) throws(ProtocolError) { path = try request.string("path") }
    public var fields: [String: JSONValue] { ["path": .string(path)] }

    public struct Result: OperationResult, Hashable {
        /// The watch's number: its events and `document.unwatch` name it.
        public var watch: Int
        public var path: String
        /// Whether a connection holds the item's lock now, and whether it is this one.
        public var locked: Bool
        public var yours: Bool
        public var etag: ItemETag?

        public init(watch: Int, path: String, locked: Bool, yours: Bool, etag: ItemETag?) {
            self.watch = watch
            self.path = path
            self.locked = locked
            self.yours = yours
            self.etag = etag
        }

        public var json: JSONValue {
            .object(["watch": .integer(Int64(watch)), "path": .string(path), "locked": .bool(locked), "yours": .bool(yours),
                     "etag": etag.json])
        }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "document.watch result")
            watch = try reader.int("watch")
            path = try reader.string("path")
            locked = try reader.bool("locked")
            yours = try reader.optionalBool("yours") ?? false
            etag = try reader.optionalString("etag").map(ItemETag.init)
        }
    }
}
