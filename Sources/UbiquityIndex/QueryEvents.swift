/// The events of one query. Reading is what lets updates flow: an unread query only keeps
/// a coalesced summary (and at worst a reset).
public struct QueryEvents: AsyncSequence, Sendable {
    public typealias Element = QueryEvent
    let engine: QueryEngine
    let id: QueryID

    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        let engine: QueryEngine
        let id: QueryID

        public mutating func next() async -> QueryEvent? {
            let engine = self.engine, id = self.id
            return await withTaskCancellationHandler {
                await engine.nextEvent(id)
            } onCancel: {
                Task { await engine.cancelWait(id) }
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(engine: engine, id: id) }
}
