import UbiquityProtocol

extension Hello: AnsweredOperation {
    static var allowedBeforeHello: Bool { true }

    func answer(in session: Session) throws -> HelloResult {
        guard version == WireProtocol.version else {
            throw ProtocolError(.protocolVersion,
                "this server speaks protocol version \(WireProtocol.version), the client asked for \(version)",
                details: ["supported": .array([.integer(Int64(WireProtocol.version))])])
        }
        session.helloDone = true
        session.context.logger.debug("hello", metadata: ["peer_uid": "\(session.peer.uid)", "client": "\(client ?? "-")"])
        return HelloResult(version: UbiquityVersion.string, limits: session.context.limits,
                           peerUID: session.peer.uid, peerGID: session.peer.gid)
    }
}
