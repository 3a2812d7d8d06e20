import UbiquityProtocol

extension StoreForget: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let container = try session.storeContainer(self.container)
        try await session.requireWrite(container, to: store)
        return try await session.knownStore(store, of: container).forget(device)
    }
}
