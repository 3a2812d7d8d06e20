public import UbiquityJSON

/// `storage`: what each container the peer may read takes — items and bytes in documents and in
/// data, the largest documents, and what each other device still needs (the Manage Storage view).
public struct Storage: ProtocolOperation {
    public typealias Result = StorageResult
    public static let name = "storage"

    /// The most documents `largest` may ask for.
    public static let maxLargest = 100

    /// nil: every container the peer may read.
    public var container: String?
    /// How many of the largest documents to list per container (default 10, at most ``maxLargest``).
    public var largest: Int?

    public init(container: String? = nil, largest: Int? = nil) {
        self.container = container
        self.largest = largest
    }

    public init(_ request: FieldReader) throws(ProtocolError) {
        container = try request.optionalString("container")
        largest = try request.optionalInt("largest")
        if let largest, !(0...Self.maxLargest).contains(largest) {
            throw .malformed("field 'largest' must be from 0 to \(Self.maxLargest), found \(largest)", field: "largest")
        }
    }

    public var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        if let container { fields["container"] = .string(container) }
        if let largest { fields["largest"] = .integer(Int64(largest)) }
        return fields
    }
}
