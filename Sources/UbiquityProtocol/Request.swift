public import UbiquityJSON

/// One request line: `{"id": 1, "op": "query.start", ...parameters}`.
public struct Request: Sendable, Hashable {
    public var id: RequestID
    public var operation: any ProtocolOperation

    public init(id: RequestID, _ operation: some ProtocolOperation) {
        self.id = id
        self.operation = operation
    }

    public static func == (a: Request, b: Request) -> Bool {
        a.id == b.id && AnyHashable(a.operation) == AnyHashable(b.operation)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(AnyHashable(operation))
    }

    /// Reads a decoded line. Errors carry the request id when it could be read, so the server can
    /// answer the right request (``PartialRequestError``).
    public init(json: JSONValue) throws(PartialRequestError) {
        guard case .object(let object) = json else {
            throw PartialRequestError(id: nil, error: .malformed("a request must be a JSON object, found \(json.kindNoun)"))
        }
        guard let rawID = object["id"] else {
            throw PartialRequestError(id: nil, error: .malformed("field 'id' is missing: every request needs an id (a number or a string)", field: "id"))
        }
        guard let id = RequestID(json: rawID) else {
            throw PartialRequestError(id: nil, error: .malformed("field 'id' must be a whole number or a string, found \(rawID.kindNoun)", field: "id"))
        }
        do throws(ProtocolError) {
            let reader = try FieldReader(json, context: "request")
            self.id = id
            self.operation = try Operations.operation(reader)
        } catch {
            throw PartialRequestError(id: id, error: error)
        }
    }

    public var json: JSONValue {
        var object = operation.fields
        object["id"] = id.json
        object["op"] = .string(operation.name)
        return .object(object)
    }
}
