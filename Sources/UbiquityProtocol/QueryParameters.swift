public import UbiquityJSON

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
    /// A `clock` from an earlier answer: the gathering answers with what changed since then.
    public var since: String?
    /// Which changes of a member item are a `changed`: nil or `all`, any change of its content or
    /// metadata; `requested`, only changes of the attributes the query asks for, sorts by or tests.
    public var changes: WireChangeReporting?
    /// How fresh the first answer must be: nil or `exact`, every change made before the query
    /// started; `saved`, after a restart at once from the saved index, then verified.
    public var freshness: WireFreshness?

    public init(predicate: String) { self.predicate = predicate }

    public init(
        predicate: String, containers: [String] = [], scopes: Set<WireScope> = Set(WireScope.allCases),
        arguments: [JSONValue] = [], variables: [String: JSONValue] = [:], sort: [String] = [],
        attributes: [String] = [], batchingInterval: Double? = nil, live: Bool = true, since: String? = nil,
        changes: WireChangeReporting? = nil, freshness: WireFreshness? = nil
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
        self.since = since
        self.changes = changes
        self.freshness = freshness
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
        since = try reader.optionalString("since")
        if let name = try reader.optionalString("changes") {
            guard let changes = WireChangeReporting(rawValue: name) else {
                throw .malformed("unknown value '\(name)' of 'changes': use all or requested", field: "changes")
            }
            self.changes = changes
        }
        if let name = try reader.optionalString("freshness") {
            guard let freshness = WireFreshness(rawValue: name) else {
                throw .malformed("unknown value '\(name)' of 'freshness': use exact or saved", field: "freshness")
            }
            self.freshness = freshness
        }
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
        if let since { object["since"] = .string(since) }
        if let changes { object["changes"] = .string(changes.rawValue) }
        if let freshness { object["freshness"] = .string(freshness.rawValue) }
        return object
    }
}
