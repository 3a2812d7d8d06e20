public import UbiquityJSON

/// `item.unpublish`: revokes a URL `item.publish` returned; only the user that published it may.
public struct ItemUnpublish: ProtocolOperation {
    public static let name = "item.unpublish"

    public var token: String

    public init(token: String) { self.token = token }
    public init(_ request: FieldReader) throws(ProtocolError) { token = try request.string("token") }
    public var fields: [String: JSONValue] { ["token": .string(token)] }

    public struct Result: OperationResult, Hashable {
        public var token: String
        /// Always true: an unknown token is an error (`publish.unknownToken`).
        public var revoked: Bool

        public init(token: String, revoked: Bool) {
            self.token = token
            self.revoked = revoked
        }

        public var json: JSONValue { .object(["token": .string(token), "revoked": .bool(revoked)]) }

        public init(json: JSONValue) throws(ProtocolError) {
            let reader = try FieldReader(json, context: "item.unpublish result")
            token = try reader.string("token")
            revoked = try reader.bool("revoked")
        }
    }
}
