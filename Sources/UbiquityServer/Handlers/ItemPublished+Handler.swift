import UbiquityProtocol

extension ItemPublished: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let store = try session.publishStore()
        let base = try await store.baseURL()
        return Result(items: store.published(by: session.peer.uid).map { Session.published($0, base: base) })
    }
}
