public import UbiquityJSON

/// An operation on one key of a container's key-value store: `container` (nil: the default one)
/// and `key` are its parameters.
public protocol KeyValueKeyOperation: ProtocolOperation {
    var container: String? { get }
    var key: String { get }
    init(container: String?, key: String)
}

extension KeyValueKeyOperation {
    public init(_ request: FieldReader) throws(ProtocolError) {
        self.init(container: try request.optionalString("container"), key: try request.string("key"))
    }

    public var fields: [String: JSONValue] { ["key": .string(key)].adding("container", container) }
}
