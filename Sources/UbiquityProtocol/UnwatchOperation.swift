public import UbiquityJSON

/// An operation that ends one watch of the connection by its number (`document.unwatch`,
/// `store.unwatch`): `watch` is its one parameter, and it answers ``UnwatchResult``.
public protocol UnwatchOperation: ProtocolOperation where Result == UnwatchResult {
    var watch: Int { get }
    init(watch: Int)
}

extension UnwatchOperation {
    public init(_ request: FieldReader) throws(ProtocolError) { self.init(watch: try request.int("watch")) }
    public var fields: [String: JSONValue] { ["watch": .integer(Int64(watch))] }
}
