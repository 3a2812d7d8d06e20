public import UbiquityPredicate

/// A server line is either a response (it has `id`) or an event (it has `event`).
public enum ServerMessage: Sendable, Hashable {
    case response(Response)
    case event(ServerEvent)
    /// `kv.changed`: keys of a subscribed key-value store changed elsewhere.
    case keyValueChanged(KeyValueChange)
    /// An event this client does not know (a newer server's): ignored, as the protocol asks.
    case unknownEvent(name: String, json: JSONValue)

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "message")
        if let event = reader.object["event"] {
            if event == .string(KeyValueChange.name) { self = .keyValueChanged(try KeyValueChange(json: json)) }
            else if case .string(let name) = event, !ServerEvent.names.all.contains(name) { self = .unknownEvent(name: name, json: json) }
            else { self = .event(try ServerEvent(json: json)) }
        }
        else { self = .response(try Response(json: json)) }
    }

    public var json: JSONValue {
        switch self {
        case .response(let r): r.json
        case .event(let e): e.json
        case .keyValueChanged(let c): c.json
        case .unknownEvent(_, let json): json
        }
    }
}
