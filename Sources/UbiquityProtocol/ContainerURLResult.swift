public import UbiquityJSON

/// `container.url`'s result.
public struct ContainerURLResult: OperationResult, Hashable {
    public var container: String
    /// The container directory (what `URLForUbiquityContainerIdentifier` returns).
    public var path: String
    /// `path/Documents`, created on demand.
    public var documents: String

    public init(container: String, path: String, documents: String) {
        self.container = container
        self.path = path
        self.documents = documents
    }

    public var json: JSONValue {
        .object(["container": .string(container), "path": .string(path), "documents": .string(documents),
                 "url": .string("file://" + path + "/")])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "container.url result")
        container = try reader.string("container")
        path = try reader.string("path")
        documents = try reader.string("documents")
    }
}
