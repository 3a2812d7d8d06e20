import Synchronization
import UbiquityProtocol

/// What each user (uid) holds across all its connections: queries, and the result items they
/// gathered. Per-connection limits alone let one local user open 256 connections × 64 queries of
/// deep paths and exhaust the system service's memory for everyone; this is the per-user bound.
///
/// Shared by every session; one lock, held only for the arithmetic.
public final class PeerBudget: Sendable {
    private struct Usage {
        var queries = 0
        var items = 0
    }

    private let usage = Mutex<[UInt32: Usage]>([:])

    public init() {}

    /// Takes one query slot for `uid`.
    /// - Throws: `server.busy` naming the limit when the user holds `limit` queries already.
    func reserveQuery(for uid: UInt32, limit: Int) throws(ProtocolError) {
        let held: Int? = usage.withLock { table in
            let current = table[uid, default: Usage()]
            guard current.queries < limit else { return current.queries }
            table[uid, default: Usage()].queries += 1
            return nil
        }
        if let held {
            throw ProtocolError(.serverBusy,
                "uid \(uid) holds \(held) queries across its connections, the limit per user; release some with query.release",
                details: ["limit": .integer(Int64(limit))])
        }
    }

    /// Counts `items` gathered results against `uid`.
    /// - Throws: `server.busy` when they would take the user past `limit` (nothing is counted then).
    func hold(_ items: Int, for uid: UInt32, limit: Int) throws(ProtocolError) {
        let held: Int? = usage.withLock { table in
            let current = table[uid, default: Usage()].items
            let (total, overflow) = current.addingReportingOverflow(items)
            guard !overflow, total <= limit else { return current }
            table[uid, default: Usage()].items = total
            return nil
        }
        if let held {
            throw ProtocolError(.serverBusy,
                "this query gathered \(items) results; uid \(uid) already holds \(held) and may hold at most \(limit) across its queries: narrow the predicate or release queries",
                details: ["limit": .integer(Int64(limit))])
        }
    }

    /// Gives back one query slot and the items it held.
    func release(for uid: UInt32, items: Int) {
        usage.withLock { table in
            guard var current = table[uid] else { return }
            current.queries = max(0, current.queries - 1)
            current.items = max(0, current.items - items)
            table[uid] = current.queries == 0 && current.items == 0 ? nil : current
        }
    }
}
