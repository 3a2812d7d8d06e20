/// What `operation` returns, or nil when it takes longer than `seconds` (it is cancelled then).
///
/// The one deadline of the test helpers: a test waits for an event (a state, a change, a log
/// line, a notification) by awaiting it here, and goes on as soon as it is there. The timer below
/// is the deadline itself, never a pause standing in for the event.
public func firstWithin<T: Sendable>(_ seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { tasks in
        tasks.addTask { try await operation() }
        tasks.addTask {
            try await Task.sleep(for: .seconds(seconds))    // sleep-ok: the deadline itself, not a wait for the event
            return nil
        }
        let first = try await tasks.next()!
        tasks.cancelAll()
        return first
    }
}
