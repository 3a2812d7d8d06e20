import UbiquityProtocol

extension DocumentLock: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        // A lock holds off every other writer: only one who may write the item itself may take it.
        let item = try await session.examine(path, needing: .write)
        switch session.context.documentLocks.lock(item.path, connection: session.connection, uid: session.peer.uid) {
        case .success(let lock):
            return Result(lock: lock, path: item.path, etag: item.etag)
        case .failure(.held):
            // Who holds it is not said: another user's uid and pid are none of this peer's business.
            throw VersionError(.locked, "'\(path)' is being saved by another connection; try again when it is unlocked (document.watch tells)",
                               details: ["path": .string(path)])
        case .failure(.limit(let reached)):
            throw Session.overLimit("locks", reached, release: "document.unlock")
        }
    }
}
