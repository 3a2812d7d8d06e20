import NIOPosix
import UbiquityProtocol

extension VersionsList: AnsweredOperation {
    func answer(in session: Session) async throws -> ItemVersions {
        // A package walk can visit many entries: on a thread of NIO's pool, never on the
        // cooperative pool that every connection's requests and events share.
        let registry = session.context.registry, peer = session.peer, path = self.path
        return try await NIOThreadPool.singleton.runIfActive {
            let location = try ItemLocation.resolve(path, registry: registry, peer: peer)
            try Session.require(.read, location, peer: peer)
            return try VersionCatalog.versions(of: location, for: peer)
        }
    }
}
