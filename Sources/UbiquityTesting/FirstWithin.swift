/// What `operation` returns, or nil when it takes longer than `seconds` (it is cancelled then):
/// how the test helpers wait for an event with a deadline, returning as soon as it is there.
func firstWithin<T: Sendable>(_ seconds: Double, _ operation: @escaping @Sendable () async -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { tasks in
        tasks.addTask { await operation() }
        tasks.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = try await tasks.next()!
        tasks.cancelAll()
        return first
    }
}
