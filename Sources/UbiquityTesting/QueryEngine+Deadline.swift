public import UbiquityIndex
import Testing

extension QueryEngine {
    /// The next events of a group (``nextEvents(_:)``), or nil (and a recorded test failure) when
    /// none come within `seconds`; the group is closed then, as its reader was cancelled.
    public nonisolated func nextEvents(_ group: QueryGroupID, within seconds: Double) async throws -> [QueryGroupEvent]? {
        guard let events = try await firstWithin(seconds, { await self.nextEvents(group) }) else {
            Issue.record("no group event within \(seconds) s")
            return nil
        }
        return events
    }
}
