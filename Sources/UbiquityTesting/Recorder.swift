import Synchronization
public import UbiquityIndex
import UbiquityWatch

/// Feeds every batch into a real `MetadataIndex` and lets tests wait for what they expect.
public final class Recorder: Sendable {
    private struct Waiter {
        var predicate: @Sendable (Recorded) -> Bool
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        let index: MetadataIndex
        var recorded = Recorded(changes: [], notices: [], batches: [], applied: 0, finished: false)
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    private let state: Mutex<State>

    public init(containers: [ContainerDescriptor]) {
        let index = MetadataIndex()
        for container in containers { index.addContainer(container) }
        state = Mutex(State(index: index))
    }

    public func apply(_ batch: ChangeBatch) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            let changeSet = state.index.apply(batch.changes)
            var touched = Set<String>()
            for (id, change) in changeSet.changes {
                if change.kind == .removed {
                    if let before = change.before { touched.insert(before.path) }
                } else {
                    touched.insert(state.index.path(of: id))
                }
            }
            state.recorded.touched[batch.sequence] = touched
            state.recorded.changes += batch.changes
            state.recorded.notices += batch.notices
            state.recorded.batches.append(batch)
            state.recorded.applied = batch.sequence
            return Self.satisfied(&state)
        }
        for continuation in ready { continuation.resume() }
    }

    public func finish() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.recorded.finished = true
            return Self.satisfied(&state)
        }
        for continuation in ready { continuation.resume() }
    }

    private static func satisfied(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        var ready: [CheckedContinuation<Void, any Error>] = []
        for (id, waiter) in state.waiters where waiter.predicate(state.recorded) {
            ready.append(waiter.continuation)
            state.waiters[id] = nil
        }
        return ready
    }

    public var recorded: Recorded { state.withLock { $0.recorded } }

    public func withIndex<T: Sendable>(_ body: (MetadataIndex) -> T) -> T { state.withLock { body($0.index) } }

    /// Waits until `predicate` holds for what was recorded, failing after `timeout`.
    public func wait(
        for what: String, timeout: Duration = .seconds(15),
        _ predicate: @escaping @Sendable (Recorded) -> Bool
    ) async throws {
        let id = state.withLock { state -> Int? in
            if predicate(state.recorded) { return nil }
            state.nextWaiter += 1
            return state.nextWaiter
        }
        guard let id else { return }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let ready = self.state.withLock { state -> Bool in
                        if predicate(state.recorded) { return true }
                        state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                        return false
                    }
                    if ready { continuation.resume() }
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)     // sleep-ok: the deadline itself; the waiter above is resumed by the event
                guard let continuation = self.state.withLock({ $0.waiters.removeValue(forKey: id)?.continuation }) else {
                    return                  // satisfied meanwhile
                }
                let error = TimedOut(description: "timed out after \(timeout) waiting for \(what)")
                continuation.resume(throwing: error)
                throw error
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
