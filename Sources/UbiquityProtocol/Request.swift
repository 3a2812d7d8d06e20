public import UbiquityPredicate

/// A request's `id`: a number or a string, echoed unchanged in its response.
public enum RequestID: Sendable, Hashable, CustomStringConvertible {
    case number(Int64)
    case text(String)

    public var json: JSONValue {
        switch self {
        case .number(let n): .integer(n)
        case .text(let s): .string(s)
        }
    }

    public init?(json: JSONValue) {
        switch json {
        case .integer(let n): self = .number(n)
        case .string(let s): self = .text(s)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .number(let n): String(n)
        case .text(let s): s
        }
    }
}

/// Which part of a container a query looks at.
public enum WireScope: String, Sendable, Hashable, CaseIterable {
    case documents
    case data
}

/// What `query.start` asks for (docs/protocol.md, `query.start`). Names and values are checked by the server, which
/// knows the attributes and containers; this type only checks shapes.
public struct QueryParameters: Sendable, Hashable {
    /// Container ids; empty means every container the peer may read.
    public var containers: [String] = []
    public var scopes: Set<WireScope> = Set(WireScope.allCases)
    /// NSPredicate / Spotlight text, e.g. `kMDItemFSName LIKE 'Item_*'`.
    public var predicate: String
    /// Values for `%@`, `%K`, `%d`, `%f`, in order.
    public var arguments: [JSONValue] = []
    /// Values for `$NAME`.
    public var variables: [String: JSONValue] = [:]
    /// Sort keys: `name`, `kMDItemFSSize:desc`, ... Ties are broken by path.
    public var sort: [String] = []
    /// Attributes each result carries (its path always comes along); empty means `kMDItemFSName`.
    public var attributes: [String] = []
    /// Seconds between updates; nil means the server's default, 0 means as soon as possible.
    public var batchingInterval: Double?
    /// False: gather once, then the query stops by itself.
    public var live: Bool = true

    public init(predicate: String) { self.predicate = predicate }

    public init(
        predicate: String, containers: [String] = [], scopes: Set<WireScope> = Set(WireScope.allCases),
        arguments: [JSONValue] = [], variables: [String: JSONValue] = [:], sort: [String] = [],
        attributes: [String] = [], batchingInterval: Double? = nil, live: Bool = true
    ) {
        self.predicate = predicate
        self.containers = containers
        self.scopes = scopes
        self.arguments = arguments
        self.variables = variables
        self.sort = sort
        self.attributes = attributes
        self.batchingInterval = batchingInterval
        self.live = live
    }

    init(_ reader: FieldReader) throws(ProtocolError) {
        predicate = try reader.string("predicate")
        if reader.has("container") && reader.has("containers") {
            throw .malformed("give either 'container' or 'containers', not both", field: "containers")
        }
        if let many = try reader.optionalStrings("containers", orSingle: true) {
            containers = many
        } else if let one = try reader.optionalString("container") {
            containers = [one]
        }
        var scopeNames = try reader.optionalStrings("scope", orSingle: true)
        if scopeNames == nil { scopeNames = try reader.optionalStrings("scopes", orSingle: true) }
        if let names = scopeNames {
            var scopes = Set<WireScope>()
            for name in names {
                if name == "all" { scopes.formUnion(WireScope.allCases); continue }
                guard let scope = WireScope(rawValue: name) else {
                    throw .malformed("unknown scope '\(name)': use documents, data or all", field: "scope")
                }
                scopes.insert(scope)
            }
            guard !scopes.isEmpty else { throw .malformed("'scope' is empty: use documents, data or all", field: "scope") }
            self.scopes = scopes
        }
        arguments = try reader.optionalArray("arguments") ?? []
        variables = try reader.optionalObject("variables") ?? [:]
        sort = try reader.optionalStrings("sort", orSingle: true) ?? []
        attributes = try reader.optionalStrings("attributes", orSingle: true) ?? []
        if let interval = try reader.optionalDouble("batchingInterval") {
            guard interval >= 0, interval <= 3600, interval.isFinite else {
                throw .malformed("'batchingInterval' must be between 0 and 3600 seconds, found \(interval)",
                                 field: "batchingInterval")
            }
            batchingInterval = interval
        }
        live = try reader.optionalBool("live") ?? true
    }

    var fields: [String: JSONValue] {
        var object: [String: JSONValue] = ["predicate": .string(predicate), "live": .bool(live)]
        if !containers.isEmpty { object["containers"] = .array(containers.map(JSONValue.string)) }
        if scopes != Set(WireScope.allCases) {
            object["scope"] = .array(scopes.map(\.rawValue).sorted().map(JSONValue.string))
        }
        if !arguments.isEmpty { object["arguments"] = .array(arguments) }
        if !variables.isEmpty { object["variables"] = .object(variables) }
        if !sort.isEmpty { object["sort"] = .array(sort.map(JSONValue.string)) }
        if !attributes.isEmpty { object["attributes"] = .array(attributes.map(JSONValue.string)) }
        if let batchingInterval { object["batchingInterval"] = .double(batchingInterval) }
        return object
    }
}

/// Every operation a client can ask for, with its parameters.
public enum Operation: Sendable, Hashable {
    /// Must come first. `version` is the protocol version the client speaks.
    case hello(version: Int, client: String?)
    case containersList
    /// nil: the first configured container the peer may read (`URLForUbiquityContainerIdentifier(nil)`).
    case containerURL(container: String?)
    case queryStart(QueryParameters)
    case queryResults(query: Int)
    case queryDisableUpdates(query: Int)
    case queryEnableUpdates(query: Int)
    /// No more events; results stay readable until `query.release` or the connection closes.
    case queryStop(query: Int)
    case queryRelease(query: Int)
    case status

    /// The `op` string on the wire.
    public var name: String {
        switch self {
        case .hello: Operation.names.hello
        case .containersList: Operation.names.containersList
        case .containerURL: Operation.names.containerURL
        case .queryStart: Operation.names.queryStart
        case .queryResults: Operation.names.queryResults
        case .queryDisableUpdates: Operation.names.queryDisableUpdates
        case .queryEnableUpdates: Operation.names.queryEnableUpdates
        case .queryStop: Operation.names.queryStop
        case .queryRelease: Operation.names.queryRelease
        case .status: Operation.names.status
        }
    }

    /// The one list of operation names (docs, errors and "did you mean" read it).
    public enum names {
        public static let hello = "hello"
        public static let containersList = "containers.list"
        public static let containerURL = "container.url"
        public static let queryStart = "query.start"
        public static let queryResults = "query.results"
        public static let queryDisableUpdates = "query.disableUpdates"
        public static let queryEnableUpdates = "query.enableUpdates"
        public static let queryStop = "query.stop"
        public static let queryRelease = "query.release"
        public static let status = "status"
        public static let all = [hello, containersList, containerURL, queryStart, queryResults,
                                 queryDisableUpdates, queryEnableUpdates, queryStop, queryRelease, status]
    }
}

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
        default:
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
        }
        object["id"] = id.json
        object["op"] = .string(operation.name)
        return .object(object)
    }
}

/// A request that could not be read, with its id when the id itself was fine.
public struct PartialRequestError: Error, Sendable {
    public let id: RequestID?
    public let error: ProtocolError
}

