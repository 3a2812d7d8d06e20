import UbiquityProtocol

extension StoreDescribe: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let container = try session.storeContainer(self.container)
        return try await session.knownStore(store, of: container).describe()
    }
}
