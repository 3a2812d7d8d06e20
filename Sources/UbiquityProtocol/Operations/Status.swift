public import UbiquityJSON

/// `status`: the daemon's health (items, watches, overflows, degraded conditions...).
public struct Status: ProtocolOperation {
    public typealias Result = StatusResult
    public static let name = "status"

    public init() {}
    public init(_ request: FieldReader) {}
    public var fields: [String: JSONValue] { [:] }
}
