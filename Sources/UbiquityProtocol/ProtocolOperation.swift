public import UbiquityJSON

/// One operation of the protocol (docs/protocol.md): its `op` name, its parameters and its result,
/// declared together in one file under `Operations/`, named after the type; the build lists the
/// folder as ``Operations/all``. Parsing a request, encoding one, the list of names and the error for
/// an unknown operation all derive from that list; the daemon answers each through its handler (`UbiquityServer/Handlers/`).
public protocol ProtocolOperation: Sendable, Hashable {
    /// What the daemon answers: encoded by the daemon, decoded by clients.
    associatedtype Result: OperationResult
    /// The `op` string on the wire.
    static var name: String { get }
    /// Reads the parameters of a request (its `id` and `op` are read already).
    init(_ request: FieldReader) throws(ProtocolError)
    /// The parameters as the request's fields, without `id` and `op`.
    var fields: [String: JSONValue] { get }
}

extension ProtocolOperation {
    /// The `op` string on the wire.
    public var name: String { Self.name }
}
