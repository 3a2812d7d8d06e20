import UbiquityJSON
import UbiquityProtocol

/// `store.watch` with the same fields as ``StoreFetchWire``.
struct StoreWatchWire: ProtocolOperation {
    static let name = StoreWatch.name
    typealias Result = StoreWatch.Result

    var wire: StoreFetchWire

    init(_ wire: StoreFetchWire) { self.wire = wire }
    init(_ request: FieldReader) throws(ProtocolError) { wire = try StoreFetchWire(request) }
    var fields: [String: JSONValue] { wire.fields }
}
