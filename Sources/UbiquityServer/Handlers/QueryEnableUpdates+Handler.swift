import UbiquityProtocol

extension QueryEnableUpdates: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        try await session.context.engine.enableUpdates(try session.readable(query))
        return Result(query: query)
    }
}
