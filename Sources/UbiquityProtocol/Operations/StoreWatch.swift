public import UbiquityJSON

/// `store.watch`: a live fetch. Takes what `store.fetch` takes; answers its number, then the
/// rows arrive as `store.gatheringFinished` and every change of them as `store.update` (rows
/// added to, changed in and removed from the fetch's result set), as a metadata query's do.
public struct StoreWatch: ProtocolOperation {
    public static let name = "store.watch"

    /// What is fetched, and kept fetched.
    public var fetch: StoreFetch

    public init(_ fetch: StoreFetch) { self.fetch = fetch }

    public init(_ request: FieldReader) throws(ProtocolError) { fetch = try StoreFetch(request) }

    public var fields: [String: JSONValue] { fetch.fields }

    public struct Result: OperationResult, Hashable {
        public var watch: Int

        public init(watch: Int) { self.watch = watch }
        public var json: JSONValue { .object(["watch": .integer(Int64(watch))]) }
        public init(json: JSONValue) throws(ProtocolError) { watch = try FieldReader(json, context: "store.watch result").int("watch") }
    }
}
