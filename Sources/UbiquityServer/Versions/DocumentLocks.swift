import Synchronization
public import UbiquityProtocol

/// The coordinated-write locks of items, and who watches them (docs/versions.md). Shared by every
/// connection of the daemon. A lock belongs to one connection and ends with `document.unlock` or
/// when that connection closes; watchers hear of every change through their connection's
/// ``ConnectionOutbox`` (the latest state per watch, never a growing queue).
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
        var outbox: ConnectionOutbox
    }

    /// An item's path as the kernel names it: its bytes. Never the `String`, which would make
    /// canonically equivalent spellings (a precomposed and a decomposed `é`) — two files — one lock.
    private typealias Key = [UInt8]

    private struct State {
        var nextHandle = 1
        var holders: [Key: Holder] = [:]
        var lockPaths: [Int: String] = [:]
        var watchers: [Int: Watcher] = [:]
        var watchersOfPath: [Key: Set<Int>] = [:]
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
            if let holder = state.holders[Array(path.utf8)] {
                return holder.connection == connection ? .success(holder.lock) : .failure(.held)
            }
            if let reached = state.locks.take(connection: connection, uid: uid, perConnection: limits.maxDocumentLocksPerConnection,
                                              perUser: limits.maxDocumentLocksPerPeer) {
                return .failure(.limit(reached))
            }
            let id = state.nextHandle
            state.nextHandle += 1
            state.holders[Array(path.utf8)] = Holder(connection: connection, lock: id, uid: uid)
            state.lockPaths[id] = path
            Self.announce(path, in: state)
            return .success(id)
        }
    }

    /// Gives a lock back; the path it was for, or nil when `connection` holds no such lock.
    func unlock(_ lock: Int, connection: UInt64) -> String? {
        state.withLock { state in
            guard let path = state.lockPaths[lock], let holder = state.holders[Array(path.utf8)], holder.connection == connection else { return nil }
            state.lockPaths[lock] = nil
            state.holders[Array(path.utf8)] = nil
            state.locks.give(connection: connection, uid: holder.uid)
            Self.announce(path, in: state)
            return path
        }
    }

    /// Starts sending `path`'s lock changes to `outbox`. Returns the watch id and whether the
    /// item is locked now (and whether by this connection).
    func watch(_ path: String, connection: UInt64, uid: UInt32, outbox: ConnectionOutbox) -> Result<(watch: Int, holder: Holder?), LimitReached> {
        state.withLock { state in
            if let reached = state.watches.take(connection: connection, uid: uid, perConnection: limits.maxDocumentWatchesPerConnection,
                                                perUser: limits.maxDocumentWatchesPerPeer) {
                return .failure(reached)
            }
            let id = state.nextHandle
            state.nextHandle += 1
            state.watchers[id] = Watcher(connection: connection, uid: uid, path: path, outbox: outbox)
            state.watchersOfPath[Array(path.utf8), default: []].insert(id)
            return .success((id, state.holders[Array(path.utf8)]))
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
            var freed: [String] = []
            for (key, holder) in mine {
                state.holders[key] = nil
                if let path = state.lockPaths.removeValue(forKey: holder.lock) { freed.append(path) }
                state.locks.give(connection: connection, uid: holder.uid)
            }
            for path in freed { Self.announce(path, in: state) }
        }
    }

    /// How many locks and watches are held in all (status, tests).
    var counts: (locks: Int, watches: Int) { state.withLock { ($0.holders.count, $0.watchers.count) } }

    private static func remove(_ id: Int, _ watcher: Watcher, from state: inout State) {
        state.watchers[id] = nil
        let key = Array(watcher.path.utf8)
        state.watchersOfPath[key]?.remove(id)
        if state.watchersOfPath[key]?.isEmpty == true { state.watchersOfPath[key] = nil }
        state.watches.give(connection: watcher.connection, uid: watcher.uid)
    }

    /// Posts `path`'s state now to each of its watchers' outboxes. Inside the lock, so the latest
    /// state posted is the latest state; a post replaces one entry and never blocks.
    private static func announce(_ path: String, in state: State) {
        let holder = state.holders[Array(path.utf8)]
        for id in state.watchersOfPath[Array(path.utf8)] ?? [] {
            guard let watcher = state.watchers[id] else { continue }
            watcher.outbox.post(watch: id, path: path, locked: holder != nil, yours: holder?.connection == watcher.connection)
        }
    }
}
