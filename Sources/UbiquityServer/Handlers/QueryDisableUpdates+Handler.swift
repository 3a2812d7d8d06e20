import UbiquityProtocol

extension QueryDisableUpdates: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        try await session.context.engine.disableUpdates(try session.readable(query))
        return Result(query: query)
    }
}
