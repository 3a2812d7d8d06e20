public import UbiquityErrors
public import UbiquityPredicate

/// An error as it crosses the wire: `{"code": "...", "message": "...", ...details}`.
///
/// The server raises it for the protocol's own failures (malformed requests, limits, access); every
/// other ``ClientFacingError`` is rendered into one by ``init(rendering:)``. Clients decode every
/// error they receive into one.
///
/// ``Code/rawValue`` is the stable, documented string clients switch on; ``message`` is the
/// sentence for people; ``details`` carries structured context (`offset`, `field`, `limit`...).
public struct ProtocolError: ClientFacingError, Hashable, CustomStringConvertible {
    /// A stable error code: a struct around a private enum so codes can be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String, Sendable, Hashable, CaseIterable {
            case requestMalformed = "request.malformed"
            case requestTooLarge = "request.tooLarge"
            case requestUnknownOperation = "request.unknownOperation"
            case helloRequired = "request.helloRequired"
            case protocolVersion = "protocol.unsupportedVersion"
            case sortInvalid = "query.invalidSort"
            case attributeUnknown = "query.unknownAttribute"
            case containerInvalid = "container.invalid"
            case containerForbidden = "container.forbidden"
            case containerUnavailable = "container.unavailable"
            case serverBusy = "server.busy"
            case serverShuttingDown = "server.shuttingDown"
            case `internal` = "internal"
        }
        private let kind: Kind?
        private let other: String?
        private init(_ kind: Kind) { self.kind = kind; self.other = nil }

        /// A line that is not a JSON object, not UTF-8, or a field missing or of the wrong type.
        public static let requestMalformed = Code(.requestMalformed)
        /// A line longer than ``ServerLimits/maxLineBytes``; the connection is closed after it.
        public static let requestTooLarge = Code(.requestTooLarge)
        /// An `op` the server does not know.
        public static let requestUnknownOperation = Code(.requestUnknownOperation)
        /// A request other than `hello` before `hello`.
        public static let helloRequired = Code(.helloRequired)
        /// `hello` named a protocol version the server does not speak.
        public static let protocolVersion = Code(.protocolVersion)
        /// A sort key that is not an attribute, or not `KEY` / `KEY:asc` / `KEY:desc`.
        public static let sortInvalid = Code(.sortInvalid)
        /// An entry of `attributes` that is not an attribute name.
        public static let attributeUnknown = Code(.attributeUnknown)
        /// A container id that is not reverse-DNS or could escape the root.
        public static let containerInvalid = Code(.containerInvalid)
        /// The peer may not read this container (SO_PEERCRED uid/gid).
        public static let containerForbidden = Code(.containerForbidden)
        /// The container is configured but its directory is missing or unreadable.
        public static let containerUnavailable = Code(.containerUnavailable)
        /// A limit on connections or queries was reached.
        public static let serverBusy = Code(.serverBusy)
        /// The daemon is stopping.
        public static let serverShuttingDown = Code(.serverShuttingDown)
        /// Anything unexpected; the details are in the daemon's log.
        public static let `internal` = Code(.internal)

        /// The codes the protocol layer itself raises. Other layers' codes (`predicate.*`, the
        /// engine's) are declared by their own error types; the server's registry lists them all.
        public static var protocolCodes: [Code] { Kind.allCases.map(Code.init) }

        /// The code of another layer's error, as it crosses the wire.
        public init(_ code: some StableErrorCode) { self.init(rawValue: code.rawValue) }

        /// A code received from a newer server that this client does not know.
        public init(rawValue: String) {
            if let kind = Kind(rawValue: rawValue) { self.kind = kind; self.other = nil }
            else { self.kind = nil; self.other = rawValue }
        }

        /// The documented wire string, e.g. `container.forbidden`.
        public var rawValue: String { kind?.rawValue ?? other ?? "internal" }
        public var description: String { rawValue }
    }

    public var code: Code
    public var message: String
    /// Structured context: `offset` (predicate errors), `field`, `limit`, `suggestion`...
    public var details: [String: JSONValue]

    public init(_ code: Code, _ message: String, details: [String: JSONValue] = [:]) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// `container.forbidden: you may not read container 'x'`.
    public var description: String { "\(code.rawValue): \(message)" }

    /// The wire form: `{"code": ..., "message": ..., ...details}`.
    public var json: JSONValue {
        var object = details
        object["code"] = .string(code.rawValue)
        object["message"] = .string(message)
        return .object(object)
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "error")
        code = Code(rawValue: try reader.string("code"))
        message = try reader.string("message")
        var rest = reader.object
        rest["code"] = nil
        rest["message"] = nil
        details = rest
    }

    /// `field 'x' must be a string, found a number`.
    public static func malformed(_ message: String, field: String? = nil, limit: Int? = nil) -> ProtocolError {
        var details: [String: JSONValue] = [:]
        if let field { details["field"] = .string(field) }
        if let limit { details["limit"] = .integer(Int64(limit)) }
        return ProtocolError(.requestMalformed, message, details: details)
    }
}

extension ProtocolError {
    /// Any client-facing error as it goes onto the wire.
    public init(rendering error: some ClientFacingError) {
        if let error = error as? ProtocolError { self = error; return }
        self.init(Code(rawValue: error.clientCode), error.clientMessage, details: error.clientDetails)
    }

    public var clientCode: String { code.rawValue }
    public var clientMessage: String { message }
    public var clientDetails: [String: JSONValue] { details }
}
