public import UbiquityJSON

/// The `result` of a response to one ``ProtocolOperation``.
public protocol OperationResult: Sendable {
    var json: JSONValue { get }
    init(json: JSONValue) throws(ProtocolError)
}
