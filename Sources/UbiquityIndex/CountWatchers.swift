/// Callers waiting until a count reaches what each asked for: the engine's waits for tests
/// ("until N callers wait for the index", "until N checks have ended"), which wait for the event
/// rather than look again and again. Not thread-safe: held by an actor.
struct CountWatchers {
    private var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    mutating func add(until count: Int, _ continuation: CheckedContinuation<Void, Never>) {
        watchers.append((count, continuation))
    }

    /// The count is now `current`: resumes those that asked for at most that.
    mutating func reached(_ current: Int) {
        let due = watchers.filter { $0.count <= current }
        watchers.removeAll { $0.count <= current }
        for watcher in due { watcher.continuation.resume() }
    }

    /// Resumes every one (what they waited for can no longer happen, or happened for all).
    mutating func resumeAll() { reached(.max) }
}
