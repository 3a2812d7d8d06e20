import UbiquityProtocol

/// A ``SessionOperation`` answered with its typed result as an ordinary response line (all but
/// the ones whose answers are written by a ``ResultEncoder`` or start forwarding).
protocol AnsweredOperation: SessionOperation {
    func answer(in session: Session) async throws -> Result
}

extension AnsweredOperation {
    func respond(to id: RequestID, in session: Session) async throws -> Session.Outcome {
        Session.Outcome(response: Response(id: id, result: try await answer(in: session).json))
    }
}
