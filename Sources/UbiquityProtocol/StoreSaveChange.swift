public import UbiquityJSON

/// One change of a `store.save` transaction, as the client sends it. Values stay JSON until the
/// daemon reads them by their columns' types (``StoreWire/value(_:of:)``).
public enum StoreSaveChange: Sendable, Hashable {
    /// `{"insert":"items","id":…,"values":{…}}`: `id` may be left out (the daemon makes one at
    /// random, or derives it from the key of a table unique by meaning).
    case insert(table: String, id: String?, values: [String: JSONValue])
    /// `{"update":"items","id":…,"values":{…}}`.
    case update(table: String, id: String, values: [String: JSONValue])
    /// `{"delete":"items","id":…}`.
    case delete(table: String, id: String)
    /// `{"relate":"tags","from":…,"to":…}`.
    case relate(relationship: String, from: String, to: String)
    /// `{"unrelate":"tags","from":…,"to":…}`.
    case unrelate(relationship: String, from: String, to: String)

    static let kinds = ["insert", "update", "delete", "relate", "unrelate"]

    public init(json: JSONValue, context: String) throws(ProtocolError) {
        let reader = try FieldReader(json, context: context)
        let present = Self.kinds.filter { reader.has($0) }
        guard present.count == 1, let kind = present.first else {
            throw .malformed("\(context) must name exactly one of \(Self.kinds.joined(separator: ", ")) (the table or relationship)", field: "changes")
        }
        let name = try reader.string(kind)
        switch kind {
        case "insert": self = .insert(table: name, id: try reader.optionalString("id"), values: try reader.optionalObject("values") ?? [:])
        case "update": self = .update(table: name, id: try reader.string("id"), values: try reader.optionalObject("values") ?? [:])
        case "delete": self = .delete(table: name, id: try reader.string("id"))
        case "relate": self = .relate(relationship: name, from: try reader.string("from"), to: try reader.string("to"))
        default: self = .unrelate(relationship: name, from: try reader.string("from"), to: try reader.string("to"))
        }
    }

    public var json: JSONValue {
        switch self {
        case .insert(let table, let id, let values):
            .object(["insert": .string(table), "values": .object(values)].adding("id", id))
        case .update(let table, let id, let values): .object(["update": .string(table), "id": .string(id), "values": .object(values)])
        case .delete(let table, let id): .object(["delete": .string(table), "id": .string(id)])
        case .relate(let r, let from, let to): .object(["relate": .string(r), "from": .string(from), "to": .string(to)])
        case .unrelate(let r, let from, let to): .object(["unrelate": .string(r), "from": .string(from), "to": .string(to)])
        }
    }
}
