import UbiquityProtocol

extension DocumentUnwatch: AnsweredOperation {
    func answer(in session: Session) throws -> Result {
        guard session.documentWatches.contains(watch), session.context.documentLocks.unwatch(watch, connection: session.connection) else {
            throw VersionError(.unknownHandle, "no watch \(watch) on this connection", details: ["watch": .integer(Int64(watch))])
        }
        session.documentWatches.remove(watch)
        return Result(watch: watch)
    }
}
