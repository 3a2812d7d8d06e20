public import UbiquityJSON

/// The one answer to a request: `{"id": 1, "result": {...}}` or `{"id": 1, "error": {...}}`.
/// `id` is null only when the request's own id could not be read.
public struct Response: Sendable, Hashable {
    public var id: RequestID?
    public var outcome: Result<JSONValue, ProtocolError>

    public init(id: RequestID?, result: JSONValue) {
        self.id = id
        self.outcome = .success(result)
    }

    public init(id: RequestID?, error: ProtocolError) {
        self.id = id
        self.outcome = .failure(error)
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = ["id": id?.json ?? .null]
        switch outcome {
        case .success(let result): object["result"] = result
        case .failure(let error): object["error"] = error.json
        }
        return .object(object)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "response")
        id = RequestID(json: reader.object["id"] ?? .null)
        if reader.has("error") {
            outcome = .failure(try ProtocolError(json: try reader.value("error")))
        } else {
            outcome = .success(try reader.value("result"))
        }
    }
}
