import UbiquityProtocol

extension DocumentWatch: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let context = session.context, connection = session.connection, peer = session.peer
        let outbox = session.outbox
        let item = try await session.examine(path, needing: .read)
        switch context.documentLocks.watch(item.path, connection: connection, uid: peer.uid, outbox: outbox) {
        case .success(let (watch, holder)):
            session.documentWatches.insert(watch)
            return Result(watch: watch, path: item.path, locked: holder != nil, yours: holder?.connection == connection, etag: item.etag)
        case .failure(let reached):
            throw Session.overLimit("watches", reached, release: "document.unwatch")
        }
    }
}
