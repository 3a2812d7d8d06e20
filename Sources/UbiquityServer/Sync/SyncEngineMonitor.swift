import Synchronization
import UbiquityProtocol

/// What the daemon knows of its sync engine connection right now: written by
/// ``SyncEngineService``, read by `status`, and awaited by whoever needs a condition of it
/// (``first(where:)``: tests wait for the connection to change, never poll it).
final class SyncEngineMonitor: Sendable {
    private struct Waiter {
        let id: UInt64
        let condition: @Sendable (SyncEngineStatus) -> Bool
        let continuation: CheckedContinuation<SyncEngineStatus?, Never>
    }

    private struct State {
        var status: SyncEngineStatus
        var waiters: [Waiter] = []
        var nextWaiter: UInt64 = 0
    }

    private enum Registration {
        case ready(SyncEngineStatus)
        case cancelled
        case waiting
    }

    private let state: Mutex<State>

    init(_ initial: SyncEngineStatus) { state = Mutex(State(status: initial)) }

    var status: SyncEngineStatus { state.withLock { $0.status } }

    /// Changes the status; returns it as it was before. Waiters whose condition now holds are
    /// resumed (outside the lock).
    @discardableResult
    func update(_ change: (inout SyncEngineStatus) -> Void) -> SyncEngineStatus {
        let (before, ready) = state.withLock { state -> (SyncEngineStatus, [(Waiter, SyncEngineStatus)]) in
            let before = state.status
            change(&state.status)
            let now = state.status
            let ready = state.waiters.filter { $0.condition(now) }
            state.waiters.removeAll { $0.condition(now) }
            return (before, ready.map { ($0, now) })
        }
        for (waiter, status) in ready { waiter.continuation.resume(returning: status) }
        return before
    }

    /// The status as soon as `condition` holds for it; nil when the task is cancelled first.
    func first(where condition: @escaping @Sendable (SyncEngineStatus) -> Bool) async -> SyncEngineStatus? {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<SyncEngineStatus?, Never>) in
                let registration: Registration = state.withLock { state in
                    if condition(state.status) { return .ready(state.status) }
                    if Task.isCancelled { return .cancelled }
                    state.waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                    return .waiting
                }
                switch registration {
                case .ready(let status): continuation.resume(returning: status)
                case .cancelled: continuation.resume(returning: nil)
                case .waiting: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: nil)
        }
    }
}
