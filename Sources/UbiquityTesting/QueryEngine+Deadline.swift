public import UbiquityIndex
import Testing

extension QueryEngine {
    /// The next events of a group (``nextEvents(_:)``), or nil (and a recorded test failure) when
    /// none come within `seconds`; the group is closed then, as its reader was cancelled.
    public nonisolated func nextEvents(_ group: QueryGroupID, within seconds: Double) async throws -> [QueryGroupEvent]? {
        let result = try await withThrowingTaskGroup(of: [QueryGroupEvent]??.self) { tasks in
            tasks.addTask { .some(await self.nextEvents(group)) }
            tasks.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = try await tasks.next()!
            tasks.cancelAll()
            return first
        }
        guard let events = result else {
            Issue.record("no group event within \(seconds) s")
            return nil
        }
        return events
    }
}
