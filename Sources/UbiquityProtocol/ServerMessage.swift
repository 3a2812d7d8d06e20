public import UbiquityPredicate

/// A server line is either a response (it has `id`) or an event (it has `event`).
public enum ServerMessage: Sendable, Hashable {
    case response(Response)
    case event(ServerEvent)

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "message")
        if reader.object["event"] != nil { self = .event(try ServerEvent(json: json)) }
        else { self = .response(try Response(json: json)) }
    }

    public var json: JSONValue {
        switch self {
        case .response(let r): r.json
        case .event(let e): e.json
        }
    }
}
