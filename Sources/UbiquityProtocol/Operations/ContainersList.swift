public import UbiquityJSON

/// `containers.list`: the containers the peer may read.
public struct ContainersList: ProtocolOperation {
    public static let name = "containers.list"

    public init() {}
    public init(_ request: FieldReader) {}
    public var fields: [String: JSONValue] { [:] }

    public struct Result: OperationResult, Hashable {
        public var containers: [ContainerInfo]

        public init(containers: [ContainerInfo]) { self.containers = containers }

        public var json: JSONValue { .object(["containers": .array(containers.map(\.json))]) }

        public init(json: JSONValue) throws(ProtocolError) {
            containers = try FieldReader(json, context: "containers.list result").list("containers") {
                (value, context) throws(ProtocolError) in try ContainerInfo(json: value, context: context)
            }
        }
    }
}
