import UbiquityProtocol

extension ItemEvict: AnsweredOperation {
    func answer(in session: Session) async throws -> ItemSyncState {
        // Evicting removes the local copy: the peer must be allowed to change the item.
        try await session.evict(path)
    }
}
