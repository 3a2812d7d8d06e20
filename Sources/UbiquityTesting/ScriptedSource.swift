public import UbiquityIndex
import Synchronization

/// A change source driven by the test: every ``send(_:notices:)`` is the next numbered batch,
/// and `sync` answers with the last number sent, as the watcher's cookie barrier does. For
/// the engine's pure logic; tests about the watcher use the real one.
public final class ScriptedSource: ChangeSource {
    private let stream: AsyncStream<ChangeBatch>
    private let continuation: AsyncStream<ChangeBatch>.Continuation
    private let sent = Mutex<UInt64>(0)
    private let answeringCalls = Mutex(AnsweringCalls())

    private struct AnsweringCalls {
        var history: [Bool] = []
        var waiters: [Int: (count: Int, continuation: CheckedContinuation<[Bool], Never>)] = [:]
        var nextWaiter = 0
    }

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: ChangeBatch.self)
    }

    public func batches() -> AsyncStream<ChangeBatch> { stream }
    public func sync() async throws -> UInt64 { sent.withLock { $0 } }

    public func send(_ changes: [FileSystemChange], notices: [ChangeNotice] = []) {
        sent.withLock { sequence in
            sequence += 1
            continuation.yield(ChangeBatch(sequence: sequence, changes: changes, notices: notices))
        }
    }

    /// What the consumer said of its answering (``ChangeSource/answering(_:)``), in order.
    public var answeringHistory: [Bool] { answeringCalls.withLock { $0.history } }

    /// ``answeringHistory`` once it holds at least `count` calls, or as it is when the caller is
    /// cancelled (a deadline around it: `firstWithin`).
    public func answeringHistory(reaching count: Int) async -> [Bool] {
        let id = answeringCalls.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = answeringCalls.withLock { state -> [Bool]? in
                    if state.history.count >= count || Task.isCancelled { return state.history }
                    state.waiters[id] = (count, continuation)
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiting = answeringCalls.withLock { state in state.waiters.removeValue(forKey: id).map { ($0.continuation, state.history) } }
            if let (continuation, history) = waiting { continuation.resume(returning: history) }
        }
    }

    public func answering(_ busy: Bool) {
        let reached = answeringCalls.withLock { state in
            state.history.append(busy)
            let due = state.waiters.filter { $0.value.count <= state.history.count }
            for id in due.keys { state.waiters.removeValue(forKey: id) }
            return (due.values.map(\.continuation), state.history)
        }
        for continuation in reached.0 { continuation.resume(returning: reached.1) }
    }

    /// Ends the stream, so the engine's `run()` returns.
    public func finish() { continuation.finish() }
}
