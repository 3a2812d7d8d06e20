public import UbiquityJSON
import UbiquityPredicate

/// A published snapshot as the daemon describes it: the result of `item.publish` and each entry of
/// `item.published` (docs/protocol.md, "item.publish").
public struct PublishedItem: OperationResult, Hashable {
    /// The URL that serves the snapshot until ``expires``: `http://HOST:PORT/p/<token>`.
    public var url: String
    /// The unguessable part of the URL, for `item.unpublish`.
    public var token: String
    /// The item's absolute path when it was published.
    public var path: String
    /// The snapshot's size in bytes.
    public var size: Int64
    /// When the URL stops serving (seconds since 1970, UTC; an ISO-8601 date on the wire).
    public var expires: Double

    public init(url: String, token: String, path: String, size: Int64, expires: Double) {
        self.url = url
        self.token = token
        self.path = path
        self.size = size
        self.expires = expires
    }

    public var json: JSONValue {
        .object(["url": .string(url), "token": .string(token), "path": .string(path), "size": .integer(size),
                 "expires": Value.date(expires).json])
    }

    public init(json: JSONValue) throws(ProtocolError) { try self.init(json: json, context: "item.publish result") }

    public init(json: JSONValue, context: String) throws(ProtocolError) {
        let reader = try FieldReader(json, context: context)
        url = try reader.string("url")
        token = try reader.string("token")
        path = try reader.string("path")
        size = Int64(try reader.int("size"))
        guard case .date(let seconds) = try? Value(json: try reader.value("expires"), for: .contentChangeDate) else {
            throw .malformed("field 'expires' of \(context) must be an ISO-8601 date", field: "expires")
        }
        expires = seconds
    }
}
