import UbiquityProtocol

extension StoreUnwatch: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        guard let store = session.liveFetches.removeValue(forKey: watch) else {
            throw StoreRequestError(.unknownWatch, "no live fetch \(watch) on this connection", details: ["watch": .integer(Int64(watch))])
        }
        session.outbox.remove(liveFetch: watch)
        await store.unwatch(watch)
        return Result(watch: watch)
    }
}
