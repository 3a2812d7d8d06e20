import UbiquityKeyValue
import UbiquityProtocol

extension KVSet: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let value = try KVValue(wire: self.value)
        let (resolved, store) = try session.keyValueStore(container)
        _ = try await store.write(value, forKey: key, connection: session.connection)
        return Result(container: resolved.descriptor.id.rawValue, key: key)
    }
}
