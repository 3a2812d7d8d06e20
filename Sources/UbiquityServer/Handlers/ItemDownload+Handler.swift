import UbiquityProtocol

extension ItemDownload: AnsweredOperation {
    func answer(in session: Session) async throws -> ItemSyncState {
        try await session.refuseWithoutEngine(path, needing: .read, doing: force ? "forcing a download" : "downloading")
    }
}
