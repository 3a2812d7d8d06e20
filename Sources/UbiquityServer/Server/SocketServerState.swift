import NIOCore

/// Everything ``SocketServer`` shares between its tasks, as one value behind one `Mutex`.
///
/// The lifecycle is `idle` (waiting to bind) → `serving` → `shuttingDown` → `stopped`; `stopped`
/// is also where a server that never bound ends. Transitions are mutating methods that return
/// what the caller must do outside the lock (resume waiters, close channels), so no continuation
/// is resumed and no channel touched while the lock is held.
struct SocketServerState {
    /// The accepted connections and the counters `status` reports.
    struct Connections {
        var channels: [UInt64: any Channel] = [:]
        var nextID: UInt64 = 1
        var liveQueries = 0
    }

    enum Phase {
        /// Not bound yet; these tasks wait in ``SocketServer/waitUntilBound()``.
        case idle(bindWaiters: [CheckedContinuation<Void, Never>])
        case serving(listener: any Channel, Connections)
        /// No new connections; the open ones are being told and closed.
        case shuttingDown(Connections)
        case stopped
    }

    private(set) var phase: Phase = .idle(bindWaiters: [])

    // MARK: Binding

    /// What ``SocketServer/waitUntilBound()`` must do with its continuation.
    enum BindWait { case wait, resumeNow }

    mutating func waitForBind(_ continuation: CheckedContinuation<Void, Never>) -> BindWait {
        guard case .idle(var waiters) = phase else { return .resumeNow }
        waiters.append(continuation)
        phase = .idle(bindWaiters: waiters)
        return .wait
    }

    /// What to do once the socket is bound.
    struct Bound {
        var resume: [CheckedContinuation<Void, Never>]
        /// Shutdown was asked for before the socket was bound: close it at once.
        var closeListener: Bool
    }

    mutating func bound(listener: any Channel) -> Bound {
        switch phase {
        case .idle(let waiters):
            phase = .serving(listener: listener, Connections())
            return Bound(resume: waiters, closeListener: false)
        case .serving, .shuttingDown, .stopped:
            return Bound(resume: [], closeListener: true)
        }
    }

    /// `run()` returned (normally or not): waiters must not wait for a bind that will not come.
    mutating func stopped() -> [CheckedContinuation<Void, Never>] {
        defer { phase = .stopped }
        if case .idle(let waiters) = phase { return waiters }
        return []
    }

    // MARK: Connections

    enum Admission {
        case admitted(id: UInt64)
        case busy(id: UInt64)
        case shuttingDown(id: UInt64)
    }

    /// Registers a new connection, unless the limit is reached or the server is stopping. Every
    /// connection gets an id, for the logs, admitted or not.
    mutating func admit(_ channel: any Channel, limit: Int) -> Admission {
        switch phase {
        case .serving(let listener, var connections):
            let id = connections.nextID
            connections.nextID += 1
            guard connections.channels.count < limit else {
                phase = .serving(listener: listener, connections)
                return .busy(id: id)
            }
            connections.channels[id] = channel
            phase = .serving(listener: listener, connections)
            return .admitted(id: id)
        case .shuttingDown(var connections):
            let id = connections.nextID
            connections.nextID += 1
            phase = .shuttingDown(connections)
            return .shuttingDown(id: id)
        case .idle, .stopped:
            return .shuttingDown(id: 0)
        }
    }

    mutating func remove(connection id: UInt64) {
        update { $0.channels[id] = nil }
    }

    /// Live queries whose events are forwarded began (positive) or ended (negative).
    mutating func liveQueriesChanged(by delta: Int) { update { $0.liveQueries += delta } }

    /// What ``SocketServer/shutdown(reason:)`` must close; nil when shutdown already began.
    struct Shutdown {
        var listener: (any Channel)?
        var connections: [any Channel]
        /// Tasks waiting for a bind that will not come now.
        var resume: [CheckedContinuation<Void, Never>] = []
    }

    mutating func shutdown() -> Shutdown? {
        switch phase {
        case .idle(let waiters):
            phase = .shuttingDown(Connections())
            return Shutdown(listener: nil, connections: [], resume: waiters)
        case .serving(let listener, let connections):
            phase = .shuttingDown(connections)
            return Shutdown(listener: listener, connections: Array(connections.channels.values))
        case .shuttingDown, .stopped:
            return nil
        }
    }

    // MARK: Reading

    var isShuttingDown: Bool {
        switch phase {
        case .shuttingDown, .stopped: true
        case .idle, .serving: false
        }
    }

    var connectionCount: Int { connections?.channels.count ?? 0 }
    var liveQueryCount: Int { connections?.liveQueries ?? 0 }

    private var connections: Connections? {
        switch phase {
        case .serving(_, let connections), .shuttingDown(let connections): connections
        case .idle, .stopped: nil
        }
    }

    private mutating func update(_ body: (inout Connections) -> Void) {
        switch phase {
        case .serving(let listener, var connections):
            body(&connections)
            phase = .serving(listener: listener, connections)
        case .shuttingDown(var connections):
            body(&connections)
            phase = .shuttingDown(connections)
        case .idle, .stopped:
            break
        }
    }
}
