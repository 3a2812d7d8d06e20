/// One `kv.subscribe`: where its `kv.changed` events go (its connection's outbox, which keeps
/// the union of the keys not yet written), and which connection holds it (that connection's own
/// writes are not reported to it).
struct KeyValueSubscriber: Sendable {
    let store: Int
    let connection: UInt64
    let outbox: ConnectionOutbox
}
