import UbiquityIndex
import UbiquityProtocol

extension QueryResults: SessionOperation {
    /// Written by the query's ``ResultEncoder`` straight into the line, in pieces (not through ``Result``).
    func respond(to requestID: RequestID, in session: Session) async throws -> Session.Outcome {
        let id = try session.readable(query)
        let results = (try? await session.context.engine.results(id)) ?? ResultSet()
        let encoder = session.encoders[id] ?? WireTranslation.encoder(attributes: [.name])
        return Session.Outcome(line: .results(encoder.queryResults(id: requestID, query: query, rows: EngineRows(results))))
    }
}
