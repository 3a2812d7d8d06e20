/// `document.unwatch`: ends a watch of this connection.
public struct DocumentUnwatch: UnwatchOperation {
    public static let name = "document.unwatch"
    public typealias Result = UnwatchResult

    public var watch: Int

    public init(watch: Int) { self.watch = watch }
}
