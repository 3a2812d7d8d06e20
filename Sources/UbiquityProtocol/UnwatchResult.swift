public import UbiquityJSON

/// What ending a watch answers: `{"watch": N, "unwatched": true}`.
public struct UnwatchResult: OperationResult, Hashable {
    public var watch: Int

    public init(watch: Int) { self.watch = watch }
    public var json: JSONValue { .object(["watch": .integer(Int64(watch)), "unwatched": .bool(true)]) }
    public init(json: JSONValue) throws(ProtocolError) { watch = try FieldReader(json, context: "unwatch result").int("watch") }
}
