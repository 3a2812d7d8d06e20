public import UbiquityJSON

/// `container.url`: a container's directory; the daemon creates `Documents/` in it on demand.
public struct ContainerURL: ProtocolOperation {
    public typealias Result = ContainerURLResult
    public static let name = "container.url"

    /// nil: the first configured container the peer may read (`URLForUbiquityContainerIdentifier(nil)`).
    public var container: String?

    public init(container: String? = nil) { self.container = container }
    public init(_ request: FieldReader) throws(ProtocolError) { container = try request.optionalString("container") }
    public var fields: [String: JSONValue] { [:].adding("container", container) }
}
