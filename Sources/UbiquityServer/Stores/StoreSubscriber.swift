/// One connection's `store.open` of a store: where its `store.changed` events go (its
/// connection's outbox, which folds the changes not yet written), under which handle, which
/// connection it is (that connection's own saves are not reported to it), and whether its peer
/// may still read the container.
struct StoreSubscriber: Sendable {
    let handle: Int
    let connection: UInt64
    let outbox: ConnectionOutbox
    /// Whether the peer may still read the store's container (a reload can take it away).
    let access: QueryAccess
}
