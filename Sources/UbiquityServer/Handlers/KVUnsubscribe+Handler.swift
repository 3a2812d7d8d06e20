import UbiquityKeyValue
import UbiquityProtocol

extension KVUnsubscribe: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let number = store
        guard let container = session.keyValueSubscriptions.removeValue(forKey: number) else {
            throw KeyValueError(.unknownStore, "no key-value subscription \(number) on this connection", details: ["store": .integer(Int64(number))])
        }
        await session.context.keyValue.unsubscribe(number, container: container)
        session.outbox.forget(store: number)
        return Result(store: number)
    }
}
