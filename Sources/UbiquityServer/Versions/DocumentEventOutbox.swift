import Synchronization
import UbiquityProtocol

/// One connection's pending `document.lockChanged` events: at most one per watch — the latest
/// state of the watched document — so a connection that stops reading holds at most one event per
/// watch however often others lock and unlock (the watches themselves are capped, ``DocumentLocks``).
///
/// ```
/// lock, unlock, lock (another connection)  ──▶ post ×3 ──▶ pending[watch] = locked   (one entry)
/// the writer comes back                    ──▶ take    ──▶ [locked]                  (one event)
/// ```
final class DocumentEventOutbox: Sendable {
    private struct Pending {
        var path: String
        var locked: Bool
        var yours: Bool
    }

    private struct State {
        /// Watch ids in the order their first pending change arrived.
        var order: [Int] = []
        var pending: [Int: Pending] = [:]
        var finished = false
    }

    private let state = Mutex(State())
    /// Wakes the writer; holds at most one wake-up (the pending table says what).
    private let wake: AsyncStream<Void>
    private let waker: AsyncStream<Void>.Continuation

    init() {
        (wake, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Records the latest state of `watch`'s document, replacing one not yet written.
    func post(watch: Int, path: String, locked: Bool, yours: Bool) {
        let posted = state.withLock { state in
            guard !state.finished else { return false }
            if state.pending[watch] == nil { state.order.append(watch) }
            state.pending[watch] = Pending(path: path, locked: locked, yours: yours)
            return true
        }
        if posted { waker.yield() }
    }

    /// Drops what is pending for an ended watch.
    func forget(watch: Int) {
        state.withLock { state in
            if state.pending.removeValue(forKey: watch) != nil { state.order.removeAll { $0 == watch } }
        }
    }

    /// Everything pending, oldest first, emptied; waits until there is some. Nil once finished.
    func next() async -> [ServerEvent]? {
        for await _ in wake {
            let events = state.withLock { state -> [ServerEvent] in
                defer { state.order.removeAll(); state.pending.removeAll() }
                return state.order.compactMap { watch in
                    state.pending[watch].map { .documentLockChanged(watch: watch, path: $0.path, locked: $0.locked, yours: $0.yours) }
                }
            }
            if !events.isEmpty { return events }
        }
        return nil
    }

    /// No more events: ``next()`` returns nil.
    func finish() {
        state.withLock { $0.finished = true }
        waker.finish()
    }

    /// How many events are pending (tests).
    var pendingCount: Int { state.withLock { $0.pending.count } }
}
