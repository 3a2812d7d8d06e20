import UbiquityProtocol

extension QueryRelease: AnsweredOperation {
    func answer(in session: Session) async throws -> Result {
        let id = try session.owned(query)
        await session.context.engine.release(id)
        session.forget(id)
        return Result(query: query)
    }
}
