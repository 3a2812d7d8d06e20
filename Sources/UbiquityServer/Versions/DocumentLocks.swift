import Synchronization
public import UbiquityProtocol

/// The coordinated-write locks of items, and who watches them (docs/versions.md). Shared by every
/// connection of the daemon. A lock belongs to one connection and ends with `document.unlock` or
/// when that connection closes; watchers hear of every change through their connection's
/// ``DocumentEventOutbox`` (the latest state per watch, never a growing queue).
///
/// Bounded per connection and per user (``ServerLimits``): a peer cannot hold more locks or
/// watches than that, whatever it asks. Whether the peer may write (lock) or read (watch) the item
/// is decided before, by the session (``PeerAccess``).
public final class DocumentLocks: Sendable {
    /// Who holds a lock: the connection and its user.
    struct Holder: Sendable {
        var connection: UInt64
        var lock: Int
        var uid: UInt32
    }

    /// The connection or the user holds as many locks (or watches) as allowed; `perUser` says which.
    struct LimitReached: Error {
        var limit: Int
        var perUser: Bool
    }

    /// Why a lock was refused.
    enum Refusal: Error {
        /// Another connection holds the lock.
        case held
        case limit(LimitReached)
    }

    private struct Watcher {
        var connection: UInt64
        var uid: UInt32
        var path: String
        var outbox: DocumentEventOutbox
    }

    private struct State {
        var nextHandle = 1
        var holders: [String: Holder] = [:]
        var lockPaths: [Int: String] = [:]
        var watchers: [Int: Watcher] = [:]
        var watchersOfPath: [String: Set<Int>] = [:]
        var locks = Tally()
        var watches = Tally()
    }

    /// Counts per connection and per user.
    private struct Tally {
        var byConnection: [UInt64: Int] = [:]
        var byUser: [UInt32: Int] = [:]

        /// Counts one more, unless a limit is reached (then the refusal).
        mutating func take(connection: UInt64, uid: UInt32, perConnection: Int, perUser: Int) -> LimitReached? {
            if byConnection[connection, default: 0] >= perConnection { return LimitReached(limit: perConnection, perUser: false) }
            if byUser[uid, default: 0] >= perUser { return LimitReached(limit: perUser, perUser: true) }
            byConnection[connection, default: 0] += 1
            byUser[uid, default: 0] += 1
            return nil
        }

        mutating func give(connection: UInt64, uid: UInt32, count: Int = 1) {
            byConnection[connection] = byConnection[connection].map { $0 - count }.flatMap { $0 > 0 ? $0 : nil }
            byUser[uid] = byUser[uid].map { $0 - count }.flatMap { $0 > 0 ? $0 : nil }
        }
    }

    private let state = Mutex(State())
    private let limits: ServerLimits

    public init(limits: ServerLimits = ServerLimits()) {
        self.limits = limits
    }

    /// Takes the lock of `path` for `connection`. A connection that already holds it gets its own
    /// lock back.
    func lock(_ path: String, connection: UInt64, uid: UInt32) -> Result<Int, Refusal> {
        state.withLock { state in
            if let holder = state.holders[path] {
                return holder.connection == connection ? .success(holder.lock) : .failure(.held)
            }
            if let reached = state.locks.take(connection: connection, uid: uid, perConnection: limits.maxDocumentLocksPerConnection,
                                              perUser: limits.maxDocumentLocksPerPeer) {
                return .failure(.limit(reached))
            }
            let id = state.nextHandle
            state.nextHandle += 1
            state.holders[path] = Holder(connection: connection, lock: id, uid: uid)
            state.lockPaths[id] = path
            Self.announce(path, in: state)
            return .success(id)
        }
    }

    /// Gives a lock back; the path it was for, or nil when `connection` holds no such lock.
    func unlock(_ lock: Int, connection: UInt64) -> String? {
        state.withLock { state in
            guard let path = state.lockPaths[lock], let holder = state.holders[path], holder.connection == connection else { return nil }
            state.lockPaths[lock] = nil
            state.holders[path] = nil
            state.locks.give(connection: connection, uid: holder.uid)
            Self.announce(path, in: state)
            return path
        }
    }

    /// Starts sending `path`'s lock changes to `outbox`. Returns the watch id and whether the
    /// item is locked now (and whether by this connection).
    func watch(_ path: String, connection: UInt64, uid: UInt32, outbox: DocumentEventOutbox) -> Result<(watch: Int, holder: Holder?), LimitReached> {
        state.withLock { state in
            if let reached = state.watches.take(connection: connection, uid: uid, perConnection: limits.maxDocumentWatchesPerConnection,
                                                perUser: limits.maxDocumentWatchesPerPeer) {
                return .failure(reached)
            }
            let id = state.nextHandle
            state.nextHandle += 1
            state.watchers[id] = Watcher(connection: connection, uid: uid, path: path, outbox: outbox)
            state.watchersOfPath[path, default: []].insert(id)
            return .success((id, state.holders[path]))
        }
    }

    /// Ends a watch; false when `connection` has no such watch.
    func unwatch(_ watch: Int, connection: UInt64) -> Bool {
        state.withLock { state in
            guard let watcher = state.watchers[watch], watcher.connection == connection else { return false }
            Self.remove(watch, watcher, from: &state)
            watcher.outbox.forget(watch: watch)
            return true
        }
    }

    /// Everything `connection` held ends: its locks are given back (watchers are told), its watches end.
    func releaseAll(connection: UInt64) {
        state.withLock { state in
            for (id, watcher) in state.watchers where watcher.connection == connection {
                Self.remove(id, watcher, from: &state)
            }
            let mine = state.holders.filter { $0.value.connection == connection }
            for (path, holder) in mine {
                state.holders[path] = nil
                state.lockPaths[holder.lock] = nil
                state.locks.give(connection: connection, uid: holder.uid)
            }
            for path in mine.keys { Self.announce(path, in: state) }
        }
    }

    /// How many locks and watches are held in all (status, tests).
    var counts: (locks: Int, watches: Int) { state.withLock { ($0.holders.count, $0.watchers.count) } }

    private static func remove(_ id: Int, _ watcher: Watcher, from state: inout State) {
        state.watchers[id] = nil
        state.watchersOfPath[watcher.path]?.remove(id)
        if state.watchersOfPath[watcher.path]?.isEmpty == true { state.watchersOfPath[watcher.path] = nil }
        state.watches.give(connection: watcher.connection, uid: watcher.uid)
    }

    /// Posts `path`'s state now to each of its watchers' outboxes. Inside the lock, so the latest
    /// state posted is the latest state; a post replaces one entry and never blocks.
    private static func announce(_ path: String, in state: State) {
        let holder = state.holders[path]
        for id in state.watchersOfPath[path] ?? [] {
            guard let watcher = state.watchers[id] else { continue }
            watcher.outbox.post(watch: id, path: path, locked: holder != nil, yours: holder?.connection == watcher.connection)
        }
    }
}
