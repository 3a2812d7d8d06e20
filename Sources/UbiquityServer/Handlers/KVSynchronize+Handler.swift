import UbiquityProtocol

extension KVSynchronize: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let (resolved, store) = try session.keyValueStore(container)
        try await store.ensureLoaded()
        let changed = await store.reload()
        return Result(container: resolved.descriptor.id.rawValue, changed: changed)
    }
}
