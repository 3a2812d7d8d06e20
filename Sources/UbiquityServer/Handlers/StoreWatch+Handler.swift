import UbiquityProtocol

extension StoreWatch: SessionOperation {
    /// Answers the live fetch's number; its rows are owed once the answer is written, so that
    /// `store.gatheringFinished` never comes before it (``Session/Outcome/afterResponse``).
    func respond(to id: RequestID, in session: Session) async throws -> Session.Outcome {
        let container = try session.storeContainer(fetch.container)
        let stores = session.context.stores, limit = stores.limits.maxLiveFetchesPerConnection
        guard session.liveFetches.count < limit else {
            throw ProtocolError(.serverBusy, "this connection holds \(limit) live fetches, its limit; end some with store.unwatch",
                                details: ["limit": .integer(Int64(limit))])
        }
        let store = try await session.knownStore(fetch.store, of: container)
        // Checked now, so that a bad table or column is this request's error, not an event's.
        _ = try await store.checked(fetch)
        let watch = stores.nextHandle(), outbox = session.outbox
        let access = QueryAccess(registry: session.context.registry, peer: session.peer, containers: [container.descriptor.id])
        outbox.add(liveFetch: watch, LiveFetch(store: store, access: access))
        session.liveFetches[watch] = store
        var outcome = Session.Outcome(response: Response(id: id, result: Result(watch: watch).json))
        outcome.afterResponse = { await store.watch(watch, request: fetch, outbox: outbox) }
        return outcome
    }
}
