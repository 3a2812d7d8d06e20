import UbiquityProtocol

extension DocumentUnlock: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        guard let path = session.context.documentLocks.unlock(lock, connection: session.connection) else {
            throw VersionError(.unknownHandle, "no lock \(lock) on this connection", details: ["lock": .integer(Int64(lock))])
        }
        return Result(lock: lock, etag: (try? await session.examine(path, needing: nil))?.etag)
    }
}
