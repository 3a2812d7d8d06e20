import UbiquityIndex
import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol

/// Between the engine's types and the wire's: one place, so every session speaks alike.
enum WireTranslation {
    /// Builds the engine's query from a request, checking every name.
    ///
    /// - Throws: `predicate.*` with the offset, `query.invalidSort`, `query.unknownAttribute`.
    static func specification(_ parameters: QueryParameters, containers: [ResolvedContainer],
                              defaultBatching: Duration, limits: ServerLimits) throws -> QuerySpecification {
        // Checked first: every sort key's value is kept per result, so their number is memory.
        guard parameters.sort.count <= limits.maxSortKeys else {
            throw ProtocolError(.sortInvalid, "\(parameters.sort.count) sort keys; a query may name at most \(limits.maxSortKeys)",
                                details: ["limit": .integer(Int64(limits.maxSortKeys))])
        }
        guard parameters.attributes.count <= limits.maxAttributes else {
            throw ProtocolError.malformed("'attributes' has \(parameters.attributes.count) entries; a query may name at most \(limits.maxAttributes)",
                                          field: "attributes", limit: limits.maxAttributes)
        }
        var variables: [String: Value] = [:]
        for (name, value) in parameters.variables { variables[name] = Value(json: value) }
        // A predicate error is client-facing as it is: its own code, offset and sentence.
        let predicate = try MetadataPredicate(parsing: parameters.predicate,
                                              arguments: parameters.arguments.map(Value.init(json:)),
                                              variables: variables)
        var sort: [MetadataSortDescriptor] = []
        for key in parameters.sort {
            do { sort.append(try MetadataSortDescriptor(parsing: key)) } catch {
                throw ProtocolError(.sortInvalid, "sort key '\(key)': \(error.description)", details: ["sort": .string(key)])
            }
        }
        var attributes: [Attribute] = []
        for name in parameters.attributes {
            guard let attribute = Attribute.named(name) else {
                let hint = Attribute.suggestion(for: name).map { "; did you mean '\($0)'?" } ?? ""
                throw ProtocolError(.attributeUnknown, "unknown attribute '\(name)' in 'attributes'\(hint)",
                                    details: ["attribute": .string(name)])
            }
            if !attributes.contains(attribute) { attributes.append(attribute) }
        }
        if attributes.isEmpty { attributes = [.name] }
        let batching = parameters.batchingInterval.map { Duration.milliseconds(Int64(($0 * 1000).rounded())) } ?? defaultBatching
        var scopes = Set<Scope>()
        for scope in parameters.scopes {
            switch scope {
            case .documents: scopes.insert(.documents)
            case .data: scopes.insert(.data)
            }
        }
        return QuerySpecification(predicate: predicate, containers: Set(containers.map(\.descriptor.id)), scopes: scopes,
                                  sort: sort, attributes: attributes, batchingInterval: batching, live: parameters.live,
                                  changes: parameters.changes == .requested ? .requested : .all,
                                  freshness: parameters.freshness == .saved ? .saved : .exact)
    }

    /// Writes a query's results straight into bytes (docs/architecture.md, the data flow, step 7).
    ///
    /// - Parameter attributes: The query's attributes (``QuerySpecification/attributes``).
    static func encoder(attributes: [Attribute]) -> ResultEncoder<ResultItem> {
        ResultEncoder(attributes: attributes) { ResultFields(path: $0.path, oldPath: $0.oldPath, values: $0.values) }
    }

