public import UbiquityJSON

/// How much of its quota a store uses.
public struct KVUsage: Sendable, Hashable {
    public var keys = 0
    public var bytes = 0

    public init(keys: Int = 0, bytes: Int = 0) {
        self.keys = keys
        self.bytes = bytes
    }

    public var json: JSONValue { .object(["keys": .integer(Int64(keys)), "bytes": .integer(Int64(bytes))]) }
}
