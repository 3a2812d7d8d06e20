import UbiquityIndex
import UbiquityProtocol

extension QueryStart: SessionOperation {
    /// Answers and hands the query to the connection's outbox (``Session/Outcome/startedQuery``).
    func respond(to requestID: RequestID, in session: Session) async throws -> Session.Outcome {
        let context = session.context, peer = session.peer
        guard session.queries.count < context.limits.maxQueriesPerConnection else {
            throw ProtocolError(.serverBusy,
                "this connection holds \(session.queries.count) queries, the limit is \(context.limits.maxQueriesPerConnection): release some with query.release",
                details: ["limit": .integer(Int64(context.limits.maxQueriesPerConnection))])
        }
        let containers = try context.registry.containers(named: parameters.containers, for: peer)
        let specification = try WireTranslation.specification(parameters, containers: containers,
                                                              defaultBatching: context.defaultBatching,
                                                              limits: context.limits)
        let since = try parameters.since.map { token in
            guard let clock = HistoryClock(token: token) else {
                throw ProtocolError.malformed("'since' is not a clock token (one from a 'clock' field of this daemon's answers)",
                                              field: "since")
            }
            return clock
        }
        try context.budget.reserveQuery(for: peer.uid, limit: context.limits.maxQueriesPerPeer)
        let id: QueryID
        do {
            id = try await context.engine.start(specification, since: since)
            // The count alone: building every result here cost as much as encoding them.
            let gathered = try await context.engine.resultCount(id)
            do { try context.budget.hold(gathered, for: peer.uid, limit: context.limits.maxResultItemsPerPeer) } catch {
                await context.engine.release(id)
                throw error
            }
            session.heldItems[id] = gathered
        } catch {
            context.budget.release(for: peer.uid, items: 0)
            throw error
        }
        session.queries[id] = parameters
        session.queryContainers[id] = containers.map(\.descriptor.id)
        let encoder = WireTranslation.encoder(attributes: specification.attributes)
        session.encoders[id] = encoder
        context.logger.info("query started", metadata: [
            "query": "\(id)", "peer_uid": "\(peer.uid)", "predicate": "\(specification.predicate)",
            "container": "\(containers.map(\.descriptor.id.rawValue).joined(separator: ","))",
        ])
        return Session.Outcome(response: Response(id: requestID, result: Result(query: Int(truncatingIfNeeded: id)).json),
                               startedQuery: Session.StartedQuery(id: id, live: parameters.live,
                                                                  containers: containers.map(\.descriptor.id), encoder: encoder))
    }
}