    /// The line of an engine event: whole result sets through `encoder`, written in pieces;
    /// other events with items through `encoder`, the rest through their ``ServerEvent``. Nil
    /// for `accessChanged`, which the server acts on itself.
    static func line(_ event: QueryEvent, query: Int, encoder: ResultEncoder<ResultItem>) -> OutgoingLine? {
        switch event {
        case .gatheringFinished(let results, let clock, let since, let verified):
            switch since {
            case nil:
                .results(encoder.gatheringFinished(query: query, rows: EngineRows(results), fresh: nil, clock: clock?.token,
                                                   verified: verified))
            case .fresh(let reason)?:
                .results(encoder.gatheringFinished(query: query, rows: EngineRows(results),
                                                   fresh: FreshAnswer(code: reason.code, reason: reason.sentence), clock: clock?.token,
                                                   verified: verified))
            case .changes(let delta, let since)?:
                .bytes(encoder.gatheringFinished(query: query, since: since.token, added: delta.added, changed: delta.changed,
                                                 removed: delta.removed, count: results.count, clock: clock?.token, verified: verified))
            }
        case .update(let delta):
            .bytes(encoder.update(query: query, added: delta.added, changed: delta.changed, removed: delta.removed, clock: delta.clock?.token))
        case .reset(let results, let clock):
            .results(encoder.reset(query: query, rows: EngineRows(results), clock: clock?.token))
        default:
            self.event(event, query: query).map { .bytes(JSONLine.encodeLine($0.json)) }
        }
    }

    /// The wire form of an engine event without results; nil for the events with results
    /// (``line(_:query:encoder:)`` writes those) and for `accessChanged`. A notice's `reason` is
    /// its own (``ChangeNotice/reason``), worded nowhere else.
    private static func event(_ event: QueryEvent, query: Int) -> ServerEvent? {
        switch event {
        case .gatheringStarted: .gatheringStarted(query: query)
        case .gatheringProgress(let count): .gatheringProgress(query: query, count: count)
        case .verified: .verified(query: query)
        case .gatheringFinished, .update, .reset: nil
        case .notice(let notice, let changes):
            switch notice {
            case .resync(let container, _):
                .resync(query: query, container: container.rawValue, reason: notice.reason, changes: changes)
            case .subtreeUnwatched(let subtree):
                .unwatched(query: query, container: subtree.container.rawValue, path: subtree.path.joined(separator: "/"),
                           reason: notice.reason)
            case .containerUnavailable(let container):
                .containerUnavailable(query: query, container: container.rawValue, reason: notice.reason)
            case .containerAvailable(let container): .containerAvailable(query: query, container: container.rawValue)
            case .accessChanged, .subtreeWatched, .subtreeGone, .skipped: nil
            }
        }
    }

    /// `query.stopped` for a query that was not live, once its gathering is read.
    static func notLive(query: Int) -> OutgoingLine {
        .bytes(JSONLine.encodeLine(ServerEvent.stopped(query: query, reason: "gathering finished and the query is not live").json))
    }

    /// `container.forbidden`: the peer may no longer read a container of the query, which stops
    /// (it follows an `accessChanged` notice, whose wording it gives).
    static func forbidden(query: Int, container: ContainerID, uid: UInt32) -> OutgoingLine {
        let why = ChangeNotice.accessChanged(container).reason
        return .bytes(JSONLine.encodeLine(ServerEvent.containerForbidden(query: query, container: container.rawValue,
            reason: "uid \(uid) may no longer read this container (\(why)); the query is stopped").json))
    }
}

/// An engine result set as the rows the encoder reads: here, where the index and the wire meet,
/// because neither module knows the other.
struct EngineRows: ResultRows, Sendable {
    let results: ResultSet
    let columns: ResultColumns
    let textNeedsNoEscaping: Bool

    init(_ results: ResultSet) {
        self.results = results
        // The set's buffers, shared, not copied.
        columns = ResultColumns(directoryBytes: results.directoryBytes, directoryEnds: results.directoryEnds,
                                nameBytes: results.nameBytes, nameStarts: results.nameStarts, nameEnds: results.nameEnds,
                                rowDirectories: results.itemDirectories)
        textNeedsNoEscaping = !columns.mayNeedEscaping
    }

    var namesFromPaths: Bool { results.namesFromPaths }

    func value(_ i: Int, _ attribute: Attribute) -> Value? { results.value(i, attribute) }
}
