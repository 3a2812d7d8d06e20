/// One live fetch (`store.watch`) as its connection's outbox knows it: the store that keeps it
/// (``ContainerStore/liveFetchEvent(_:)`` makes its events: the first rows, then each change) and
/// the peer's right to read the store's container, asked before each event.
struct LiveFetch: Sendable {
    let store: ContainerStore
    /// Whether the peer may still read the store's container, asked before each look.
    let access: QueryAccess
}
