public import UbiquityJSON

/// `hello`: must come first. `version` is the protocol version the client speaks; the answer says
/// who the daemon is, its limits, and who it thinks the client is.
public struct Hello: ProtocolOperation {
    public typealias Result = HelloResult
    public static let name = "hello"

    public var version: Int
    /// Shown in the daemon's log, e.g. `ubiq`.
    public var client: String?

    public init(version: Int = WireProtocol.version, client: String? = nil) {
        self.version = version
        self.client = client
    }

    public init(_ request: FieldReader) throws(ProtocolError) {
        version = try request.int("version")
        client = try request.optionalString("client")
    }

    public var fields: [String: JSONValue] { ["version": .integer(Int64(version))].adding("client", client) }
}
