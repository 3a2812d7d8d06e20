public import UbiquityErrors
public import UbiquityJSON

/// An error as it crosses the wire: `{"code": "...", "message": "...", ...details}`.
///
/// The server raises it for the protocol's own failures (malformed requests, limits, access); every
/// other client-facing error is rendered into one by the server (`init(rendering:)`). Clients decode
/// every error they receive into one.
///
/// ``ProtocolErrorCode/rawValue`` is the stable, documented string clients switch on; ``message`` is the
/// sentence for people; ``details`` carries structured context (`offset`, `field`, `limit`...).
public typealias ProtocolError = CodedError<ProtocolErrorCode>

extension ProtocolError {
    /// The wire form: `{"code": ..., "message": ..., ...details}`.
    public var json: JSONValue {
        var object = details
        object["code"] = .string(code.rawValue)
        object["message"] = .string(message)
        return .object(object)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "error")
        let code = Code(rawValue: try reader.string("code")), message = try reader.string("message")
        var rest = reader.object
        rest["code"] = nil
        rest["message"] = nil
        self.init(code, message, details: rest)
    }

    /// `field 'x' must be a string, found a number`.
    public static func malformed(_ message: String, field: String? = nil, limit: Int? = nil) -> ProtocolError {
        var details: [String: JSONValue] = [:]
        if let field { details["field"] = .string(field) }
        if let limit { details["limit"] = .integer(Int64(limit)) }
        return ProtocolError(.requestMalformed, message, details: details)
    }
}
