public import UbiquityJSON

/// `store.describe`: a store's schema in force and how far each device's log is imported.
public struct StoreDescribe: ProtocolOperation {
    public static let name = "store.describe"
    public typealias Result = StoreDescription

    /// nil: the default container.
    public var container: String?
    public var store: String

    public init(container: String? = nil, store: String) {
        self.container = container
        self.store = store
    }

    public init(_ request: FieldReader) throws(ProtocolError) {
        container = try request.optionalString("container")
        store = try request.string("store")
    }

    public var fields: [String: JSONValue] { ["store": .string(store)].adding("container", container) }
}
