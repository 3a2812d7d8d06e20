import UbiquityProtocol

extension KVSubscribe: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let context = session.context, connection = session.connection, outbox = session.outbox
        let (resolved, store) = try session.keyValueStore(container)
        let number = context.keyValue.nextSubscription()
        try await store.subscribe(KeyValueSubscriber(store: number, connection: connection, outbox: outbox))
        session.keyValueSubscriptions[number] = resolved.descriptor.id.rawValue
        return Result(store: number, container: resolved.descriptor.id.rawValue)
    }
}
