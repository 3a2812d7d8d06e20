import Synchronization
import UbiquityProtocol

/// The coordinated-write locks of items, and who watches them (docs/versions.md). Shared by every
/// connection of the daemon. A lock belongs to one connection and ends with `document.unlock` or
/// when that connection closes; watchers hear of every change as a `document.lockChanged` event.
public final class DocumentLocks: Sendable {
    /// The connection that holds a lock.
    struct Holder: Error, Sendable {
        var connection: UInt64
        var lock: Int
        var uid: UInt32
        var pid: Int32
    }

    private struct Watcher {
        var connection: UInt64
        var path: String
        var events: AsyncStream<ServerEvent>.Continuation
    }

    private struct State {
        var nextHandle = 1
        var holders: [String: Holder] = [:]
        var lockPaths: [Int: String] = [:]
        var watchers: [Int: Watcher] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Takes the lock of `path` for `connection`; the holder when another connection has it. A
    /// connection that already holds it gets its own lock back.
    func lock(_ path: String, connection: UInt64, uid: UInt32, pid: Int32) -> Result<Int, Holder> {
        let outcome: Result<Int, Holder> = state.withLock { state in
            if let holder = state.holders[path] {
                return holder.connection == connection ? .success(holder.lock) : .failure(holder)
            }
            let id = state.nextHandle
            state.nextHandle += 1
            state.holders[path] = Holder(connection: connection, lock: id, uid: uid, pid: pid)
            state.lockPaths[id] = path
            return .success(id)
        }
        if case .success = outcome { announce(path) }
        return outcome
    }

    /// Gives a lock back; the path it was for, or nil when `connection` holds no such lock.
    func unlock(_ lock: Int, connection: UInt64) -> String? {
        let path: String? = state.withLock { state in
            guard let path = state.lockPaths[lock], state.holders[path]?.connection == connection else { return nil }
            state.lockPaths[lock] = nil
            state.holders[path] = nil
            return path
        }
        if let path { announce(path) }
        return path
    }

    /// Starts sending `path`'s lock changes to `events`. Returns the watch id and whether the
    /// item is locked now (and whether by this connection).
    func watch(_ path: String, connection: UInt64, events: AsyncStream<ServerEvent>.Continuation) -> (watch: Int, holder: Holder?) {
        state.withLock { state in
            let id = state.nextHandle
            state.nextHandle += 1
            state.watchers[id] = Watcher(connection: connection, path: path, events: events)
            return (id, state.holders[path])
        }
    }

    /// Ends a watch; false when `connection` has no such watch.
    func unwatch(_ watch: Int, connection: UInt64) -> Bool {
        state.withLock { state in
            guard state.watchers[watch]?.connection == connection else { return false }
            state.watchers[watch] = nil
            return true
        }
    }

    /// Everything `connection` held ends: its locks are given back (watchers are told), its watches end.
    func releaseAll(connection: UInt64) {
        let freed: [String] = state.withLock { state in
            state.watchers = state.watchers.filter { $0.value.connection != connection }
            let mine = state.holders.filter { $0.value.connection == connection }
            for (path, holder) in mine {
                state.holders[path] = nil
                state.lockPaths[holder.lock] = nil
            }
            return Array(mine.keys)
        }
        for path in freed { announce(path) }
    }

    /// Tells every watcher of `path` whether it is locked now. Inside the lock, so that events
    /// leave in the order the changes happened (`yield` never blocks).
    private func announce(_ path: String) {
        state.withLock { state in
            let holder = state.holders[path]
            for (id, watcher) in state.watchers where watcher.path == path {
                watcher.events.yield(.documentLockChanged(watch: id, path: path, locked: holder != nil,
                                                          yours: holder?.connection == watcher.connection))
            }
        }
    }
}
