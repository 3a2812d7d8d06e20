import UbiquityProtocol

extension Status: AnsweredOperation {
    func answer(in session: Session) async -> StatusResult {
        await session.context.status(session.peer)
    }
}
