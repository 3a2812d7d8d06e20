/// One connection's `store.open` of a store: where its `store.changed` events go (its
/// connection's outbox, which folds the changes not yet written), under which handle, and which
/// connection it is (that connection's own saves are not reported to it).
struct StoreSubscriber: Sendable {
    let handle: Int
    let connection: UInt64
    let outbox: ConnectionOutbox
}
