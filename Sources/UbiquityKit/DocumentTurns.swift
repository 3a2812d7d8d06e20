import Synchronization

/// Saves of one item on one connection, one at a time.
///
/// The daemon's coordinated-write lock belongs to a connection, and a connection that holds it
/// is given it again: two saves of one item over the same connection (two tasks, or two
/// ``Document``s) would both hold it and could overwrite each other. So a save first takes its
/// turn here, per connection and path, then the daemon's lock — which keeps out every other
/// connection, in this process or another.
final class DocumentTurns: Sendable {
    static let shared = DocumentTurns()

    private struct Key: Hashable {
        var connection: ObjectIdentifier
        /// The path's bytes: canonically equivalent spellings are two files, two turns.
        var path: [UInt8]
    }

    /// A key is present while its turn is taken; its value is who waits, first come first served.
    private let turns = Mutex<[Key: [CheckedContinuation<Void, Never>]]>([:])

    /// Waits until no other save of `path` on `connection` is under way, and takes the turn.
    /// Every ``take(_:on:)`` is followed by one ``give(_:on:)``.
    func take(_ path: String, on connection: UbiquityConnection) async {
        let key = Key(connection: ObjectIdentifier(connection), path: Array(path.utf8))
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let free = turns.withLock { turns in
                guard turns[key] != nil else {
                    turns[key] = []
                    return true
                }
                turns[key]?.append(continuation)
                return false
            }
            if free { continuation.resume() }
        }
    }

    /// Ends the turn: the next waiting save (if any) takes it.
    func give(_ path: String, on connection: UbiquityConnection) {
        let key = Key(connection: ObjectIdentifier(connection), path: Array(path.utf8))
        let next = turns.withLock { turns -> CheckedContinuation<Void, Never>? in
            guard var waiting = turns[key], !waiting.isEmpty else {
                turns[key] = nil
                return nil
            }
            let first = waiting.removeFirst()
            turns[key] = waiting
            return first
        }
        next?.resume()
    }
}
