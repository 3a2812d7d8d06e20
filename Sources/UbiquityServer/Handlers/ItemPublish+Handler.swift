import NIOPosix
import UbiquityProtocol

extension ItemPublish: AnsweredOperation {
    func answer(in session: Session) async throws -> PublishedItem {
        let store = try session.publishStore()
        let base = try await store.baseURL()
        let expires = try Session.expiryDate(self.expires, now: PublishStore.now(), settings: store.settings)
        // Path walks, permission reads and the copy wait on the disk: on a thread of NIO's pool.
        let registry = session.context.registry, peer = session.peer, path = self.path
        let snapshot = try await NIOThreadPool.singleton.runIfActive {
            try Session.publish(path, until: expires, into: store, registry: registry, peer: peer)
        }
        return Session.published(snapshot, base: base)
    }
}
