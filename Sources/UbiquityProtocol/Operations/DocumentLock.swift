public import UbiquityJSON

/// `document.lock`: takes the coordinated-write lock of an item (docs/versions.md): until
/// `document.unlock` or the connection closes, no other coordinated writer may save it.
public struct DocumentLock: ProtocolOperation {
    public static let name = "document.lock"

    public var path: String

    public init(path: String) { self.path = path }
    public init(_ request: FieldReader) throws(ProtocolError) { path = try request.string("path") }
    public var fields: [String: JSONValue] { ["path": .string(path)] }

    public struct Result: OperationResult, Hashable {
        /// The lock's number, for `document.unlock`.
        public var lock: Int
        public var path: String
        /// The item's etag when the lock was taken; nil when nothing is there yet.
        public var etag: ItemETag?

        public init(lock: Int, path: String, etag: ItemETag?) {
            self.lock = lock
            self.path = path
            self.etag = etag
        }

        public var json: JSONValue { .object(["lock": .integer(Int64(lock)), "path": .string(path), "etag": etag.json]) }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "document.lock result")
            lock = try reader.int("lock")
            path = try reader.string("path")
            etag = try reader.optionalString("etag").map(ItemETag.init)
        }
    }
}
