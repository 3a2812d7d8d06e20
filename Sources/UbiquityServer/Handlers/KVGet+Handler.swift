import UbiquityProtocol

extension KVGet: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let (resolved, store) = try session.keyValueStore(container)
        let value = try await store.value(forKey: key)
        return Result(container: resolved.descriptor.id.rawValue, key: key, value: value?.wire)
    }
}
