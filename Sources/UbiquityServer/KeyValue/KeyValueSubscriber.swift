import UbiquityProtocol

/// One `kv.subscribe`: where its `kv.changed` events go, and which connection holds it (that
/// connection's own writes are not reported to it).
struct KeyValueSubscriber: Sendable {
    let store: Int
    let connection: UInt64
    let sink: AsyncStream<KeyValueChange>.Continuation
}
