/// `store.unwatch`: ends a live fetch of this connection; no event of it follows.
public struct StoreUnwatch: UnwatchOperation {
    public static let name = "store.unwatch"
    public typealias Result = UnwatchResult

    public var watch: Int

    public init(watch: Int) { self.watch = watch }
}
