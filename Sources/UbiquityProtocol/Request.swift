public import UbiquityPredicate

/// One request line: `{"id": 1, "op": "query.start", ...parameters}`.
public struct Request: Sendable, Hashable {
    public var id: RequestID
    public var operation: Operation

    public init(id: RequestID, _ operation: Operation) {
        self.id = id
        self.operation = operation
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
            self.operation = try Request.operation(reader)
        } catch {
            throw PartialRequestError(id: id, error: error)
        }
    }

    private static func operation(_ reader: FieldReader) throws(ProtocolError) -> Operation {
        let op = try reader.string("op")
        let names = Operation.names.self
        switch op {
        case names.hello: return .hello(version: try reader.int("version"), client: try reader.optionalString("client"))
        case names.containersList: return .containersList
        case names.containerURL: return .containerURL(container: try reader.optionalString("container"))
        case names.queryStart: return .queryStart(try QueryParameters(reader))
        case names.queryResults: return .queryResults(query: try reader.int("query"))
        case names.queryDisableUpdates: return .queryDisableUpdates(query: try reader.int("query"))
        case names.queryEnableUpdates: return .queryEnableUpdates(query: try reader.int("query"))
        case names.queryStop: return .queryStop(query: try reader.int("query"))
        case names.queryRelease: return .queryRelease(query: try reader.int("query"))
        case names.status: return .status
        case names.versionsList: return .versionsList(path: try reader.string("path"))
        case names.documentLock: return .documentLock(path: try reader.string("path"))
        case names.documentUnlock: return .documentUnlock(lock: try reader.int("lock"))
        case names.documentWatch: return .documentWatch(path: try reader.string("path"))
        case names.documentUnwatch: return .documentUnwatch(watch: try reader.int("watch"))
        case names.kvGet: return .kvGet(container: try reader.optionalString("container"), key: try reader.string("key"))
        case names.kvSet:
            return .kvSet(container: try reader.optionalString("container"), key: try reader.string("key"),
                          value: try reader.value("value"))
        case names.kvRemove: return .kvRemove(container: try reader.optionalString("container"), key: try reader.string("key"))
        case names.kvAll: return .kvAll(container: try reader.optionalString("container"))
        case names.kvSynchronize: return .kvSynchronize(container: try reader.optionalString("container"))
        case names.kvSubscribe: return .kvSubscribe(container: try reader.optionalString("container"))
        case names.kvUnsubscribe: return .kvUnsubscribe(store: try reader.int("store"))
        default:
            if let instead = names.retired[op] {
                throw ProtocolError(.requestUnknownOperation, "operation '\(op)' was removed; \(instead)", details: ["op": .string(op)])
            }
            let hint = NameSuggestion.nearest(to: op, in: names.all).map { "; did you mean '\($0)'?" } ?? ""
            throw ProtocolError(.requestUnknownOperation, "unknown operation '\(op)'\(hint)",
                                details: ["op": .string(op)])
        }
    }

    public var json: JSONValue {
        var object: [String: JSONValue]
        switch operation {
        case .hello(let version, let client):
            object = ["version": .integer(Int64(version))]
            if let client { object["client"] = .string(client) }
        case .containersList, .status: object = [:]
        case .containerURL(let container):
            object = [:]
            if let container { object["container"] = .string(container) }
        case .queryStart(let parameters): object = parameters.fields
        case .queryResults(let q), .queryDisableUpdates(let q), .queryEnableUpdates(let q),
             .queryStop(let q), .queryRelease(let q):
            object = ["query": .integer(Int64(q))]
        case .versionsList(let path), .documentLock(let path), .documentWatch(let path):
            object = ["path": .string(path)]
        case .documentUnlock(let lock): object = ["lock": .integer(Int64(lock))]
        case .documentUnwatch(let watch): object = ["watch": .integer(Int64(watch))]
        case .kvGet(let container, let key), .kvRemove(let container, let key):
            object = ["key": .string(key)]
            if let container { object["container"] = .string(container) }
        case .kvSet(let container, let key, let value):
            object = ["key": .string(key), "value": value]
            if let container { object["container"] = .string(container) }
        case .kvAll(let container), .kvSynchronize(let container), .kvSubscribe(let container):
            object = [:]
            if let container { object["container"] = .string(container) }
        case .kvUnsubscribe(let store): object = ["store": .integer(Int64(store))]
        }
        object["id"] = id.json
        object["op"] = .string(operation.name)
        return .object(object)
    }
}
