import UbiquityProtocol

extension KVAll: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let (resolved, store) = try session.keyValueStore(container)
        let (values, usage) = try await store.all()
        let quota = await store.quota
        return Result(container: resolved.descriptor.id.rawValue, values: values.mapValues(\.wire), keys: usage.keys,
                      bytes: usage.bytes, maxKeys: quota.maxKeys, maxBytes: quota.maxBytes, maxKeyBytes: quota.maxKeyBytes)
    }
}
