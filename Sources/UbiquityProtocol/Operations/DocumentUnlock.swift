public import UbiquityJSON

/// `document.unlock`: gives a lock of this connection back.
public struct DocumentUnlock: ProtocolOperation {
    public static let name = "document.unlock"

    public var lock: Int

    public init(lock: Int) { self.lock = lock }
    public init(_ request: FieldReader) throws(ProtocolError) { lock = try request.int("lock") }
    public var fields: [String: JSONValue] { ["lock": .integer(Int64(lock))] }

    public struct Result: OperationResult, Hashable {
        public var lock: Int
        /// The item's etag now (after the save the lock guarded); nil when nothing is there.
        public var etag: ItemETag?

        public init(lock: Int, etag: ItemETag?) {
            self.lock = lock
            self.etag = etag
        }

        public var json: JSONValue { .object(["lock": .integer(Int64(lock)), "unlocked": .bool(true), "etag": etag.json]) }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "document.unlock result")
            lock = try reader.int("lock")
            etag = try reader.optionalString("etag").map(ItemETag.init)
        }
    }
}
