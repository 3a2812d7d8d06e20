import NIOPosix
import UbiquityProtocol

extension ItemUnpublish: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let store = try session.publishStore()
        let token = self.token, uid = session.peer.uid
        try await NIOThreadPool.singleton.runIfActive { try store.revoke(token, uid: uid) }
        return Result(token: token, revoked: true)
    }
}
