import UbiquityProtocol

extension ItemDownload: AnsweredOperation {
    func answer(in session: Session) async throws -> ItemSyncState {
        try await session.download(path, force: force)
    }
}
