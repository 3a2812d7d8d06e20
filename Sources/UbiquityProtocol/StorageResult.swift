public import UbiquityJSON

/// `storage`'s result: per container the peer may read, what its items take.
public struct StorageResult: OperationResult, Hashable {
    /// One container: items and bytes per scope, the largest documents, and the sync engine's view.
    public struct Container: Sendable, Hashable {
        public struct Largest: Sendable, Hashable {
            public var path: String
            public var size: Int64

            public init(path: String, size: Int64) {
                self.path = path
                self.size = size
            }
        }

        public struct Device: Sendable, Hashable {
            public var device: String
            public var connected: Bool
            public var needs: Int

            public init(device: String, connected: Bool, needs: Int) {
                self.device = device
                self.connected = connected
                self.needs = needs
            }
        }

        public var container: String
        public var documentsItems: Int
        public var documentsBytes: Int64
        public var dataItems: Int
        public var dataBytes: Int64
        public var largest: [Largest]
        /// Evicted items (placeholders) and the bytes of their last known sizes (`evicted`:
        /// `items`, `bytes`); 0 from a daemon that does not say.
        public var evictedItems: Int
        public var evictedBytes: Int64
        /// `none` (no sync engine shares it), `known`, or `unknown` (the engine cannot be asked now).
        public var sync: String
        public var devices: [Device]

        public init(container: String, documentsItems: Int, documentsBytes: Int64, dataItems: Int, dataBytes: Int64,
                    largest: [Largest], sync: String, devices: [Device], evictedItems: Int = 0, evictedBytes: Int64 = 0) {
            self.container = container
            self.documentsItems = documentsItems
            self.documentsBytes = documentsBytes
            self.dataItems = dataItems
            self.dataBytes = dataBytes
            self.largest = largest
            self.sync = sync
            self.devices = devices
            self.evictedItems = evictedItems
            self.evictedBytes = evictedBytes
        }

        public var json: JSONValue {
            .object([
                "container": .string(container),
                "documents": .object(["items": .integer(Int64(documentsItems)), "bytes": .integer(documentsBytes)]),
                "data": .object(["items": .integer(Int64(dataItems)), "bytes": .integer(dataBytes)]),
                "evicted": .object(["items": .integer(Int64(evictedItems)), "bytes": .integer(evictedBytes)]),
                "largest": .array(largest.map { .object(["path": .string($0.path), "size": .integer($0.size)]) }),
                "sync": .string(sync),
                "devices": .array(devices.map {
                    .object(["device": .string($0.device), "connected": .bool($0.connected), "needs": .integer(Int64($0.needs))])
                }),
            ])
        }

        init(json: JSONValue, context: String) throws(ProtocolError) {
            let reader = try FieldReader(json, context: context)
            container = try reader.string("container")
            let documents = try FieldReader(try reader.value("documents"), context: context + ".documents")
            documentsItems = try documents.int("items")
            documentsBytes = Int64(try documents.int("bytes"))
            let data = try FieldReader(try reader.value("data"), context: context + ".data")
            dataItems = try data.int("items")
            dataBytes = Int64(try data.int("bytes"))
            if let evicted = try reader.optionalObject("evicted") {
                let counts = try FieldReader(.object(evicted), context: context + ".evicted")
                evictedItems = try counts.int("items")
                evictedBytes = Int64(try counts.int("bytes"))
            } else {
                evictedItems = 0
                evictedBytes = 0
            }
            largest = try reader.list("largest") { (value, at) throws(ProtocolError) in
                let item = try FieldReader(value, context: at)
                return Largest(path: try item.string("path"), size: Int64(try item.int("size")))
            }
            sync = try reader.string("sync")
            devices = try reader.list("devices") { (value, at) throws(ProtocolError) in
                let device = try FieldReader(value, context: at)
                return Device(device: try device.string("device"), connected: try device.optionalBool("connected") ?? false,
                              needs: try device.int("needs"))
            }
        }
    }

    public var containers: [Container]

    public init(containers: [Container]) { self.containers = containers }

    public var json: JSONValue { .object(["containers": .array(containers.map(\.json))]) }

    public init(json: JSONValue) throws(ProtocolError) {
        containers = try FieldReader(json, context: "storage result").list("containers") { (value, context) throws(ProtocolError) in
            try Container(json: value, context: context)
        }
    }
}
