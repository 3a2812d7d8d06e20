public import UbiquityJSON

/// An operation on a container's key-value store as a whole (docs/kv-store.md): its only
/// parameter is `container`, nil for the default one.
public protocol KeyValueStoreOperation: ProtocolOperation {
    var container: String? { get }
    init(container: String?)
}

extension KeyValueStoreOperation {
    public init(_ request: FieldReader) throws(ProtocolError) { self.init(container: try request.optionalString("container")) }
    public var fields: [String: JSONValue] { [:].adding("container", container) }
}
