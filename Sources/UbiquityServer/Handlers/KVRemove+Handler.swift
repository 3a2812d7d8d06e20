import UbiquityProtocol

extension KVRemove: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let (resolved, store) = try session.keyValueStore(container)
        let existed = try await store.write(nil, forKey: key, connection: session.connection)
        return Result(container: resolved.descriptor.id.rawValue, key: key, removed: existed)
    }
}
