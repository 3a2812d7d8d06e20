import UbiquityProtocol

extension QueryStop: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        try await session.context.engine.stop(try session.owned(query))
        session.context.logger.debug("query stopped", metadata: ["query": "\(query)", "peer_uid": "\(session.peer.uid)"])
        return Result(query: query)
    }
}
